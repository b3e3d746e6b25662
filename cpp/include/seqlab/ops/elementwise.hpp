// Pointwise ops with NumPy broadcasting and PyTorch's type promotion. cpp/src/ops/: elementwise.cpp
// (arithmetic), division.cpp, unary.cpp, compare.cpp, bitwise.cpp, copy.cpp, elementwise_inplace.cpp.
#pragma once
#include <optional>
#include "seqlab/tensor.hpp"

namespace seqlab {

// Binary arithmetic (broadcasting; tensor operands promote bool < int64 < float32 < float64).
Tensor add(const Tensor& a, const Tensor& b, double alpha = 1.0);  // a + alpha * b
Tensor sub(const Tensor& a, const Tensor& b, double alpha = 1.0);  // a - alpha * b
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);  // true division: integers divide as floats
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, double exponent);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// a % b with Python's sign (that of b) and C's fmod (the sign of a). Integers divided by 0 raise
// torch's RuntimeError "ZeroDivisionError"; bool operands have no kernel (NotImplementedError).
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, const Tensor& b);
// a // b rounded toward -inf (torch.floor_divide, Python's //), integers exactly; no derivative.
Tensor floor_divide(const Tensor& a, const Tensor& b);
// torch.remainder(number, tensor) and number % tensor: `a` is the number as a 0-d tensor
// (scalar_like). torch has no derivative for this form: its backward raises.
Tensor remainder_scalar_tensor(const Tensor& a, const Tensor& b);

// A Python number next to a tensor, as a 0-d "wrapped number" (PyTorch's rule): the tensor's
// dtype if it is floating, else int64 for an integer and float32 for a float; result_type gives
// it the lowest tier, so it never widens the tensor's dtype.
Tensor scalar_like(double value, const Tensor& other, bool is_integral_value);
Tensor scalar_tensor(double value, Dtype dtype);
// The dtype of a binary op on a and b, as torch.result_type: tensors with dims decide within their
// category (bool < integer < floating), a 0-d tensor only raises the category, and a wrapped
// number only raises a 0-d tensor's.
Dtype result_type(const Tensor& a, const Tensor& b);

// Unary.
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max);
// Integer and bool inputs give float32 (torch's default dtype).
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor log2(const Tensor& x);
Tensor log10(const Tensor& x);
Tensor log1p(const Tensor& x);  // log(1 + x), exact for small x
Tensor expm1(const Tensor& x);  // e^x - 1, exact for small x
Tensor erf(const Tensor& x);     // 2/√π ∫_0^x e^{−t²} dt
Tensor erfc(const Tensor& x);    // 1 − erf x, exact for large x
Tensor erfinv(const Tensor& x);  // the inverse of erf on [−1, 1]
Tensor rsqrt(const Tensor& x);   // 1/√x
// Piecewise constant (zero gradient); integer tensors stay integer, bool has no kernel (sign: bool
// stays bool).
Tensor sign(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor trunc(const Tensor& x);
// Half to even. With decimals: to a multiple of 10^-decimals, as torch.round(x, decimals=d)
// (integer tensors then have no kernel, as in torch).
Tensor round(const Tensor& x, std::optional<int64_t> decimals = std::nullopt);
Tensor frac(const Tensor& x);  // x - trunc(x), floating point only

// Comparisons and logic -> bool tensors, no gradient.
enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge };
Tensor compare(const Tensor& a, const Tensor& b, CompareOp op);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& a);

// Bitwise ops on integers and bools (floats raise NotImplementedError, as torch), no gradient.
// & | ^ of two bools are the logical ops; << and >> have no bool kernel.
enum class BitwiseOp { And, Or, Xor, LeftShift, RightShift };
Tensor bitwise(const Tensor& a, const Tensor& b, BitwiseOp op);
Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);   // a << b
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);  // a >> b (arithmetic for signed types)
Tensor bitwise_not(const Tensor& x);                           // ~x

// Copies and conversions.
Tensor to_dtype(const Tensor& x, Dtype dtype);  // differentiable between float dtypes
Tensor clone(const Tensor& x);                  // a contiguous copy, differentiable
Tensor contiguous(const Tensor& x);             // x itself if already contiguous

// In-place (bump the version counter; autograd-aware where PyTorch is, through
// check_inplace and rebase_history in autograd.hpp).
Tensor& copy_(Tensor& dst, const Tensor& src);  // broadcasting src into dst
Tensor& fill_(Tensor& dst, double value);
Tensor& zero_(Tensor& dst);
enum class InplaceOp { Add, Sub, Mul, Div, Remainder, Fmod, FloorDivide, BitwiseAnd, BitwiseOr, BitwiseXor, LeftShift,
                       RightShift };
Tensor& inplace_binary(Tensor& self, const Tensor& other, InplaceOp op, double alpha = 1.0);
Tensor& add_(Tensor& self, const Tensor& other, double alpha = 1.0);  // self += alpha * other
Tensor& clamp_(Tensor& self, std::optional<double> min, std::optional<double> max);
// self = f(self) for the unary ops above (x.sin_(), x.floor_(), ...): the result must keep self's
// dtype, so x.sin_() of an integer tensor raises as in torch.
enum class UnaryOp { Sin, Cos, Tan, Log2, Log10, Log1p, Expm1, Erf, Erfc, Erfinv, Rsqrt,  // float results
                     Sign, Floor, Ceil, Trunc, Round, Frac, BitwiseNot };
Tensor& inplace_unary(Tensor& self, UnaryOp op, std::optional<int64_t> decimals = std::nullopt);

// C++ sugar.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);

}  // namespace seqlab
