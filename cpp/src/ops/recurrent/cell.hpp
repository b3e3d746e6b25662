// Private to cpp/src/ops/rnn_layer.cpp and cpp/src/ops/recurrent/: the fused recurrent layer's
// registry of cells. A recurrent mode is one file in this folder that states its equations and
// registers a CellDescription: its gate count, whether it carries a cell state, where its biases
// go, and its kernels — a forward step and a backward step (one time step of every running row,
// with that step's GEMM) and what the forward saves for the backward. The direction loops below
// (the input projection of all steps, the walk over time, the weight gradients over all rows) are
// shared: they read the description, not the mode.
//   const CellRegistration kGru{{{RnnMode::Gru, "GRU", "GRU", 3, false}, "GruBackward", false, true,
//                                cell_kernels<GruCell>()}};
// Layout and the equations of each mode: ops/rnn.hpp; tests: tests/test_rnn.py, cpp/tests/test_rnn.cpp.
#pragma once
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "blas.hpp"
#include "kernel_utils.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/rnn.hpp"
#include "simd/panel_gemm.hpp"

namespace seqlab::recurrent {

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
inline void for_rows(int64_t rows, int64_t row_size, const std::function<void(int64_t, int64_t)>& f) {
  parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, row_size)), f);
}

struct CellDescription;

// Shapes of one layer.
struct Dims {
  const CellDescription* cell;
  int64_t N, T, B, I, H, Hout, G, D;  // rows, steps, batch, input, hidden, output, gates, directions
  bool proj;                          // h_t = W_hr (cell output): LSTM's proj_size
  int64_t GH() const { return G * H; }
};

// Weights of one direction (pointers into contiguous tensors; null where absent).
template <typename T>
struct DirWeights {
  const T *w_ih, *w_hh, *b_ih, *b_hh, *w_hr;
};

// What a direction's forward keeps for its backward: the shared part, and the tensors a cell
// adds (each cell's constructor says which; undefined where the mode needs none).
struct DirSaved {
  Tensor gates;   // (N, GH) the activated gates (the cell's layout), after the step
  Tensor hprev;   // (N, H_out) the state each row's step started from
  Tensor r;       // with a projection (N, H): the cell's output, the projection's input
  Tensor extra[2];  // the cell's own: LSTM c_{t-1}, tanh(c_t); GRU W_hn h_{t-1} + b_hn
};

// One forward step: rows [o, o + b) of the packed sequence (the b sequences still running).
template <typename T>
struct ForwardStep {
  const Dims& d;
  const DirWeights<T>& w;
  const StepWeight<T>& whh;  // W_hhᵀ packed: G += h W_hhᵀ
  T* G;                      // (b, GH) the input projection (+ biases) on entry; the activated gates on exit
  const T* hp;               // (b, H_out) h_{t-1}, as the GEMM reads it
  T* c;                      // (B, H) the running cell state, for a cell that has one
  T* out;                    // (b, H) the cell's output: the running state h (h_{t-1} on entry), or the
                             // projection's input
  int64_t b, o;
};

// One backward step, the forward's reversed.
template <typename T>
struct BackwardStep {
  const Dims& d;
  const StepWeight<T>& whh;  // W_hh packed: dh_{t-1} = dG W_hh
  const T* G;                // (b, GH) the gates the forward saved
  T* dG;                     // (b, GH) written: ∂L/∂ the pre-activation gates
  T* dGh;                    // (b, GH) written by a cell with recurrent_grad_apart: ∂L/∂(W_hh h + b_hh)
  const T* hp;               // (b, H_out) h_{t-1}
  const T* dout;             // (b, ldo) ∂L/∂ the cell's output (dh_t, or through the projection)
  int64_t ldo;
  T* dh;                     // (B, H_out) the cell writes ∂L/∂h_{t-1}
  T* dc;                     // (B, H) ∂L/∂c_t on entry, ∂L/∂c_{t-1} on exit, for a cell that has one
  int64_t b, o;
};

template <typename T>
using ForwardKernel = void (*)(const Dims&, int64_t dir, const T* x, const std::vector<int64_t>& bs,
                               const std::vector<int64_t>& off, const DirWeights<T>& w, T* h, T* c, T* y,
                               DirSaved& s, bool save);
template <typename T>
using BackwardKernel = void (*)(const Dims&, int64_t dir, const T* x, const std::vector<int64_t>& bs,
                                const std::vector<int64_t>& off, const DirWeights<T>& w, const DirSaved& s,
                                const T* dy, T* dh, T* dc, T* dx, bool accumulate_dx, T* dw_ih, T* dw_hh, T* db_ih,
                                T* db_hh, T* dw_hr, double* norms);

struct CellKernels {
  ForwardKernel<float> forward_f32;
  ForwardKernel<double> forward_f64;
  BackwardKernel<float> backward_f32;
  BackwardKernel<double> backward_f64;
  template <typename T>
  ForwardKernel<T> forward() const {
    if constexpr (std::is_same_v<T, float>) return forward_f32; else return forward_f64;
  }
  template <typename T>
  BackwardKernel<T> backward() const {
    if constexpr (std::is_same_v<T, float>) return backward_f32; else return backward_f64;
  }
};

// What the layer, the stack and the bindings know of a mode.
struct CellDescription {
  RnnCellInfo info;         // mode, torch's names, gate count, cell state (ops/rnn.hpp)
  const char* backward_name;  // the autograd node: "LstmBackward", ...
  bool b_hh_in_projection;  // b_hh adds to the input projection (not GRU's: b_hn sits inside r ⊙ (·))
  bool recurrent_grad_apart;  // dW_hh reads its own gate gradients, not the input's (GRU)
  CellKernels kernels;
};

struct CellRegistration {
  CellRegistration(CellDescription description);
};
const CellDescription& cell_description(RnnMode mode);

// ------------------------------------------------------------------ forward of one direction
// Cell<T>: constructed once per direction (it allocates what it saves: DirSaved::extra), then
// forward(step) for every step.
template <typename T, typename Cell>
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
    if (d.cell->b_hh_in_projection)
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
  T* R = nullptr;
  if (d.proj) {
    s.r = Tensor::empty({save ? N : d.B, H}, dt);
    R = s.r.data<T>();
  }
  Cell cell(d, s, save);

  for (int64_t k = 0; k < d.T; ++k) {
    const int64_t t = reverse ? d.T - 1 - k : k;
    const int64_t b = bs[t], o = off[t];
    // The state this step starts from: kept per row for the backward, read by the GEMM.
    const T* hp = h;
    if (save) {
      copy_n(hprev + o * Ho, h, b * Ho);
      hp = hprev + o * Ho;
    }
    T* out = d.proj ? R + (save ? o : 0) * H : h;
    cell.forward(ForwardStep<T>{d, w, whh, G + o * GH, hp, c, out, b, o});
    if (d.proj) whr->apply(out, H, b, h, Ho, false);  // h = W_hr (cell output)
    T* yt = y + o * ldy + dir * Ho;
    for (int64_t r = 0; r < b; ++r) copy_n(yt + r * ldy, h + r * Ho, Ho);
  }
}

// ------------------------------------------------------------------ backward of one direction
// dy: (N, D·H_out) or null; dh, dc: this direction's dh_n, dc_n on entry, dh0, dc0 on exit.
// Writes dx (accumulating when accumulate_dx) and the weight gradients (null = not wanted).
// Cell<T>::backward(step, saved) for every step, in reverse.
template <typename T, typename Cell>
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
  const Tensor dG = Tensor::empty({N, GH}, dt);  // ∂L/∂ pre-activation gates
  const Tensor dGh = d.cell->recurrent_grad_apart ? Tensor::empty({N, GH}, dt) : dG;
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
    // in the forward: h = W_hr (cell output), so ∂L/∂(cell output) = dh W_hr
    const T* dout = dh;
    if (d.proj) {
      copy_n(dH.data<T>() + o * Ho, dh, b * Ho);
      whr->apply(dh, Ho, b, dr.data<T>(), H, false);
      dout = dr.data<T>();
    }
    Cell::backward(BackwardStep<T>{d, whh, G + o * GH, dG.data<T>() + o * GH, dGh.data<T>() + o * GH,
                                   hprev + o * Ho, dout, d.proj ? H : Ho, dh, dc, b, o},
                   s);
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

// The kernels of a cell template, for float and double.
template <template <typename> class Cell>
CellKernels cell_kernels() {
  return {&forward_direction<float, Cell<float>>, &forward_direction<double, Cell<double>>,
          &backward_direction<float, Cell<float>>, &backward_direction<double, Cell<double>>};
}

}  // namespace seqlab::recurrent
