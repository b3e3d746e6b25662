"""seqlab.nn: the functional API for now (seqlab.nn.functional); modules come next."""
from . import functional  # noqa: F401
