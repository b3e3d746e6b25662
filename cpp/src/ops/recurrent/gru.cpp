// The GRU cell (Cho et al. 2014), torch's GRU mode, gates in torch's order r, z, n:
//   r, z = σ(W_i{r,z} x_t + b_i{r,z} + W_h{r,z} h_{t-1} + b_h{r,z})
//   n = tanh(W_in x_t + b_in + r ⊙ (W_hn h_{t-1} + b_hn)),   h_t = (1 − z) ⊙ n + z ⊙ h_{t-1}
// b_hh stays out of the input projection (b_hn sits inside r ⊙ (·)), so the recurrent product
// has its own gradient: dW_hh reads ∂L/∂(W_hh h + b_hh), not the gates'. Saves W_hn h_{t-1} + b_hn.
// Tests: tests/test_rnn.py, cpp/tests/test_rnn.cpp.
#include "cell.hpp"

namespace seqlab::recurrent {
namespace {

template <typename T>
struct GruCell {
  std::vector<T> gh;    // (B, GH) this step's W_hh h_{t-1} + b_hh
  T* ghn = nullptr;     // (N, H) W_hn h_{t-1} + b_hn of every row, when saving

  GruCell(const Dims& d, DirSaved& s, bool save) : gh(static_cast<size_t>(d.B * d.GH())) {
    if (!save) return;
    s.extra[0] = Tensor::empty({d.N, d.H}, dtype_of<T>());
    ghn = s.extra[0].data<T>();
  }

  void forward(const ForwardStep<T>& st) {
    const int64_t H = st.d.H, GH = st.d.GH();
    st.whh.apply(st.hp, st.d.Hout, st.b, gh.data(), GH, false);
    T* ghn_t = ghn ? ghn + st.o * H : nullptr;
    for_rows(st.b, GH, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        T* g = st.G + r * GH;
        T* q = gh.data() + r * GH;
        if (st.w.b_hh)
          for (int64_t j = 0; j < GH; ++j) q[j] += st.w.b_hh[j];
        for (int64_t j = 0; j < 2 * H; ++j) g[j] += q[j];
        simd::unary(VecOp::Sigmoid, g, g, 2 * H);  // r, z
        for (int64_t j = 0; j < H; ++j) g[2 * H + j] += g[j] * q[2 * H + j];
        simd::unary(VecOp::Tanh, g + 2 * H, g + 2 * H, H);  // n = tanh(x_n + r (W_hn h + b_hn))
        if (ghn_t) copy_n(ghn_t + r * H, q + 2 * H, H);
        T* hr = st.out + r * H;
        for (int64_t j = 0; j < H; ++j) {
          const T z = g[H + j];
          hr[j] = (T(1) - z) * g[2 * H + j] + z * hr[j];  // h = (1 - z) n + z h
        }
      }
    });
  }

  // dout = dh_t (a GRU has no projection, so dout is dh itself: it is overwritten in place).
  static void backward(const BackwardStep<T>& st, const DirSaved& s) {
    const int64_t H = st.d.H, GH = st.d.GH();
    const T* ghn = s.extra[0].data<T>() + st.o * H;
    for_rows(st.b, GH, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* g = st.G + r * GH;
        T* dg = st.dG + r * GH;
        T* dq = st.dGh + r * GH;
        T* dhr = st.dh + r * H;
        for (int64_t j = 0; j < H; ++j) {
          const T rg = g[j], z = g[H + j], n = g[2 * H + j], dht = dhr[j];
          const T dN = dht * (T(1) - z) * (T(1) - n * n);                 // through n = tanh(·)
          const T dR = dN * ghn[r * H + j] * rg * (T(1) - rg);            // through r
          const T dZ = dht * (st.hp[r * H + j] - n) * z * (T(1) - z);     // through z
          dg[j] = dq[j] = dR;
          dg[H + j] = dq[H + j] = dZ;
          dg[2 * H + j] = dN;
          dq[2 * H + j] = dN * rg;
          dhr[j] = dht * z;  // the direct path; the GEMM below adds dGh W_hh
        }
      }
    });
    st.whh.apply(st.dGh, GH, st.b, st.dh, st.d.Hout, true);
  }
};

const CellRegistration kGru{{{RnnMode::Gru, "GRU", "GRU", 3, false}, "GruBackward", false, true,
                             cell_kernels<GruCell>()}};

}  // namespace
}  // namespace seqlab::recurrent
