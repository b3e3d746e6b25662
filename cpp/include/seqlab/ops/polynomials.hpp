// The classical orthogonal polynomials of torch.special, p_n(x) for a tensor x and a tensor n
// (cpp/src/ops/polynomials.cpp; tests/test_special.py). No gradient, as torch.
#pragma once
#include "seqlab/tensor.hpp"

namespace seqlab {

enum class Polynomial {
  ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW,                                   // first to fourth kind
  ShiftedChebyshevT, ShiftedChebyshevU, ShiftedChebyshevV, ShiftedChebyshevW,       // of 2x − 1
  HermiteH, HermiteHe, LaguerreL, LegendreP,
};
// p_n(x), x and n broadcast and promoted together (integers: float32); n is truncated to an
// integer, and p_n = 0 for n < 0, as torch.
Tensor polynomial(const Tensor& x, const Tensor& n, Polynomial kind);
const char* polynomial_name(Polynomial kind);  // torch.special's name: "chebyshev_polynomial_t", ...

}  // namespace seqlab
