// The LSTM cell (Hochreiter & Schmidhuber 1997, with the forget gate of Gers et al. 2000), torch's
// LSTM mode, gates in torch's order i, f, g, o:
//   i, f, g, o = σ, σ, tanh, σ of (W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)
//   c_t = f ⊙ c_{t-1} + i ⊙ g,   h_t = o ⊙ tanh(c_t)   (then W_hr h_t with proj_size, in the shared loop)
// Saves c_{t-1} and tanh(c_t) per row for the backward. Tests: tests/test_rnn.py, cpp/tests/test_rnn.cpp.
#include "cell.hpp"

namespace seqlab::recurrent {
namespace {

template <typename T>
struct LstmCell {
  T* cprev = nullptr;  // (N, H) c_{t-1} of every row, when saving
  T* tanh_c = nullptr;  // (N, H) tanh(c_t)

  LstmCell(const Dims& d, DirSaved& s, bool save) {
    if (!save) return;
    s.extra[0] = Tensor::empty({d.N, d.H}, dtype_of<T>());
    s.extra[1] = Tensor::empty({d.N, d.H}, dtype_of<T>());
    cprev = s.extra[0].data<T>();
    tanh_c = s.extra[1].data<T>();
  }

  void forward(const ForwardStep<T>& st) {
    const int64_t H = st.d.H, GH = st.d.GH(), o = st.o;
    st.whh.apply(st.hp, st.d.Hout, st.b, st.G, GH, true);
    for_rows(st.b, GH, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        T* g = st.G + r * GH;
        simd::unary(VecOp::Sigmoid, g, g, 2 * H);              // i, f
        simd::unary(VecOp::Tanh, g + 2 * H, g + 2 * H, H);      // g
        simd::unary(VecOp::Sigmoid, g + 3 * H, g + 3 * H, H);  // o
        T* cr = st.c + r * H;
        if (cprev) copy_n(cprev + (o + r) * H, cr, H);
        for (int64_t j = 0; j < H; ++j) cr[j] = g[H + j] * cr[j] + g[j] * g[2 * H + j];  // c = f c + i g
        // h = o tanh(c); tanh(c) is kept for the backward when it will run
        T* hr = st.out + r * H;
        T* th = tanh_c ? tanh_c + (o + r) * H : hr;
        simd::unary(VecOp::Tanh, cr, th, H);
        simd::binary(simd::BinOp::Mul, th, g + 3 * H, false, T(1), hr, H);
      }
    });
  }

  // dout = ∂L/∂(o ⊙ tanh c_t); dc = ∂L/∂c_t from step t+1 on entry.
  static void backward(const BackwardStep<T>& st, const DirSaved& s) {
    const int64_t H = st.d.H, GH = st.d.GH();
    const T* cprev = s.extra[0].data<T>() + st.o * H;
    const T* tc = s.extra[1].data<T>() + st.o * H;
    for_rows(st.b, GH, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* g = st.G + r * GH;
        T* dg = st.dG + r * GH;
        const T* dor = st.dout + r * st.ldo;
        T* dcr = st.dc + r * H;
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
    st.whh.apply(st.dG, GH, st.b, st.dh, st.d.Hout, false);  // dh_{t-1} = dG W_hh
  }
};

const CellRegistration kLstm{{{RnnMode::Lstm, "LSTM", "LSTM", 4, true}, "LstmBackward", true, false,
                              cell_kernels<LstmCell>()}};

}  // namespace
}  // namespace seqlab::recurrent
