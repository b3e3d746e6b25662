// The float dtype an integer or bool promotes to in an op (int_tensor / 2, exp of ints,
// int + 1.5): torch.get_default_dtype, float32 unless seqlab.set_default_dtype chose float64.
// Defined in cpp/src/tensor.cpp; tests: tests/test_torch_switches.py.
#pragma once
#include "seqlab/dtype.hpp"

namespace seqlab {

Dtype default_float_dtype();
void set_default_float_dtype(Dtype d);

}  // namespace seqlab
