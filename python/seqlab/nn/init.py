"""seqlab.nn.init: torch.nn.init's initialisers (same names, arguments and formulas),
implemented in C++ (cpp/src/nn/init.cpp) so that C++ modules and Python modules share them.
Each fills the tensor in place without recording history and returns it."""
from .._core.init import (  # noqa: F401
    calculate_gain, _calculate_fan_in_and_fan_out,
    uniform_, normal_, constant_, zeros_, ones_,
    xavier_uniform_, xavier_normal_, kaiming_uniform_, kaiming_normal_, orthogonal_,
)
