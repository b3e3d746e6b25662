// The fused scaled dot-product attention: O = softmax(Q Kᵀ · scale + M) V, one autograd node.
//   Q (N, L, E), K (N, S, E), V (N, S, Ev), O (N, L, Ev); blocks of Br query rows × Bc keys.
// Forward (FlashAttention, Dao et al. 2022, Algorithm 1; FlashAttention-2's loop order): each task
// owns one block of query rows and walks the key blocks, keeping per row the running maximum m and
// denominator l of the online softmax (Milakov & Gimelshein 2018):
//   m' = max(m, max_j s_j),  l' = l·e^(m−m') + Σ_j e^(s_j−m'),  O' = O·e^(m−m') + Σ_j e^(s_j−m') v_j,
// so only one Br × Bc block of scores exists per thread; O /= l at the end and the row's
// log-sum-exp lse = m + log l is saved. Memory O(L·E), not O(L·S).
// Backward (FlashAttention-2, Algorithm 2): each task owns one key block and walks the query blocks,
// recomputing P = e^(s − lse) from the saved lse, with D_i = Σ_c dO_ic O_ic:
//   dV += Pᵀ dO,   dP = dO Vᵀ,   dS = P ∘ (dP − D),   dQ += scale · dS K,   dK += scale · dSᵀ Q.
// dK and dV rows belong to one task; dQ rows are shared, so each thread sums into its own copy.
// Dropout multiplies P by the regenerated mask z/(1−p) before V (l counts the undropped P), and
// dP by the same factor in the backward.
// The block products use the panel kernel of the recurrent layers (simd/panel_gemm.hpp). Operands
// that are row-major blocks (V and dO, Q and K rows) are read in place when their width is a
// multiple of the panel width (head sizes 64, 128, ...); only the transposed operands are packed:
// Kᵀ (with the scale folded in) once per forward, Kᵀ and Vᵀ of one key block per backward task.
// So the backward's scratch is a few blocks per thread, and its memory is the gradients'.
// Relative positions (attention_impl.hpp's Relative): a block of Br × Bc scores spans
// Br + Bc − 1 distances, so its position terms need only the table rows those distances map to
// (≤ 2k + 1 for clipped tables): G = Qp_block · Rk[lo..hi]ᵀ is one more small product, gathered
// into s by distance; the backward scatters dS the same way and multiplies back. Table gradients
// are summed per chunk, then over chunks. Memory stays O(L·E) plus the tables (O(L) per head).
// Tests: tests/test_attention.py, tests/test_positional.py (against the composed oracle and torch),
// cpp/tests/test_attention.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "kernel_utils.hpp"
#include "ops/attention_impl.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/parallel.hpp"
#include "simd/panel_gemm.hpp"
#include "simd/vec_math.hpp"

namespace seqlab::attention_detail {

namespace {

constexpr int64_t kBr = 96;  // query rows per block: a multiple of the micro-kernel's 6 rows
constexpr int64_t kBc = 96;  // keys per block: a multiple of 6 and of the panel widths 16 and 32

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Zig-zag order of a sequence's blocks (0, last, 1, last−1, ...): the pool splits a task range into
// contiguous chunks, and under a causal mask block b costs ∝ b, so neighbours pair cheap with dear.
int64_t zigzag(int64_t r, int64_t blocks) { return r % 2 == 0 ? r / 2 : blocks - 1 - r / 2; }

// Kᵀ packed per (n, key block) into the panels of panel_gemm, multiplied by `mult` (the scale).
template <typename T>
struct Packed {
  std::unique_ptr<T[]> data;
  int64_t slot = 0, blocks = 0;
  const T* at(int64_t n, int64_t b) const { return data.get() + (n * blocks + b) * slot; }
};

// Block b of X (len × width) as the product's B = X[b0:b0+B, :]ᵀ (K = width, N = block rows).
template <typename T>
void pack_transposed(const T* X, int64_t rows, int64_t width, int64_t w, T mult, T* dst) {
  simd::pack_panels(X, width, rows, int64_t(1), width, w, dst);
  if (mult != T(1))
    for (int64_t i = 0, n = ceil_div(rows, w) * width * w; i < n; ++i) dst[i] *= mult;
}

template <typename T>
Packed<T> pack_blocks(const T* X, int64_t N, int64_t len, int64_t width, int64_t B, int64_t w, T mult) {
  Packed<T> p;
  p.blocks = ceil_div(len, B);
  p.slot = ceil_div(B, w) * width * w;
  p.data.reset(new T[static_cast<size_t>(std::max<int64_t>(1, N * p.blocks * p.slot))]);
  parallel_for(N * p.blocks, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, B * width)), [&](int64_t s, int64_t e) {
    for (int64_t t = s; t < e; ++t) {
      const int64_t n = t / p.blocks, b0 = (t % p.blocks) * B;
      pack_transposed(X + (n * len + b0) * width, std::min(B, len - b0), width, w, mult, p.data.get() + t * p.slot);
    }
  });
  return p;
}

// C (+)= A · X for X (K × N) row-major with row stride ldx: read in place when N is a multiple of
// the panel width, else packed into `scratch` (ceil(N/w)·K·w elements) first.
template <typename T>
void gemm_rows(const T* A, int64_t lda, int64_t M, int64_t K, const T* X, int64_t ldx, int64_t N, T* C, int64_t ldc,
               bool accumulate, int64_t w, T* scratch) {
  if (N % w == 0) {
    simd::strided_gemm(A, lda, M, K, X, ldx, N, C, ldc, accumulate);
    return;
  }
  simd::pack_panels(X, K, N, ldx, int64_t(1), w, scratch);
  simd::panel_gemm(A, lda, M, K, scratch, N, 0, ceil_div(N, w), C, ldc, accumulate);
}

// One relative-position table: rows × width per head, head h at data + h·head_stride (0 when one
// head's table serves all heads).
template <typename T>
struct Table {
  const T* data = nullptr;
  int64_t rows = 0, width = 1, head_stride = 0, numel = 0;
  Table() = default;
  explicit Table(const Tensor& t) {
    if (!t.defined()) return;
    data = t.data<T>();
    rows = t.size(1);
    width = t.dim() == 3 ? t.size(2) : 1;
    head_stride = t.size(0) == 1 ? 0 : rows * width;
    numel = t.numel();
  }
  explicit operator bool() const { return data != nullptr; }
  const T* at(int64_t h) const { return data + h * head_stride; }
  int64_t offset(int64_t h, int64_t row) const { return h * head_stride + row * width; }
};

// The table rows [lo, lo + count) that a block reads through a lookup base (element (r, c) at
// base[r − c], r < rows, c < cols).
struct Span {
  int64_t lo = 0, count = 0;
};
inline Span span_of(const int64_t* base, int64_t rows, int64_t cols) {
  int64_t lo = base[0], hi = base[0];
  for (int64_t t = 1 - cols; t < rows; ++t) {
    lo = std::min(lo, base[t]);
    hi = std::max(hi, base[t]);
  }
  return {lo, hi - lo + 1};
}

// Per-thread scratch of the relative terms (sized on use: a block's span is ≤ Br + Bc − 1 rows of a
// distance-indexed table, ≤ the table's rows).
template <typename T>
struct RelScratch {
  std::vector<T> packed, G, G2, agg, pack;
  static T* sized(std::vector<T>& v, int64_t n) {
    if (static_cast<int64_t>(v.size()) < n) v.resize(static_cast<size_t>(n));
    return v.data();
  }
};

template <typename T>
struct Ctx {
  const Problem& p;
  int64_t N, L, S, E, Ev, w, off;
  T scale;
  const bool* mask_b = nullptr;
  const T* mask_f = nullptr;
  bool drop_all = false;
  uint64_t threshold = 0;
  T keep_scale = T(1);
  // relative terms
  bool rel = false;
  int64_t heads = 1;
  const int64_t* index = nullptr;
  Table<T> bias, mult, rk, rq, rv;
  const T* qp = nullptr;  // the query of the position term: q unless query_pos is given

  explicit Ctx(const Problem& pr)
      : p(pr), N(pr.q.size(0)), L(pr.q.size(1)), S(pr.k.size(1)), E(pr.q.size(2)), Ev(pr.v.size(2)),
        w(simd::panel_width(std::is_same_v<T, double>)), off(pr.q_offset), scale(static_cast<T>(pr.scale)) {
    if (pr.mask.mask.defined()) {
      if (pr.mask.mask.dtype() == Dtype::Bool) mask_b = static_cast<const bool*>(pr.mask.mask.raw_data());
      else mask_f = static_cast<const T*>(pr.mask.mask.raw_data());
    }
    drop_all = pr.dropout_p >= 1.0;
    if (pr.dropout_p > 0.0 && !drop_all) {
      threshold = dropout_threshold(pr.dropout_p);
      keep_scale = static_cast<T>(1.0 / (1.0 - pr.dropout_p));
    }
    const Relative& r = pr.rel;
    rel = r.any();
    heads = std::max<int64_t>(1, r.heads);
    if (r.index.defined()) index = r.index.data<int64_t>();
    bias = Table<T>(r.bias);
    mult = Table<T>(r.mult);
    rk = Table<T>(r.rel_key);
    rq = Table<T>(r.rel_query);
    rv = Table<T>(r.rel_value);
    qp = r.query_pos.defined() ? r.query_pos.data<T>() : pr.q.data<T>();
  }
  bool dropout() const { return p.dropout_p > 0.0; }
  // z/(1−p) of weight (n, i, j)
  T drop_factor(int64_t n, int64_t i, int64_t j) const {
    if (drop_all) return T(0);
    const uint64_t idx = static_cast<uint64_t>((n * L + i) * S + j);
    return dropout_keep(p.seed, idx, threshold) ? keep_scale : T(0);
  }
  int64_t head(int64_t n) const { return n % heads; }
  // The lookups of a block: element (r, c) at base[r − c], distance d = i0 + r + off − (j0 + c).
  const int64_t* lut(const int64_t* index_, int64_t i0, int64_t j0) const { return index_ + (i0 + off - j0 + S - 1); }

  // s[r, c] = scale · q_i·k_j (+ the relative terms) + M[i, j] (−∞ where masked or j > i + off
  // under causal) for the rows i0 + r, r < rows, and keys j0 + c, c < cols; s has leading
  // dimension kBc; kT_panels hold scale · Kᵀ. With DA's multiplier, u receives the scores before it.
  void scores(int64_t n, int64_t i0, int64_t rows, int64_t j0, int64_t cols, const T* kT_panels, T* s,
              RelScratch<T>& x, T* u = nullptr) const {
    simd::panel_gemm(p.q.data<T>() + (n * L + i0) * E, E, rows, E, kT_panels, cols, 0, ceil_div(cols, w), s, kBc,
                     false);
    if (rel) add_relative(n, i0, rows, j0, cols, s, x, u);
    constexpr T ninf = -std::numeric_limits<T>::infinity();
    const MaskView& mv = p.mask;
    for (int64_t r = 0; r < rows; ++r) {
      T* sr = s + r * kBc;
      const int64_t i = i0 + r;
      if (mask_b) {
        const bool* m = mask_b + mv.offset[n] + i * mv.stride_i + j0 * mv.stride_j;
        for (int64_t c = 0; c < cols; ++c)
          if (!m[c * mv.stride_j]) sr[c] = ninf;
      } else if (mask_f) {
        const T* m = mask_f + mv.offset[n] + i * mv.stride_i + j0 * mv.stride_j;
        for (int64_t c = 0; c < cols; ++c) sr[c] += m[c * mv.stride_j];
      }
      if (p.causal)
        for (int64_t c = std::max<int64_t>(0, i + off + 1 - j0); c < cols; ++c) sr[c] = ninf;
    }
  }

  // G (rows × span) = A (rows × E, lda) · table rows [lo, lo + span)ᵀ · mult.
  void table_product(const T* A, int64_t lda, int64_t rows, const T* table_rows, int64_t width, Span sp, T mult_,
                     RelScratch<T>& x, T* G) const {
    T* packed = RelScratch<T>::sized(x.packed, ceil_div(sp.count, w) * width * w);
    pack_transposed(table_rows, sp.count, width, w, mult_, packed);
    simd::panel_gemm(A, lda, rows, width, packed, sp.count, 0, ceil_div(sp.count, w), G, sp.count, false);
  }

  void add_relative(int64_t n, int64_t i0, int64_t rows, int64_t j0, int64_t cols, T* s, RelScratch<T>& x,
                    T* u) const {
    const int64_t h = head(n);
    const int64_t* b1 = index ? lut(index, i0, j0) : nullptr;
    if (rk) {  // + scale · qp_i · Rk[idx]
      const Span sp = span_of(b1, rows, cols);
      T* G = RelScratch<T>::sized(x.G, rows * sp.count);
      table_product(qp + (n * L + i0) * E, E, rows, rk.at(h) + sp.lo * E, E, sp, scale, x, G);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) s[r * kBc + c] += G[r * sp.count + b1[r - c] - sp.lo];
    }
    if (rq) {  // + scale · k_j · Rq[idx]
      const Span sp = span_of(b1, rows, cols);
      T* G = RelScratch<T>::sized(x.G2, cols * sp.count);
      table_product(p.k.data<T>() + (n * S + j0) * E, E, cols, rq.at(h) + sp.lo * E, E, sp, scale, x, G);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) s[r * kBc + c] += G[c * sp.count + b1[r - c] - sp.lo];
    }
    if (u)
      for (int64_t r = 0; r < rows; ++r) std::copy(s + r * kBc, s + r * kBc + cols, u + r * kBc);
    if (mult) {  // DA: relu(u) · mult[idx]
      const T* m = mult.at(h);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          T& v = s[r * kBc + c];
          v = v > T(0) ? v * m[b1[r - c]] : T(0);
        }
    }
    if (bias) {
      const T* b = bias.at(h);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) s[r * kBc + c] += b[b1[r - c]];
    }
  }

  // The last key a block of query rows [i0, i0 + rows) can see under the causal mask, exclusive.
  int64_t key_end(int64_t i0, int64_t rows) const { return p.causal ? std::max<int64_t>(0, std::min(S, i0 + rows + off)) : S; }
};

// ---------------------------------------------------------------------------------------------
// Forward: out (N, L, Ev) and lse (N, L).
template <typename T>
void forward(const Ctx<T>& c, const Packed<T>& kT, T* out, T* lse) {
  const int64_t qblocks = ceil_div(c.L, kBr);
  const T* v = c.p.v.template data<T>();
  parallel_for(c.N * qblocks, 1, [&](int64_t t0, int64_t t1) {
    std::unique_ptr<T[]> s(new T[kBr * kBc]), pack(new T[ceil_div(c.Ev, c.w) * c.w * kBc]);
    RelScratch<T> x;
    T m[kBr];
    double l[kBr];
    constexpr T ninf = -std::numeric_limits<T>::infinity();
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / qblocks, qb = zigzag(t % qblocks, qblocks);
      const int64_t i0 = qb * kBr, rows = std::min(kBr, c.L - i0);
      T* o = out + (n * c.L + i0) * c.Ev;
      std::fill(o, o + rows * c.Ev, T(0));
      std::fill(m, m + rows, ninf);
      std::fill(l, l + rows, 0.0);
      const int64_t kend = c.key_end(i0, rows);
      for (int64_t kb = 0; kb * kBc < kend; ++kb) {
        const int64_t j0 = kb * kBc, cols = std::min(kBc, c.S - j0);
        c.scores(n, i0, rows, j0, cols, kT.at(n, kb), s.get(), x);
        for (int64_t r = 0; r < rows; ++r) {
          T* sr = s.get() + r * kBc;
          const T mx = std::max(m[r], simd::reduce_max(sr, cols));
          if (mx == ninf) {  // every key so far masked: nothing to add (a NaN score makes the row NaN, as torch)
            if (std::any_of(sr, sr + cols, [](T v) { return std::isnan(v); }))
              l[r] = std::numeric_limits<double>::quiet_NaN();
            std::fill(sr, sr + cols, T(0));
            continue;
          }
          const T alpha = m[r] == ninf ? T(0) : std::exp(m[r] - mx);
          l[r] = l[r] * alpha + simd::exp_sum(sr, mx, sr, cols);  // e^(s − m'), 0 where masked
          m[r] = mx;
          if (alpha != T(1)) {
            T* orow = o + r * c.Ev;
            for (int64_t e = 0; e < c.Ev; ++e) orow[e] *= alpha;
          }
          if (c.dropout())
            for (int64_t j = 0; j < cols; ++j) sr[j] *= c.drop_factor(n, i0 + r, j0 + j);
        }
        // O += P V_block
        gemm_rows(s.get(), kBc, rows, cols, v + (n * c.S + j0) * c.Ev, c.Ev, c.Ev, o, c.Ev, true, c.w, pack.get());
        if (c.rv) {  // O += Σ_j P_ij Rv[idx]: P summed by table row, times the rows
          const int64_t* b1 = c.lut(c.index, i0, j0);
          const Span sp = span_of(b1, rows, cols);
          T* agg = RelScratch<T>::sized(x.agg, rows * sp.count);
          std::fill(agg, agg + rows * sp.count, T(0));
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < cols; ++j) agg[r * sp.count + b1[r - j] - sp.lo] += s[r * kBc + j];
          gemm_rows(agg, sp.count, rows, sp.count, c.rv.at(c.head(n)) + sp.lo * c.Ev, c.Ev, c.Ev, o, c.Ev, true, c.w,
                    RelScratch<T>::sized(x.pack, ceil_div(c.Ev, c.w) * c.w * sp.count));
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        T* orow = o + r * c.Ev;
        // a fully masked row gives 0 (torch's choice); a NaN score, NaN (l is NaN then)
        const T nan = std::numeric_limits<T>::quiet_NaN();
        const T inv = l[r] > 0.0 ? static_cast<T>(1.0 / l[r]) : std::isnan(l[r]) ? nan : T(0);
        for (int64_t e = 0; e < c.Ev; ++e) orow[e] *= inv;
        lse[n * c.L + i0 + r] = l[r] > 0.0     ? static_cast<T>(m[r] + std::log(l[r]))
                                : std::isnan(l[r]) ? nan
                                                   : std::numeric_limits<T>::infinity();
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Backward: dq, dk, dv from dout (all contiguous), the saved out and lse; with relative terms also
// the tables' gradients (in `tg`, each the table's shape, zero-filled here) and dqp.
template <typename T>
struct TableGrads {
  T *bias = nullptr, *mult = nullptr, *rk = nullptr, *rq = nullptr, *rv = nullptr, *qp = nullptr;
};

// Gradient rows that several tasks write (dQ, dQp): the first chunk writes `base`; with too few heads
// to deal whole heads to chunks, every other chunk sums into a zeroed copy, added at the end.
template <typename T>
struct SharedRows {
  T* base = nullptr;
  int64_t numel = 0;
  std::vector<std::unique_ptr<T[]>> extra;
  SharedRows(T* b, int64_t n, int64_t chunks, bool by_head) : base(b), numel(n) {
    if (b) std::fill(b, b + n, T(0));
    if (b && !by_head) extra.resize(static_cast<size_t>(chunks - 1));
  }
  T* for_chunk(int64_t chunk) {
    if (!base || chunk == 0 || extra.empty()) return base;
    auto& e = extra[static_cast<size_t>(chunk - 1)];
    e.reset(new T[static_cast<size_t>(numel)]);
    std::fill(e.get(), e.get() + numel, T(0));
    return e.get();
  }
  void reduce() {
    for (const auto& e : extra) {
      const T* x = e.get();
      parallel_for(numel, 32768, [&](int64_t s, int64_t t) {
        for (int64_t i = s; i < t; ++i) base[i] += x[i];
      });
    }
  }
};

// A position term's gradient: dS (rows × cols, leading dimension kBc) summed by table row through
// the block's lookup, as G (one row per query r when by_query, else per key j; span columns) and
// its transpose Gt (span rows, leading dimension ldt).
template <typename T>
void scatter_by_distance(const T* dS, const int64_t* base, int64_t rows, int64_t cols, bool by_query, Span sp, T* G,
                         T* Gt, int64_t ldt) {
  std::fill(G, G + (by_query ? rows : cols) * sp.count, T(0));
  std::fill(Gt, Gt + sp.count * ldt, T(0));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t e = base[r - j] - sp.lo, own = by_query ? r : j;
      G[own * sp.count + e] += dS[r * kBc + j];
      Gt[e * ldt + own] += dS[r * kBc + j];
    }
}

template <typename T>
void backward(const Ctx<T>& c, const T* out, const T* lse, const T* dout, T* dq, T* dk, T* dv, TableGrads<T> tg) {
  const int64_t N = c.N, L = c.L, S = c.S, E = c.E, Ev = c.Ev, w = c.w;
  // D_i = Σ_c dO_ic O_ic: the softmax backward's row term, once per row.
  std::unique_ptr<T[]> D(new T[std::max<int64_t>(1, N * L)]);
  parallel_for(N * L, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, Ev)), [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) {
      double acc = 0.0;
      for (int64_t k = 0; k < Ev; ++k) acc += static_cast<double>(dout[i * Ev + k]) * out[i * Ev + k];
      D[i] = static_cast<T>(acc);
    }
  });
  const T* q = c.p.q.template data<T>();
  const T* k = c.p.k.template data<T>();
  const T* v = c.p.v.template data<T>();
  const int64_t kblocks = ceil_div(S, kBc), qblocks = ceil_div(L, kBr), tasks = N * kblocks;
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), tasks));
  // Tasks are dealt to chunks by whole heads when there are enough heads, so that no two chunks
  // write the same dQ rows; otherwise each chunk but the first sums its dQ into its own buffer.
  const bool by_head = N >= chunks;
  SharedRows<T> dq_rows(dq, N * L * E, chunks, by_head), dqp_rows(tg.qp, N * L * E, chunks, by_head);
  // The tables' gradients: chunk 0 writes tg's, the others their own, summed at the end.
  struct TablePart {
    Table<T> t;
    T* grad;
  };
  const TablePart parts[] = {{c.bias, tg.bias}, {c.mult, tg.mult}, {c.rk, tg.rk}, {c.rq, tg.rq}, {c.rv, tg.rv}};
  std::vector<std::vector<std::vector<T>>> table_extra(static_cast<size_t>(chunks));
  for (const TablePart& tp : parts)
    if (tp.grad) std::fill(tp.grad, tp.grad + tp.t.numel, T(0));
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    const int64_t wide = std::max(E, Ev);
    std::unique_ptr<T[]> P(new T[kBr * kBc]), dS(new T[kBr * kBc]), T_(new T[kBc * kBr]);
    std::unique_ptr<T[]> U(c.mult ? new T[kBr * kBc] : nullptr);
    std::unique_ptr<T[]> dk_acc(new T[kBc * E]), dv_acc(new T[kBc * Ev]);
    std::unique_ptr<T[]> kT(new T[ceil_div(kBc, w) * E * w]), vT(new T[ceil_div(kBc, w) * Ev * w]);
    std::unique_ptr<T[]> pack(new T[ceil_div(wide, w) * w * std::max(kBr, kBc)]);
    RelScratch<T> x;
    std::vector<T> g1, g1t, g2, g2t;
    for (int64_t chunk = c0; chunk < c1; ++chunk) {
      T* dqc = dq_rows.for_chunk(chunk);
      T* dqpc = dqp_rows.for_chunk(chunk);
      T* tgc[5];
      auto& mine = table_extra[static_cast<size_t>(chunk)];
      mine.resize(5);
      for (int i = 0; i < 5; ++i) {
        tgc[i] = parts[i].grad;
        if (parts[i].grad && chunk > 0) {
          mine[i].assign(static_cast<size_t>(parts[i].t.numel), T(0));
          tgc[i] = mine[i].data();
        }
      }
      T *dbias = tgc[0], *dmult = tgc[1], *drk = tgc[2], *drq = tgc[3], *drv = tgc[4];
      const int64_t t_begin = by_head ? chunk * N / chunks * kblocks : chunk * tasks / chunks;
      const int64_t t_end = by_head ? (chunk + 1) * N / chunks * kblocks : (chunk + 1) * tasks / chunks;
      for (int64_t t = t_begin; t < t_end; ++t) {
        const int64_t n = t / kblocks, kb = zigzag(t % kblocks, kblocks), h = c.head(n);
        const int64_t j0 = kb * kBc, cols = std::min(kBc, S - j0);
        const T* kj = k + (n * S + j0) * E;  // this task's keys and values, rows j0 ... j0 + cols
        const T* vj = v + (n * S + j0) * Ev;
        pack_transposed(kj, cols, E, w, c.scale, kT.get());
        pack_transposed(vj, cols, Ev, w, T(1), vT.get());
        std::fill(dk_acc.get(), dk_acc.get() + cols * E, T(0));
        std::fill(dv_acc.get(), dv_acc.get() + cols * Ev, T(0));
        // rows i with i + off < j0 see none of these keys
        const int64_t qb0 = c.p.causal ? std::max<int64_t>(0, j0 - c.off) / kBr : 0;
        for (int64_t qb = qb0; qb < qblocks; ++qb) {
          const int64_t i0 = qb * kBr, rows = std::min(kBr, L - i0);
          const T* qi = q + (n * L + i0) * E;
          const T* doi = dout + (n * L + i0) * Ev;
          const int64_t* b1 = c.index ? c.lut(c.index, i0, j0) : nullptr;
          // in the forward pass this was: P = softmax(s) = e^(s − lse)
          c.scores(n, i0, rows, j0, cols, kT.get(), P.get(), x, U.get());
          for (int64_t r = 0; r < rows; ++r) {  // 0 where masked; lse = +∞ on dead rows
            T* pr = P.get() + r * kBc;
            simd::exp_sum(pr, lse[n * L + i0 + r], pr, cols);
          }
          // dV += (P ∘ Z)ᵀ dO      (in the forward pass this was: O += (P ∘ Z) V)
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < cols; ++j) {
              const T pz = P[r * kBc + j];
              T_[j * kBr + r] = c.dropout() ? pz * c.drop_factor(n, i0 + r, j0 + j) : pz;
            }
          gemm_rows(T_.get(), kBr, cols, rows, doi, Ev, Ev, dv_acc.get(), Ev, true, w, pack.get());
          // dP = (dO Vᵀ) ∘ Z
          simd::panel_gemm(doi, Ev, rows, Ev, vT.get(), cols, 0, ceil_div(cols, w), dS.get(), kBc, false);
          if (c.rv) {  // O += Σ_j (P ∘ Z)_ij Rv[idx]:  dRv[idx] += (P ∘ Z)_ij dO_i,  dP_ij += dO_i · Rv[idx]
            const Span sp = span_of(b1, rows, cols);
            T* aggT = RelScratch<T>::sized(x.agg, sp.count * kBr);
            std::fill(aggT, aggT + sp.count * kBr, T(0));
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t j = 0; j < cols; ++j) aggT[(b1[r - j] - sp.lo) * kBr + r] += T_[j * kBr + r];
            if (drv)
              gemm_rows(aggT, kBr, sp.count, rows, doi, Ev, Ev, drv + c.rv.offset(h, sp.lo), Ev, true, w,
                        RelScratch<T>::sized(x.pack, ceil_div(Ev, w) * w * std::max(kBr, sp.count)));
            T* G = RelScratch<T>::sized(x.G, rows * sp.count);
            c.table_product(doi, Ev, rows, c.rv.at(h) + sp.lo * Ev, Ev, sp, T(1), x, G);
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t j = 0; j < cols; ++j) dS[r * kBc + j] += G[r * sp.count + b1[r - j] - sp.lo];
          }
          // dS = P ∘ (dP − D_i), the gradient of the scores s; times scale, the gradient of the products
          // q·k (qp·Rk, k·Rq), at once unless a bias or DA's multiplier needs dS itself first
          const bool raw = c.bias || c.mult;
          const T fold = raw ? T(1) : c.scale;
          for (int64_t r = 0; r < rows; ++r) {
            const T d = D[n * L + i0 + r];
            T* ds = dS.get() + r * kBc;
            const T* pr = P.get() + r * kBc;
            if (c.dropout())
              for (int64_t j = 0; j < cols; ++j) ds[j] *= c.drop_factor(n, i0 + r, j0 + j);
            for (int64_t j = 0; j < cols; ++j) ds[j] = fold * pr[j] * (ds[j] - d);
          }
          if (dbias) {  // s += bias[idx]
            T* db = dbias + c.bias.offset(h, 0);
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t j = 0; j < cols; ++j) db[b1[r - j]] += dS[r * kBc + j];
          }
          if (c.mult) {  // s = relu(u) · mult[idx]:  dmult[idx] += dS · relu(u),  du = dS · mult · [u > 0]
            T* dm = dmult ? dmult + c.mult.offset(h, 0) : nullptr;
            const T* m = c.mult.at(h);
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t j = 0; j < cols; ++j) {
                const T u = U[r * kBc + j];
                T& ds = dS[r * kBc + j];
                if (u > T(0)) {
                  if (dm) dm[b1[r - j]] += ds * u;
                  ds *= m[b1[r - j]];
                } else {
                  ds = T(0);
                }
              }
          }
          if (raw)  // the products q·k, qp·Rk, k·Rq were scaled
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t j = 0; j < cols; ++j) dS[r * kBc + j] *= c.scale;
          // dQ += dS K      (in the forward pass this was: s = scale · Q Kᵀ)
          gemm_rows(dS.get(), kBc, rows, cols, kj, E, E, dqc + (n * L + i0) * E, E, true, w, pack.get());
          // dK += dSᵀ Q
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < cols; ++j) T_[j * kBr + r] = dS[r * kBc + j];
          gemm_rows(T_.get(), kBr, cols, rows, qi, E, E, dk_acc.get(), E, true, w, pack.get());
          if (c.rk) {  // s += qp_i · Rk[idx]:  dqp_i += Σ_j dS_ij Rk[idx],  dRk[idx] += dS_ij qp_i
            const Span sp = span_of(b1, rows, cols);
            T* G = RelScratch<T>::sized(g1, rows * sp.count);
            T* Gt = RelScratch<T>::sized(g1t, sp.count * kBr);
            scatter_by_distance(dS.get(), b1, rows, cols, true, sp, G, Gt, kBr);
            T* dqp_target = c.p.rel.query_pos.defined() ? dqpc : dqc;
            T* scratch = RelScratch<T>::sized(x.pack, ceil_div(E, w) * w * std::max(kBr, sp.count));
            if (dqp_target)
              gemm_rows(G, sp.count, rows, sp.count, c.rk.at(h) + sp.lo * E, E, E, dqp_target + (n * L + i0) * E, E,
                        true, w, scratch);
            if (drk)
              gemm_rows(Gt, kBr, sp.count, rows, c.qp + (n * L + i0) * E, E, E, drk + c.rk.offset(h, sp.lo), E, true,
                        w, scratch);
          }
          if (c.rq) {  // s += k_j · Rq[idx]:  dk_j += Σ_i dS_ij Rq[idx],  dRq[idx] += dS_ij k_j
            const Span sp = span_of(b1, rows, cols);
            T* G = RelScratch<T>::sized(g2, cols * sp.count);
            T* Gt = RelScratch<T>::sized(g2t, sp.count * kBc);
            scatter_by_distance(dS.get(), b1, rows, cols, false, sp, G, Gt, kBc);
            T* scratch = RelScratch<T>::sized(x.pack, ceil_div(E, w) * w * std::max(kBc, sp.count));
            gemm_rows(G, sp.count, cols, sp.count, c.rq.at(h) + sp.lo * E, E, E, dk_acc.get(), E, true, w, scratch);
            if (drq) gemm_rows(Gt, kBc, sp.count, cols, kj, E, E, drq + c.rq.offset(h, sp.lo), E, true, w, scratch);
          }
        }
        std::copy(dk_acc.get(), dk_acc.get() + cols * E, dk + (n * S + j0) * E);
        std::copy(dv_acc.get(), dv_acc.get() + cols * Ev, dv + (n * S + j0) * Ev);
      }
    }
  });
  dq_rows.reduce();
  dqp_rows.reduce();
  for (int64_t chunk = 1; chunk < chunks; ++chunk)  // the chunks' table gradients into tg's
    for (int i = 0; i < 5; ++i) {
      const auto& part = table_extra[static_cast<size_t>(chunk)];
      if (!parts[i].grad || part.size() <= static_cast<size_t>(i) || part[i].empty()) continue;
      for (int64_t e = 0; e < parts[i].t.numel; ++e) parts[i].grad[e] += part[i][e];
    }
}

}  // namespace

Tensor sdpa_fused(const Problem& p) {
  const int64_t N = p.q.size(0), L = p.q.size(1), S = p.k.size(1), Ev = p.v.size(2);
  Tensor out = Tensor::empty({N, L, Ev}, p.q.dtype());
  Tensor lse = Tensor::empty({N, L}, p.q.dtype());
  dispatch_float(p.q.dtype(), "scaled_dot_product_attention", [&](auto tag) {
    using T = decltype(tag);
    const Ctx<T> c(p);
    const Packed<T> kT = pack_blocks(p.k.data<T>(), N, S, c.E, kBc, c.w, c.scale);
    forward(c, kT, out.data<T>(), lse.data<T>());
  });
  const Relative& rel = p.rel;
  const TensorList inputs = {p.q, p.k, p.v, rel.bias, rel.mult, rel.rel_key, rel.rel_query, rel.rel_value,
                             rel.query_pos};
  if (any_requires_grad(inputs)) {
    Problem pb = p;  // the options, the mask and the tables; q, k, v are saved (version-checked) below
    pb.q = pb.k = pb.v = Tensor();
    attach(out, "ScaledDotProductFlashAttentionForCpuBackward0", inputs,
           [pb = std::move(pb), sq = save(p.q), sk = save(p.k), sv = save(p.v), so = save(out),
            sl = save(lse)](const Tensor& g_) -> TensorList {
             Problem pr = pb;
             pr.q = sq.unpack();
             pr.k = sk.unpack();
             pr.v = sv.unpack();
             const Tensor o = so.unpack(), l = sl.unpack(), g = contiguous_copy_if_needed(g_);
             Tensor dq = Tensor::empty(pr.q.shape(), g.dtype()), dk = Tensor::empty(pr.k.shape(), g.dtype()),
                    dv = Tensor::empty(pr.v.shape(), g.dtype());
             const Relative& r = pr.rel;
             auto like = [&](const Tensor& t) {  // a gradient for each table that wants one
               return t.defined() && t.requires_grad() ? Tensor::empty(t.shape(), g.dtype()) : Tensor();
             };
             Tensor dbias = like(r.bias), dmult = like(r.mult), drk = like(r.rel_key), drq = like(r.rel_query),
                    drv = like(r.rel_value), dqp = like(r.query_pos);
             dispatch_float(g.dtype(), "scaled_dot_product_attention_backward", [&](auto tag) {
               using T = decltype(tag);
               const Ctx<T> c(pr);
               auto ptr = [](Tensor& t) { return t.defined() ? t.data<T>() : nullptr; };
               const TableGrads<T> tg{ptr(dbias), ptr(dmult), ptr(drk), ptr(drq), ptr(drv), ptr(dqp)};
               backward(c, o.data<T>(), l.data<T>(), g.data<T>(), dq.data<T>(), dk.data<T>(), dv.data<T>(), tg);
             });
             return {dq, dk, dv, dbias, dmult, drk, drq, drv, dqp};
           });
  }
  return out;
}

}  // namespace seqlab::attention_detail
