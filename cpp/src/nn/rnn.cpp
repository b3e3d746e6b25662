// The recurrent layers for C++ users; the Python twins are in python/seqlab/nn/rnn.py.
// Both register torch's parameters in torch's order and call the functionals of ops/rnn.hpp.
#include "seqlab/nn/rnn.hpp"

#include <cmath>
#include <sstream>

#include "seqlab/nn/init.hpp"

namespace seqlab::nn {

namespace {

const char* module_name(RnnMode mode) {
  switch (mode) {
    case RnnMode::Lstm: return "LSTM";
    case RnnMode::Gru: return "GRU";
    default: return "RNN";
  }
}

// torch.nn.RNNBase.reset_parameters / RNNCellBase.reset_parameters: every parameter, in
// registration order, ~ U(-1/√H, 1/√H).
void uniform_all(const std::vector<Tensor>& params, int64_t hidden_size) {
  const double stdv = hidden_size > 0 ? 1.0 / std::sqrt(static_cast<double>(hidden_size)) : 0.0;
  for (Tensor t : params) init::uniform_(t, -stdv, stdv);
}

std::string py_float(double v) {
  std::ostringstream o;
  o << v;
  std::string s = o.str();
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

// ------------------------------------------------------------------ RNN, LSTM, GRU
RNNBase::RNNBase(RnnMode mode_, int64_t input_size_, int64_t hidden_size_, int64_t num_layers_, bool bias_,
                 bool batch_first_, double dropout_, bool bidirectional_, int64_t proj_size_, Dtype dtype)
    : Module(module_name(mode_)), mode(mode_), input_size(input_size_), hidden_size(hidden_size_),
      num_layers(num_layers_), bias(bias_), batch_first(batch_first_), dropout(dropout_),
      bidirectional(bidirectional_), proj_size(proj_size_) {
  check_rnn_args(mode, input_size, hidden_size, num_layers, dropout, proj_size);
  const int64_t G = rnn_gate_count(mode), D = bidirectional ? 2 : 1;
  const int64_t real_hidden = proj_size > 0 ? proj_size : hidden_size;
  for (int64_t l = 0; l < num_layers; ++l)
    for (int64_t d = 0; d < D; ++d) {
      const std::string sfx = "_l" + std::to_string(l) + (d ? "_reverse" : "");
      const int64_t in = l == 0 ? input_size : real_hidden * D;
      flat_weights_.push_back(register_parameter("weight_ih" + sfx, Tensor::empty({G * hidden_size, in}, dtype)));
      flat_weights_.push_back(
          register_parameter("weight_hh" + sfx, Tensor::empty({G * hidden_size, real_hidden}, dtype)));
      if (bias) {
        flat_weights_.push_back(register_parameter("bias_ih" + sfx, Tensor::empty({G * hidden_size}, dtype)));
        flat_weights_.push_back(register_parameter("bias_hh" + sfx, Tensor::empty({G * hidden_size}, dtype)));
      }
      if (proj_size > 0)
        flat_weights_.push_back(register_parameter("weight_hr" + sfx, Tensor::empty({proj_size, hidden_size}, dtype)));
    }
  reset_parameters();
}

void RNNBase::reset_parameters() { uniform_all(parameters(false), hidden_size); }

RnnOptions RNNBase::options() const {
  RnnOptions o;
  o.mode = mode;
  o.num_layers = num_layers;
  o.has_biases = bias;
  o.batch_first = batch_first;
  o.dropout = dropout;
  o.train = is_training();
  o.bidirectional = bidirectional;
  o.proj_size = proj_size;
  return o;
}

RnnResult RNNBase::forward(const Tensor& input, const Tensor& hx, const Tensor& cx) {
  return rnn_forward(input, hx, cx, flat_weights_, options());
}

RnnResult RNNBase::forward_packed(const Tensor& data, const Tensor& batch_sizes, const Tensor& sorted_indices,
                                  const Tensor& unsorted_indices, const Tensor& hx, const Tensor& cx) {
  return rnn_forward_packed(data, batch_sizes, sorted_indices, unsorted_indices, hx, cx, flat_weights_, options());
}

// torch.nn.RNNBase.extra_repr: "10, 20, num_layers=2, ..." (only what differs from the default)
std::string RNNBase::extra_repr() const {
  std::string s = str_cat(input_size, ", ", hidden_size);
  if (proj_size != 0) s += str_cat(", proj_size=", proj_size);
  if (num_layers != 1) s += str_cat(", num_layers=", num_layers);
  if (!bias) s += ", bias=False";
  if (batch_first) s += ", batch_first=True";
  if (dropout != 0) s += ", dropout=" + py_float(dropout);
  if (bidirectional) s += ", bidirectional=True";
  return s;
}

RNN::RNN(int64_t input_size, int64_t hidden_size, int64_t num_layers, const std::string& nl, bool bias,
         bool batch_first, double dropout, bool bidirectional, Dtype dtype)
    : RNNBase(rnn_nonlinearity_mode(nl), input_size, hidden_size, num_layers, bias, batch_first, dropout,
              bidirectional, 0, dtype),
      nonlinearity(nl) {}

LSTM::LSTM(int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias, bool batch_first, double dropout,
           bool bidirectional, int64_t proj_size, Dtype dtype)
    : RNNBase(RnnMode::Lstm, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size,
              dtype) {}

GRU::GRU(int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias, bool batch_first, double dropout,
         bool bidirectional, Dtype dtype)
    : RNNBase(RnnMode::Gru, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0,
              dtype) {}

// ------------------------------------------------------------------ cells
RNNCellBase::RNNCellBase(const char* name, int64_t input_size_, int64_t hidden_size_, bool bias_, int64_t gates,
                         Dtype dtype)
    : Module(name), input_size(input_size_), hidden_size(hidden_size_), bias(bias_) {
  SEQLAB_CHECK_VALUE(input_size >= 0 && hidden_size >= 0, name, ": input_size and hidden_size must be non-negative, got ",
                     input_size, " and ", hidden_size);
  weight_ih = register_parameter("weight_ih", Tensor::empty({gates * hidden_size, input_size}, dtype));
  weight_hh = register_parameter("weight_hh", Tensor::empty({gates * hidden_size, hidden_size}, dtype));
  if (bias) {
    bias_ih = register_parameter("bias_ih", Tensor::empty({gates * hidden_size}, dtype));
    bias_hh = register_parameter("bias_hh", Tensor::empty({gates * hidden_size}, dtype));
  }
  reset_parameters();
}

void RNNCellBase::reset_parameters() { uniform_all(parameters(false), hidden_size); }

std::string RNNCellBase::extra_repr() const {
  return str_cat(input_size, ", ", hidden_size, bias ? "" : ", bias=False");
}

RNNCell::RNNCell(int64_t input_size, int64_t hidden_size, bool bias, const std::string& nl, Dtype dtype)
    : RNNCellBase("RNNCell", input_size, hidden_size, bias, 1, dtype), nonlinearity(nl) {
  rnn_nonlinearity_mode(nl);
}

Tensor RNNCell::forward(const Tensor& input, const Tensor& hx) {
  return nonlinearity == "tanh" ? rnn_tanh_cell(input, hx, weight_ih, weight_hh, bias_ih, bias_hh)
                                : rnn_relu_cell(input, hx, weight_ih, weight_hh, bias_ih, bias_hh);
}

std::string RNNCell::extra_repr() const {
  return RNNCellBase::extra_repr() + (nonlinearity != "tanh" ? ", nonlinearity=" + nonlinearity : "");
}

LSTMCell::LSTMCell(int64_t input_size, int64_t hidden_size, bool bias, Dtype dtype)
    : RNNCellBase("LSTMCell", input_size, hidden_size, bias, 4, dtype) {}

std::pair<Tensor, Tensor> LSTMCell::forward(const Tensor& input, const Tensor& hx, const Tensor& cx) {
  return lstm_cell(input, hx, cx, weight_ih, weight_hh, bias_ih, bias_hh);
}

GRUCell::GRUCell(int64_t input_size, int64_t hidden_size, bool bias, Dtype dtype)
    : RNNCellBase("GRUCell", input_size, hidden_size, bias, 3, dtype) {}

Tensor GRUCell::forward(const Tensor& input, const Tensor& hx) {
  return gru_cell(input, hx, weight_ih, weight_hh, bias_ih, bias_hh);
}

}  // namespace seqlab::nn
