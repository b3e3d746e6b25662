// The Elman RNN cell, torch's RNN_TANH and RNN_RELU modes (Elman 1990):
//   h_t = g(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh),   g = tanh or relu
// One gate; both biases add to the input projection. The forward saves nothing beyond the shared
// gates (which hold h_t = g(·)): g' is read back from the output, 1 − h² for tanh, [h > 0] for relu.
// Tests: tests/test_rnn.py (against torch.nn.RNN), cpp/tests/test_rnn.cpp.
#include "cell.hpp"

namespace seqlab::recurrent {
namespace {

template <bool kTanh>
struct Elman {
  template <typename T>
  struct Cell {
    Cell(const Dims&, DirSaved&, bool) {}

    void forward(const ForwardStep<T>& st) {
      const int64_t H = st.d.H;
      st.whh.apply(st.hp, st.d.Hout, st.b, st.G, st.d.GH(), true);  // G = W_ih x + b + W_hh h_{t-1}
      simd::unary(kTanh ? VecOp::Tanh : VecOp::Relu, st.G, st.G, st.b * H);  // h_t = g(G)
      copy_n(st.out, st.G, st.b * H);
    }

    // dG = dh_t ⊙ g'(·), with g' from h_t;   dh_{t-1} = dG W_hh
    static void backward(const BackwardStep<T>& st, const DirSaved&) {
      for (int64_t i = 0; i < st.b * st.d.H; ++i) {
        const T hv = st.G[i];
        st.dG[i] = kTanh ? st.dout[i] * (T(1) - hv * hv) : (hv > T(0) ? st.dout[i] : T(0));
      }
      st.whh.apply(st.dG, st.d.GH(), st.b, st.dh, st.d.Hout, false);
    }
  };
};

const CellRegistration kRnnTanh{{{RnnMode::RnnTanh, "RNN_TANH", "RNN", 1, false}, "RnnBackward", true, false,
                                 cell_kernels<Elman<true>::template Cell>()}};
const CellRegistration kRnnRelu{{{RnnMode::RnnRelu, "RNN_RELU", "RNN", 1, false}, "RnnBackward", true, false,
                                 cell_kernels<Elman<false>::template Cell>()}};

}  // namespace
}  // namespace seqlab::recurrent
