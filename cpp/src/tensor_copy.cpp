// The copy kernels, which record no autograd: the dtype x dtype conversion table (copy_kernel,
// the one place it is instantiated) with transposing copies by tiles, and contiguous_copy. The
// ops that record a graph (clone, to_dtype, copy_, fill_) call them from ops/copy.cpp.
// Tests: tests/test_elementwise.py, tests/test_int_dtypes.py, tests/test_vector_kernels.py.
#include <emmintrin.h>

#include <algorithm>
#include <type_traits>

#include "kernel_utils.hpp"

namespace seqlab {

// A copy whose innermost dst dim (stride 1) walks src with a stride while another dim is
// contiguous in src is a transpose (x.t().contiguous(), permute(...).contiguous()): a walk
// element by element touches a new cache line per element on one side. It goes by 16×16 tiles
// instead, whose 16 source lines stay in L1 while the tile is written, and the tiles are split
// over the pool. Returns false (nothing done) for any other layout.
// One full 16×16 tile, dst[k·ldd + i] = src[i·lds + k], by 4×4 (4-byte types) or 2×2 (8-byte
// types) blocks in SSE2 registers (x86-64's baseline): a block's rows are loaded, transposed by
// unpacks and stored, a third of the instructions of element-by-element moves. Bit copies, so
// only for same-type copies; false when the type has no such path.
template <typename D, typename S>
static bool transpose_tile(D* dst, int64_t ldd, const S* src, int64_t lds) {
  if constexpr (std::is_same_v<D, S> && sizeof(D) == 4) {
    for (int64_t k = 0; k < 16; k += 4)
      for (int64_t i = 0; i < 16; i += 4) {
        const float* s0 = reinterpret_cast<const float*>(src + i * lds + k);
        __m128 r0 = _mm_loadu_ps(s0), r1 = _mm_loadu_ps(s0 + lds), r2 = _mm_loadu_ps(s0 + 2 * lds),
               r3 = _mm_loadu_ps(s0 + 3 * lds);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        float* d0 = reinterpret_cast<float*>(dst + k * ldd + i);
        _mm_storeu_ps(d0, r0);
        _mm_storeu_ps(d0 + ldd, r1);
        _mm_storeu_ps(d0 + 2 * ldd, r2);
        _mm_storeu_ps(d0 + 3 * ldd, r3);
      }
    return true;
  } else if constexpr (std::is_same_v<D, S> && sizeof(D) == 8) {
    for (int64_t k = 0; k < 16; k += 2)
      for (int64_t i = 0; i < 16; i += 2) {
        const double* s0 = reinterpret_cast<const double*>(src + i * lds + k);
        const __m128d a = _mm_loadu_pd(s0), b = _mm_loadu_pd(s0 + lds);
        double* d0 = reinterpret_cast<double*>(dst + k * ldd + i);
        _mm_storeu_pd(d0, _mm_unpacklo_pd(a, b));
        _mm_storeu_pd(d0 + ldd, _mm_unpackhi_pd(a, b));
      }
    return true;
  }
  return false;
}

template <typename D, typename S>
static bool transpose_copy(const Tensor& dst, const Tensor& src, const std::array<Shape, 2>& st) {
  struct Dim {
    int64_t size, d, s;  // size, dst and src strides in elements
  };
  std::vector<Dim> dims;
  for (size_t k = 0; k < dst.shape().size(); ++k)
    if (dst.shape()[k] != 1) dims.push_back({dst.shape()[k], st[0][k], st[1][k]});
  if (dims.size() < 2 || dims.back().d != 1 || dims.back().s == 1 || dims.back().s == 0) return false;
  const int64_t numel = dst.numel();
  if (numel < 4096) return false;
  const Dim in = dims.back();  // i: contiguous in dst
  dims.pop_back();
  size_t kk = dims.size();  // k: contiguous in src
  for (size_t q = 0; q < dims.size(); ++q)
    if (dims[q].s == 1) kk = q;
  if (kk == dims.size()) return false;
  const Dim kd = dims[kk];
  dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(kk));
  constexpr int64_t kTile = 16;
  const int64_t k_tiles = (kd.size + kTile - 1) / kTile;
  int64_t outer = 1;
  for (const Dim& q : dims) outer *= q.size;
  D* const pd = static_cast<D*>(dst.raw_data());
  const S* const ps = static_cast<const S*>(src.raw_data());
  const int64_t per_task = kTile * in.size;
  parallel_for(outer * k_tiles, std::max<int64_t>(1, 32768 / per_task), [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      // task t = (index over the other dims, k tile)
      int64_t rest = t / k_tiles, od = 0, os = 0;
      for (size_t q = dims.size(); q-- > 0;) {
        const int64_t c = rest % dims[q].size;
        rest /= dims[q].size;
        od += c * dims[q].d;
        os += c * dims[q].s;
      }
      const int64_t k0 = (t % k_tiles) * kTile, k1 = std::min(kd.size, k0 + kTile);
      for (int64_t i0 = 0; i0 < in.size; i0 += kTile) {
        const int64_t i1 = std::min(in.size, i0 + kTile);
        if (k1 - k0 == kTile && i1 - i0 == kTile && transpose_tile(pd + od + k0 * kd.d + i0, kd.d, ps + os + k0 + i0 * in.s, in.s))
          continue;
        for (int64_t k = k0; k < k1; ++k) {
          D* drow = pd + od + k * kd.d;
          const S* scol = ps + os + k;
          for (int64_t i = i0; i < i1; ++i) drow[i] = static_cast<D>(scol[i * in.s]);
        }
      }
    }
  });
  return true;
}

// Strided copy with conversion: dst[...] = src[...] (src broadcast to dst's shape).
void copy_kernel(const Tensor& dst, const Tensor& src) {
  std::array<Shape, 2> st{dst.strides(), broadcast_strides(src, dst.shape())};
  const bool done = dispatch_copy(dst.dtype(), [&](auto dtag) {
    return dispatch_copy(src.dtype(), [&](auto stag) { return transpose_copy<decltype(dtag), decltype(stag)>(dst, src, st); });
  });
  if (done) return;
  dispatch_copy(dst.dtype(), [&](auto dtag) {
    using D = decltype(dtag);
    dispatch_copy(src.dtype(), [&](auto stag) {
      using S = decltype(stag);
      strided_loop<2>(dst.shape(), {static_cast<char*>(dst.raw_data()), static_cast<char*>(src.raw_data())}, st,
                      {int64_t(sizeof(D)), int64_t(sizeof(S))},
                      [](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t n) {
                        if (s[0] == int64_t(sizeof(D)) && s[1] == int64_t(sizeof(S))) {
                          D* d = reinterpret_cast<D*>(p[0]);
                          const S* x = reinterpret_cast<const S*>(p[1]);
                          for (int64_t i = 0; i < n; ++i) d[i] = convert<D>(x[i]);
                        } else {
                          for (int64_t i = 0; i < n; ++i)
                            *reinterpret_cast<D*>(p[0] + i * s[0]) = convert<D>(*reinterpret_cast<const S*>(p[1] + i * s[1]));
                        }
                      });
    });
  });
}

void throw_not_implemented(const char* op, Dtype d) {
  throw NotImplementedError(str_cat("\"", op, "\" not implemented for '", scalar_type_name(d), "'"));
}

Tensor contiguous_copy(const Tensor& x) {
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  copy_kernel(out, x);
  return out;
}

}  // namespace seqlab
