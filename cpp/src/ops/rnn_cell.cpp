// The recurrent cells, one time step each, composed of ordinary ops (linear, σ, tanh, ⊙) so
// that their graph is the textbook one: for teaching, custom loops, and as the oracle of the
// fused layers (tests: the fused layer equals a loop of these). Equations in ops/rnn.hpp.
#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/rnn.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

RnnMode rnn_nonlinearity_mode(const std::string& nonlinearity) {
  SEQLAB_CHECK_VALUE(nonlinearity == "tanh" || nonlinearity == "relu", "Unknown nonlinearity '", nonlinearity,
                     "'. Select from 'tanh' or 'relu'.");
  return nonlinearity == "tanh" ? RnnMode::RnnTanh : RnnMode::RnnRelu;
}

void check_rnn_args(RnnMode mode, int64_t input_size, int64_t hidden_size, int64_t num_layers, double dropout,
                    int64_t proj_size) {
  SEQLAB_CHECK_VALUE(dropout >= 0 && dropout <= 1,
                     "dropout should be a number in range [0, 1] representing the probability of an element being "
                     "zeroed");
  SEQLAB_CHECK_VALUE(input_size >= 0, "input_size must be non-negative, got ", input_size);
  SEQLAB_CHECK_VALUE(hidden_size > 0, "hidden_size must be greater than zero");
  SEQLAB_CHECK_VALUE(num_layers > 0, "num_layers must be greater than zero");
  SEQLAB_CHECK_VALUE(proj_size >= 0, "proj_size should be a positive integer or zero to disable projections");
  SEQLAB_CHECK_VALUE(proj_size < hidden_size, "proj_size has to be smaller than hidden_size");
  SEQLAB_CHECK_VALUE(proj_size == 0 || mode == RnnMode::Lstm,
                     "proj_size argument is only supported for LSTM, not RNN or GRU");
}

namespace {

// A cell's operands, batched: input (B, I), states (B, H) (zeros when not given).
struct CellArgs {
  Tensor x, hx, cx;
  bool unbatched;
};

// torch's checks (RNNCell.forward and _VF's check_forward_input/check_forward_hidden), then a
// batch dim for unbatched (I) input.
CellArgs cell_args(const char* cell, const Tensor& input, const Tensor& hx, const Tensor& cx, const Tensor& w_ih,
                   const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, int64_t gates) {
  SEQLAB_CHECK_VALUE(input.dim() == 1 || input.dim() == 2, cell, ": Expected input to be 1D or 2D, got ", input.dim(),
                     "D instead");
  SEQLAB_CHECK(w_ih.dim() == 2 && w_hh.dim() == 2 && w_ih.shape()[0] == w_hh.shape()[0] &&
                   w_ih.shape()[0] == gates * w_hh.shape()[1],
               cell, ": weight_ih ", shape_str(w_ih.shape()), " and weight_hh ", shape_str(w_hh.shape()),
               " must be (", gates, "*hidden_size, input_size) and (", gates, "*hidden_size, hidden_size)");
  const int64_t H = w_hh.shape()[1];
  for (const Tensor* b : {&b_ih, &b_hh})
    SEQLAB_CHECK(!b->defined() || (b->dim() == 1 && b->shape()[0] == gates * H), cell, ": bias of shape ",
                 shape_str(b->shape()), " must be (", gates * H, ",)");
  for (const Tensor* t : {&input, &hx, &cx, &w_hh, &b_ih, &b_hh})
    SEQLAB_CHECK_TYPE(!t->defined() || t->dtype() == w_ih.dtype(), cell, ": expected all tensors of dtype ",
                      dtype_name(w_ih.dtype()), ", got ", dtype_name(t->dtype()));
  const bool unbatched = input.dim() == 1;
  const Tensor x = unbatched ? unsqueeze(input, 0) : input;
  SEQLAB_CHECK(x.shape()[1] == w_ih.shape()[1], "input has inconsistent input_size: got ", x.shape()[1], " expected ",
               w_ih.shape()[1]);
  const int64_t B = x.shape()[0];
  auto state = [&](const Tensor& s, const char* name) {
    if (!s.defined()) return zeros({B, H}, w_ih.dtype());
    SEQLAB_CHECK(s.dim() == input.dim(), cell, ": Expected ", name, " to be ", input.dim(), "D for ", input.dim(),
                 "D input, got ", s.dim(), "D");
    const Tensor s2 = unbatched ? unsqueeze(s, 0) : s;
    SEQLAB_CHECK(s2.shape()[0] == B, "Input batch size ", B, " doesn't match ", name, " batch size ", s2.shape()[0]);
    SEQLAB_CHECK(s2.shape()[1] == H, name, " has inconsistent hidden_size: got ", s2.shape()[1], ", expected ", H);
    return s2;
  };
  return {x, state(hx, "hidden0"), gates == 4 ? state(cx, "hidden1") : Tensor(), unbatched};
}

Tensor unbatch(const Tensor& t, bool unbatched) { return unbatched ? squeeze(t, 0) : t; }

// W_ih x + b_ih + W_hh h + b_hh
Tensor gate_sum(const CellArgs& a, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  return add(linear(a.x, w_ih, b_ih), linear(a.hx, w_hh, b_hh));
}

}  // namespace

// h' = tanh(W_ih x + b_ih + W_hh h + b_hh)
Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                     const Tensor& b_hh) {
  const CellArgs a = cell_args("RNNCell", input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh, 1);
  return unbatch(tanh(gate_sum(a, w_ih, w_hh, b_ih, b_hh)), a.unbatched);
}

// h' = relu(W_ih x + b_ih + W_hh h + b_hh)
Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                     const Tensor& b_hh) {
  const CellArgs a = cell_args("RNNCell", input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh, 1);
  return unbatch(relu(gate_sum(a, w_ih, w_hh, b_ih, b_hh)), a.unbatched);
}

// i, f, g, o = σ, σ, tanh, σ of the four row blocks of W_ih x + b_ih + W_hh h + b_hh;
// c' = f ⊙ c + i ⊙ g,   h' = o ⊙ tanh(c')
std::pair<Tensor, Tensor> lstm_cell(const Tensor& input, const Tensor& hx, const Tensor& cx, const Tensor& w_ih,
                                    const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  const CellArgs a = cell_args("LSTMCell", input, hx, cx, w_ih, w_hh, b_ih, b_hh, 4);
  const TensorList g = chunk(gate_sum(a, w_ih, w_hh, b_ih, b_hh), 4, 1);
  const Tensor i = sigmoid(g[0]), f = sigmoid(g[1]), cand = tanh(g[2]), o = sigmoid(g[3]);
  const Tensor c = add(mul(f, a.cx), mul(i, cand));
  const Tensor h = mul(o, tanh(c));
  return {unbatch(h, a.unbatched), unbatch(c, a.unbatched)};
}

// r = σ(x_r + h_r), z = σ(x_z + h_z), n = tanh(x_n + r ⊙ h_n) with x_* = W_i* x + b_i* and
// h_* = W_h* h + b_h*;  h' = (1 - z) ⊙ n + z ⊙ h = n + z ⊙ (h - n)
Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                const Tensor& b_hh) {
  const CellArgs a = cell_args("GRUCell", input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh, 3);
  const TensorList gi = chunk(linear(a.x, w_ih, b_ih), 3, 1);
  const TensorList gh = chunk(linear(a.hx, w_hh, b_hh), 3, 1);
  const Tensor r = sigmoid(add(gi[0], gh[0])), z = sigmoid(add(gi[1], gh[1]));
  const Tensor n = tanh(add(gi[2], mul(r, gh[2])));
  return unbatch(add(n, mul(z, sub(a.hx, n))), a.unbatched);
}

}  // namespace seqlab
