// One recurrent layer over a whole (packed) sequence, both directions, as one autograd node:
// the fused forward and its hand-written backward through time (equations in ops/rnn.hpp).
//
// Layout. Rows are packed time-major, as in a PackedSequence: step t owns rows
// [offset_t, offset_t + batch_sizes[t]) and batch_sizes decrease, so the sequences still running
// at step t are always the first batch_sizes[t] rows of the state. A dense (T, B, I) input is
// the case batch_sizes = (B, …, B). The forward direction walks t = 0…T-1 (a finished row keeps
// its state, which is its h_n); the reverse one walks t = T-1…0 (a row joins, from h0, at its
// last step), so each sequence's states are taken at its true end and padding never enters.
//
// Work per direction: one GEMM for the input projection of all steps (W_ih x + biases, N×GH),
// then per step one GEMM for the recurrence, accumulated into that step's gate rows, and one
// fused pass over the gates (σ/tanh through the SIMD kernels, the cell update, the output). The
// backward runs the steps in reverse with one GEMM per step (dh_{t-1} = dG_t W_hh) and leaves
// the weight gradients to three GEMMs over all steps at the end: dW_ih = dGᵀX, dW_hh = dGᵀH_prev,
// dX = dG W_ih.
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "blas.hpp"
#include "kernel_utils.hpp"
#include "simd/panel_gemm.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/rnn.hpp"

namespace seqlab {

namespace {

using simd::VecOp;

// C = op(A) op(B) + beta C (gemm accepts empty operands).
template <typename T>
void mm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T beta,
        T* C, int64_t ldc) {
  gemm<T>(ta, tb, M, N, K, T(1), A, lda, B, ldb, beta, C, ldc);
}

// dst[0..n) = src[0..n); n may be 0 with null pointers (empty batches).
template <typename T>
void copy_n(T* dst, const T* src, int64_t n) {
  if (n > 0) std::memcpy(dst, src, sizeof(T) * static_cast<size_t>(n));
}

// A weight packed once per call for the steps' small products (simd/panel_gemm.hpp): OpenBLAS
// would pack it again at every step, and its split of a batch-sized product over threads scales
// poorly; here each step's product is split over the pool by column panels.
// B(k, n) = src[k·stride_k + n·stride_n], K × N.
template <typename T>
struct StepWeight {
  StepWeight(const T* src, int64_t K_, int64_t N_, int64_t stride_k, int64_t stride_n)
      : K(K_), N(N_), w(simd::panel_width(std::is_same_v<T, double>)), P((N_ + w - 1) / w),
        panels(static_cast<size_t>(P * K_ * w)) {
    parallel_for(P, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, K * w)), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p)
        simd::pack_panels(src + p * w * stride_n, K, std::min(w, N - p * w), stride_k, stride_n, w,
                          panels.data() + p * K * w);
    });
  }
  // C (M × N) = or += A (M × K) · B
  void apply(const T* A, int64_t lda, int64_t M, T* C, int64_t ldc, bool accumulate) const {
    if (M == 0 || N == 0) return;
    const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, M * K * w));
    parallel_for(P, grain, [&](int64_t p0, int64_t p1) {
      simd::panel_gemm(A, lda, M, K, panels.data(), N, p0, p1, C, ldc, accumulate);
    });
  }
  int64_t K, N, w, P;
  std::vector<T> panels;
};

// Split the rows of a step over the pool when the step is large enough to pay for it.
void for_rows(int64_t rows, int64_t row_size, const std::function<void(int64_t, int64_t)>& f) {
  parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, row_size)), f);
}

// Shapes of one layer.
struct Dims {
  RnnMode mode;
  int64_t N, T, B, I, H, Hout, G, D;  // rows, steps, batch, input, hidden, output, gates, directions
  bool proj;
  int64_t GH() const { return G * H; }
};

// Weights of one direction (pointers into contiguous tensors; null where absent).
template <typename T>
struct DirWeights {
  const T *w_ih, *w_hh, *b_ih, *b_hh, *w_hr;
};

// What a direction's forward keeps for its backward (undefined where the mode needs none).
struct DirSaved {
  Tensor gates;  // (N, GH) activated gates: LSTM i,f,g,o; GRU r,z,n; RNN h (before the output copy)
  Tensor hprev;  // (N, H_out) the state each row's step started from
  Tensor cprev;  // LSTM (N, H)
  Tensor tanh_c;  // LSTM (N, H) tanh(c_t)
  Tensor r;      // LSTM with projection (N, H): o ⊙ tanh(c_t), the projection's input
  Tensor ghn;    // GRU (N, H): W_hn h_{t-1} + b_hn
};

std::vector<int64_t> row_offsets(const std::vector<int64_t>& bs) {
  std::vector<int64_t> off(bs.size() + 1, 0);
  for (size_t t = 0; t < bs.size(); ++t) off[t + 1] = off[t] + bs[t];
  return off;
}

// ------------------------------------------------------------------ forward of one direction
template <typename T>
void forward_direction(const Dims& d, int64_t dir, const T* x, const std::vector<int64_t>& bs,
                       const std::vector<int64_t>& off, const DirWeights<T>& w, T* h, T* c, T* y, DirSaved& s,
                       bool save) {
  const int64_t N = d.N, H = d.H, Ho = d.Hout, GH = d.GH(), ldy = d.D * Ho;
  const bool reverse = dir == 1;
  const Dtype dt = dtype_of<T>();

  // The recurrent weights, packed once for all steps: G_t += h W_hhᵀ, h = r W_hrᵀ.
  const StepWeight<T> whh(w.w_hh, Ho, GH, 1, Ho);
  const std::unique_ptr<StepWeight<T>> whr(d.proj ? new StepWeight<T>(w.w_hr, H, Ho, 1, H) : nullptr);

  // Input projection of every step, with the biases that add to it: G = X W_ihᵀ + b_ih (+ b_hh).
  s.gates = Tensor::empty({N, GH}, dt);
  T* G = s.gates.data<T>();
  mm<T>(false, true, N, GH, d.I, x, d.I, w.w_ih, d.I, T(0), G, GH);
  if (w.b_ih) {
    std::vector<T> bias(w.b_ih, w.b_ih + GH);
    if (d.mode != RnnMode::Gru)
      for (int64_t j = 0; j < GH; ++j) bias[j] += w.b_hh[j];
    for_rows(N, GH, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) simd::binary(simd::BinOp::Add, G + r * GH, bias.data(), false, T(1), G + r * GH, GH);
    });
  }
  T* hprev = nullptr;
  if (save) {
    s.hprev = Tensor::empty({N, Ho}, dt);
    hprev = s.hprev.data<T>();
  }
  T *cprev = nullptr, *tanh_c = nullptr, *R = nullptr, *ghn = nullptr;
  if (d.mode == RnnMode::Lstm) {
    if (save) {
      s.cprev = Tensor::empty({N, H}, dt);
      cprev = s.cprev.data<T>();
      s.tanh_c = Tensor::empty({N, H}, dt);
      tanh_c = s.tanh_c.data<T>();
    }
    if (d.proj) {
      s.r = Tensor::empty({save ? N : d.B, H}, dt);
      R = s.r.data<T>();
    }
  }
  std::vector<T> gh_buf;
  if (d.mode == RnnMode::Gru) {
    gh_buf.resize(static_cast<size_t>(d.B * GH));
    if (save) {
      s.ghn = Tensor::empty({N, H}, dt);
      ghn = s.ghn.data<T>();
    }
  }

  for (int64_t k = 0; k < d.T; ++k) {
    const int64_t t = reverse ? d.T - 1 - k : k;
    const int64_t b = bs[t], o = off[t];
    T* Gt = G + o * GH;
    // The state this step starts from: kept per row for the backward, read by the GEMM.
    const T* hp = h;
    if (save) {
      copy_n(hprev + o * Ho, h, b * Ho);
      hp = hprev + o * Ho;
    }
    T* yt = y + o * ldy + dir * Ho;
    const int64_t srow = save ? o : 0;  // where this step's saved rows go (r)

    switch (d.mode) {
      case RnnMode::RnnTanh:
      case RnnMode::RnnRelu: {
        whh.apply(hp, Ho, b, Gt, GH, true);
        const VecOp op = d.mode == RnnMode::RnnTanh ? VecOp::Tanh : VecOp::Relu;
        simd::unary(op, Gt, Gt, b * H);
        copy_n(h, Gt, b * H);
        for (int64_t r = 0; r < b; ++r) copy_n(yt + r * ldy, Gt + r * H, H);
        break;
      }
      case RnnMode::Lstm: {
        whh.apply(hp, Ho, b, Gt, GH, true);
        T* out = d.proj ? R + srow * H : h;  // o ⊙ tanh(c_t) goes to the projection or is h_t
        for_rows(b, GH, [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            T* g = Gt + r * GH;
            simd::unary(VecOp::Sigmoid, g, g, 2 * H);          // i, f
            simd::unary(VecOp::Tanh, g + 2 * H, g + 2 * H, H);  // g
            simd::unary(VecOp::Sigmoid, g + 3 * H, g + 3 * H, H);  // o
            T* cr = c + r * H;
            if (cprev) copy_n(cprev + (o + r) * H, cr, H);
            for (int64_t j = 0; j < H; ++j) cr[j] = g[H + j] * cr[j] + g[j] * g[2 * H + j];  // c = f c + i g
            // h = o tanh(c); tanh(c) is kept for the backward when it will run
            T* hr = out + r * H;
            T* th = tanh_c ? tanh_c + (o + r) * H : hr;
            simd::unary(VecOp::Tanh, cr, th, H);
            simd::binary(simd::BinOp::Mul, th, g + 3 * H, false, T(1), hr, H);
          }
        });
        if (d.proj) whr->apply(out, H, b, h, Ho, false);  // h = W_hr (o tanh c)
        for (int64_t r = 0; r < b; ++r) copy_n(yt + r * ldy, h + r * Ho, Ho);
        break;
      }
      case RnnMode::Gru: {
        T* gh = gh_buf.data();
        whh.apply(hp, Ho, b, gh, GH, false);
        T* ghn_t = ghn ? ghn + o * H : nullptr;
        for_rows(b, GH, [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            T* g = Gt + r * GH;
            T* q = gh + r * GH;
            if (w.b_hh)
              for (int64_t j = 0; j < GH; ++j) q[j] += w.b_hh[j];
            for (int64_t j = 0; j < 2 * H; ++j) g[j] += q[j];
            simd::unary(VecOp::Sigmoid, g, g, 2 * H);  // r, z
            for (int64_t j = 0; j < H; ++j) g[2 * H + j] += g[j] * q[2 * H + j];
            simd::unary(VecOp::Tanh, g + 2 * H, g + 2 * H, H);  // n = tanh(x_n + r (W_hn h + b_hn))
            if (ghn_t) copy_n(ghn_t + r * H, q + 2 * H, H);
            T* hr = h + r * H;
            T* yr = yt + r * ldy;
            for (int64_t j = 0; j < H; ++j) {
              const T z = g[H + j];
              hr[j] = (T(1) - z) * g[2 * H + j] + z * hr[j];  // h = (1 - z) n + z h
              yr[j] = hr[j];
            }
          }
        });
        break;
      }
    }
  }
}

// ------------------------------------------------------------------ backward of one direction
// dy: (N, D·H_out) or null; dh, dc: this direction's dh_n, dc_n on entry, dh0, dc0 on exit.
// Writes dx (accumulating when accumulate_dx) and the weight gradients (null = not wanted).
template <typename T>
void backward_direction(const Dims& d, int64_t dir, const T* x, const std::vector<int64_t>& bs,
                        const std::vector<int64_t>& off, const DirWeights<T>& w, const DirSaved& s, const T* dy, T* dh,
                        T* dc, T* dx, bool accumulate_dx, T* dw_ih, T* dw_hh, T* db_ih, T* db_hh, T* dw_hr,
                        double* norms) {
  const int64_t N = d.N, H = d.H, Ho = d.Hout, GH = d.GH(), ldy = d.D * Ho;
  const bool reverse = dir == 1;
  const T* G = s.gates.data<T>();
  const T* hprev = s.hprev.data<T>();
  // The recurrent weights as the steps' backward reads them: dh_{t-1} = dG W_hh, dr = dh W_hr.
  const StepWeight<T> whh(w.w_hh, GH, Ho, Ho, 1);
  const std::unique_ptr<StepWeight<T>> whr(d.proj ? new StepWeight<T>(w.w_hr, Ho, H, H, 1) : nullptr);
  // Every row of these is written by its step before it is read (Tensor::empty does not zero).
  const Dtype dt = dtype_of<T>();
  const Tensor dG = Tensor::empty({N, GH}, dt);                                  // ∂L/∂ pre-activation gates
  const Tensor dGh = d.mode == RnnMode::Gru ? Tensor::empty({N, GH}, dt) : dG;  // GRU: ∂L/∂(W_hh h + b_hh)
  const Tensor dH = d.proj ? Tensor::empty({N, Ho}, dt) : Tensor();  // with projection: ∂L/∂h_t, for dW_hr
  const Tensor dr = d.proj ? Tensor::empty({d.B, H}, dt) : Tensor();

  for (int64_t k = 0; k < d.T; ++k) {
    const int64_t t = reverse ? k : d.T - 1 - k;  // the forward's steps in reverse
    const int64_t b = bs[t], o = off[t];
    // dh_t = ∂L/∂output_t + the gradient from step t+1 (already in dh).
    if (dy)
      for (int64_t r = 0; r < b; ++r) {
        const T* g = dy + (o + r) * ldy + dir * Ho;
        T* hr = dh + r * Ho;
        for (int64_t j = 0; j < Ho; ++j) hr[j] += g[j];
      }
    if (norms) {
      double sq = 0;
      for (int64_t i = 0; i < b * Ho; ++i) sq += static_cast<double>(dh[i]) * static_cast<double>(dh[i]);
      norms[t] = std::sqrt(sq);
    }
    T* dGt = dG.data<T>() + o * GH;
    const T* Gt = G + o * GH;
    switch (d.mode) {
      case RnnMode::RnnTanh:
      case RnnMode::RnnRelu: {
        const bool tanh_mode = d.mode == RnnMode::RnnTanh;
        for (int64_t i = 0; i < b * H; ++i) {
          const T hv = Gt[i];
          dGt[i] = tanh_mode ? dh[i] * (T(1) - hv * hv) : (hv > T(0) ? dh[i] : T(0));
        }
        whh.apply(dGt, GH, b, dh, Ho, false);  // dh_{t-1} = dG W_hh
        break;
      }
      case RnnMode::Lstm: {
        const T* dout = dh;  // ∂L/∂(o tanh c)
        if (d.proj) {
          copy_n(dH.data<T>() + o * Ho, dh, b * Ho);
          whr->apply(dh, Ho, b, dr.data<T>(), H, false);  // ∂L/∂r = dh W_hr
          dout = dr.data<T>();
        }
        const T* cprev = s.cprev.data<T>() + o * H;
        const T* tc = s.tanh_c.data<T>() + o * H;
        for_rows(b, GH, [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const T* g = Gt + r * GH;
            T* dg = dGt + r * GH;
            const T* dor = dout + r * (d.proj ? H : Ho);
            T* dcr = dc + r * H;
            const T* cp = cprev + r * H;
            for (int64_t j = 0; j < H; ++j) {
              const T i = g[j], f = g[H + j], gg = g[2 * H + j], og = g[3 * H + j], th = tc[r * H + j];
              const T dct = dcr[j] + dor[j] * og * (T(1) - th * th);  // ∂L/∂c_t
              dg[j] = dct * gg * i * (T(1) - i);                       // through i = σ(·)
              dg[H + j] = dct * cp[j] * f * (T(1) - f);                // through f
              dg[2 * H + j] = dct * i * (T(1) - gg * gg);              // through g = tanh(·)
              dg[3 * H + j] = dor[j] * th * og * (T(1) - og);          // through o
              dcr[j] = dct * f;                                        // ∂L/∂c_{t-1}
            }
          }
        });
        whh.apply(dGt, GH, b, dh, Ho, false);
        break;
      }
      case RnnMode::Gru: {
        T* dGht = dGh.data<T>() + o * GH;
        const T* hp = hprev + o * Ho;
        const T* ghn = s.ghn.data<T>() + o * H;
        for_rows(b, GH, [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const T* g = Gt + r * GH;
            T* dg = dGt + r * GH;
            T* dq = dGht + r * GH;
            T* dhr = dh + r * H;
            for (int64_t j = 0; j < H; ++j) {
              const T rg = g[j], z = g[H + j], n = g[2 * H + j], dht = dhr[j];
              const T dN = dht * (T(1) - z) * (T(1) - n * n);                      // through n = tanh(·)
              const T dR = dN * ghn[r * H + j] * rg * (T(1) - rg);                 // through r
              const T dZ = dht * (hp[r * H + j] - n) * z * (T(1) - z);             // through z
              dg[j] = dq[j] = dR;
              dg[H + j] = dq[H + j] = dZ;
              dg[2 * H + j] = dN;
              dq[2 * H + j] = dN * rg;
              dhr[j] = dht * z;  // the direct path; the GEMM below adds dGh W_hh
            }
          }
        });
        whh.apply(dGht, GH, b, dh, Ho, true);
        break;
      }
    }
  }

  // The weight and input gradients, each one GEMM (or a column sum) over all rows.
  const T* dGin = dG.data<T>();
  const T* dGrec = dGh.data<T>();
  if (dx) mm<T>(false, false, N, d.I, GH, dGin, GH, w.w_ih, d.I, accumulate_dx ? T(1) : T(0), dx, d.I);
  if (dw_ih) mm<T>(true, false, GH, d.I, N, dGin, GH, x, d.I, T(0), dw_ih, d.I);
  if (dw_hh) mm<T>(true, false, GH, Ho, N, dGrec, GH, hprev, Ho, T(0), dw_hh, Ho);
  if (db_ih) copy_n(db_ih, sum(dG, {0}).data<T>(), GH);  // column sums, accumulated in double for float
  if (db_hh) copy_n(db_hh, sum(dGh, {0}).data<T>(), GH);
  if (dw_hr) mm<T>(true, false, Ho, H, N, dH.data<T>(), Ho, s.r.data<T>(), H, T(0), dw_hr, H);
}

// The weights of direction `dir` in the layer's list (w_ih, w_hh, [b_ih, b_hh], [w_hr]).
struct WeightSlots {
  int64_t per_dir, ih, hh, bih, bhh, hr;  // -1 where absent
};
WeightSlots weight_slots(bool has_biases, bool proj) {
  WeightSlots s{2 + (has_biases ? 2 : 0) + (proj ? 1 : 0), 0, 1, -1, -1, -1};
  if (has_biases) s.bih = 2, s.bhh = 3;
  if (proj) s.hr = has_biases ? 4 : 2;
  return s;
}

template <typename T>
DirWeights<T> dir_weights(const TensorList& w, const WeightSlots& sl, int64_t dir) {
  const int64_t base = dir * sl.per_dir;
  auto p = [&](int64_t slot) -> const T* { return slot < 0 ? nullptr : w[base + slot].data<T>(); };
  return {p(sl.ih), p(sl.hh), p(sl.bih), p(sl.bhh), p(sl.hr)};
}

}  // namespace

RnnResult rnn_layer(RnnMode mode, const Tensor& x_in, const std::vector<int64_t>& batch_sizes, const Tensor& h0,
                    const Tensor& c0, const TensorList& weights_in, bool has_biases, int64_t proj_size,
                    const Tensor& grad_norms, int64_t grad_norms_row) {
  const bool lstm = mode == RnnMode::Lstm;
  const bool proj = lstm && proj_size > 0;
  const WeightSlots sl = weight_slots(has_biases, proj);
  const int64_t D = static_cast<int64_t>(weights_in.size()) / sl.per_dir;
  SEQLAB_CHECK(D == 1 || D == 2, rnn_mode_name(mode), ": expected ", sl.per_dir, " or ", 2 * sl.per_dir,
               " weights for a layer, got ", weights_in.size());
  Dims d{};
  d.mode = mode;
  d.G = rnn_gate_count(mode);
  d.N = x_in.shape()[0];
  d.I = x_in.shape()[1];
  d.T = static_cast<int64_t>(batch_sizes.size());
  d.B = h0.shape()[1];
  d.H = weights_in[sl.ih].shape()[0] / d.G;
  d.Hout = proj ? proj_size : d.H;
  d.D = D;
  d.proj = proj;

  // The kernels read contiguous memory; copies here are outside the graph (the node's
  // inputs stay the caller's tensors, so gradients reach them).
  const Tensor x = contiguous_copy_if_needed(x_in);
  TensorList w;
  for (const Tensor& t : weights_in) w.push_back(contiguous_copy_if_needed(t));
  const Dtype dt = x.dtype();
  const std::vector<int64_t> off = row_offsets(batch_sizes);

  Tensor y = Tensor::empty({d.N, D * d.Hout}, dt);
  Tensor h_n = Tensor::empty({D, d.B, d.Hout}, dt);
  Tensor c_n = lstm ? Tensor::empty({D, d.B, d.H}, dt) : Tensor();
  TensorList node_inputs{x_in, h0, c0};
  for (const Tensor& t : weights_in) node_inputs.push_back(t);
  const bool keep = any_requires_grad(node_inputs);  // save what the backward needs
  auto saved = std::make_shared<std::vector<DirSaved>>(D);

  dispatch_float(dt, rnn_mode_name(mode), [&](auto tag) {
    using T = decltype(tag);
    const Tensor h0c = contiguous_copy_if_needed(h0);
    copy_n(h_n.data<T>(), h0c.data<T>(), D * d.B * d.Hout);
    if (lstm) {
      const Tensor c0c = contiguous_copy_if_needed(c0);
      copy_n(c_n.data<T>(), c0c.data<T>(), D * d.B * d.H);
    }
    for (int64_t dir = 0; dir < D; ++dir)
      forward_direction<T>(d, dir, x.data<T>(), batch_sizes, off, dir_weights<T>(w, sl, dir),
                           h_n.data<T>() + dir * d.B * d.Hout, lstm ? c_n.data<T>() + dir * d.B * d.H : nullptr,
                           y.data<T>(), (*saved)[dir], keep);
  });

  RnnResult res{y, h_n, c_n};
  if (!keep) return res;

  TensorList outs{y, h_n};
  if (lstm) outs.push_back(c_n);
  const bool need_x = x_in.requires_grad();
  const bool need_h0 = h0.requires_grad(), need_c0 = c0.defined() && c0.requires_grad();
  std::vector<bool> need_w;
  for (const Tensor& t : weights_in) need_w.push_back(t.requires_grad());
  const int64_t norms_offset = grad_norms.defined() ? grad_norms_row * d.T : -1;
  attach_multi(outs, lstm ? "LstmBackward" : mode == RnnMode::Gru ? "GruBackward" : "RnnBackward", node_inputs,
               [d, sl, batch_sizes, off, saved, sx = save(x), sw = [&] {
                  std::vector<SavedTensor> v;
                  for (const Tensor& t : w) v.push_back(save(t));
                  return v;
                }(), need_x, need_h0, need_c0, need_w, lstm, grad_norms, norms_offset](const TensorList& g) -> TensorList {
                 const Tensor x = sx.unpack();
                 TensorList w;
                 for (const SavedTensor& s : sw) w.push_back(s.unpack());
                 const Dtype dt = x.dtype();
                 // Incoming gradients, contiguous; zeros where none flowed.
                 const Tensor dy = g[0].defined() ? contiguous_copy_if_needed(g[0]) : Tensor();
                 Tensor dh = Tensor::empty({d.D, d.B, d.Hout}, dt), dc;
                 Tensor dx = need_x ? Tensor::empty({d.N, d.I}, dt) : Tensor();
                 TensorList dw(w.size());
                 for (size_t i = 0; i < w.size(); ++i)
                   if (need_w[i]) dw[i] = Tensor::empty(w[i].shape(), dt);
                 dispatch_float(dt, "rnn backward", [&](auto tag) {
                   using T = decltype(tag);
                   auto init = [&](Tensor& dst, const Tensor& src) {
                     if (src.defined())
                       copy_n(dst.data<T>(), contiguous_copy_if_needed(src).data<T>(), dst.numel());
                     else
                       std::fill_n(dst.data<T>(), dst.numel(), T(0));
                   };
                   init(dh, g[1]);
                   if (lstm) {
                     dc = Tensor::empty({d.D, d.B, d.H}, dt);
                     init(dc, g[2]);
                   }
                   auto ptr = [&](int64_t dir, int64_t slot) -> T* {
                     return slot < 0 || !dw[dir * sl.per_dir + slot].defined() ? nullptr
                                                                                : dw[dir * sl.per_dir + slot].data<T>();
                   };
                   for (int64_t dir = 0; dir < d.D; ++dir) {
                     double* norms = norms_offset >= 0 ? grad_norms.data<double>() + norms_offset + dir * d.T : nullptr;
                     backward_direction<T>(d, dir, x.data<T>(), batch_sizes, off, dir_weights<T>(w, sl, dir),
                                           (*saved)[dir], dy.defined() ? dy.data<T>() : nullptr,
                                           dh.data<T>() + dir * d.B * d.Hout,
                                           lstm ? dc.data<T>() + dir * d.B * d.H : nullptr,
                                           need_x ? dx.data<T>() : nullptr, dir > 0, ptr(dir, sl.ih), ptr(dir, sl.hh),
                                           ptr(dir, sl.bih), ptr(dir, sl.bhh), ptr(dir, sl.hr), norms);
                   }
                 });
                 TensorList grads{dx, need_h0 ? dh : Tensor(), need_c0 ? dc : Tensor()};
                 for (const Tensor& t : dw) grads.push_back(t);
                 return grads;
               });
  return res;
}

}  // namespace seqlab
