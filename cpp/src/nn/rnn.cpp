// The recurrent layers for C++ users; the Python twins are in python/seqlab/nn/modules/rnn.py.
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
RNNBase::RNNBase(RnnMode mode_, const RNNOptions& options_)
    : Module(module_name(mode_)), mode(mode_), options(options_) {
  const int64_t H = options.hidden_size(), P = options.proj_size(), L = options.num_layers();
  check_rnn_args(mode, options.input_size(), H, L, options.dropout(), P);
  const int64_t G = rnn_gate_count(mode), D = options.bidirectional() ? 2 : 1;
  const int64_t real_hidden = P > 0 ? P : H;
  const Dtype dtype = options.dtype();
  for (int64_t l = 0; l < L; ++l)
    for (int64_t d = 0; d < D; ++d) {
      const std::string sfx = "_l" + std::to_string(l) + (d ? "_reverse" : "");
      const int64_t in = l == 0 ? options.input_size() : real_hidden * D;
      flat_weights_.push_back(register_parameter("weight_ih" + sfx, Tensor::empty({G * H, in}, dtype)));
      flat_weights_.push_back(register_parameter("weight_hh" + sfx, Tensor::empty({G * H, real_hidden}, dtype)));
      if (options.bias()) {
        flat_weights_.push_back(register_parameter("bias_ih" + sfx, Tensor::empty({G * H}, dtype)));
        flat_weights_.push_back(register_parameter("bias_hh" + sfx, Tensor::empty({G * H}, dtype)));
      }
      if (P > 0) flat_weights_.push_back(register_parameter("weight_hr" + sfx, Tensor::empty({P, H}, dtype)));
    }
  reset_parameters();
}

void RNNBase::reset_parameters() { uniform_all(parameters(false), options.hidden_size()); }

RnnOptions RNNBase::functional_options() const {
  RnnOptions o;
  o.mode = mode;
  o.num_layers = options.num_layers();
  o.has_biases = options.bias();
  o.batch_first = options.batch_first();
  o.dropout = options.dropout();
  o.train = is_training();
  o.bidirectional = options.bidirectional();
  o.proj_size = options.proj_size();
  return o;
}

RnnResult RNNBase::forward(const Tensor& input, const Tensor& hx, const Tensor& cx) {
  return rnn_forward(input, hx, cx, flat_weights_, functional_options());
}

RnnResult RNNBase::forward_packed(const Tensor& data, const Tensor& batch_sizes, const Tensor& sorted_indices,
                                  const Tensor& unsorted_indices, const Tensor& hx, const Tensor& cx) {
  return rnn_forward_packed(data, batch_sizes, sorted_indices, unsorted_indices, hx, cx, flat_weights_,
                            functional_options());
}

// torch.nn.RNNBase.extra_repr: "10, 20, num_layers=2, ..." (only what differs from the default)
std::string RNNBase::extra_repr() const {
  const RNNOptions& o = options;
  std::string s = str_cat(o.input_size(), ", ", o.hidden_size());
  if (o.proj_size() != 0) s += str_cat(", proj_size=", o.proj_size());
  if (o.num_layers() != 1) s += str_cat(", num_layers=", o.num_layers());
  if (!o.bias()) s += ", bias=False";
  if (o.batch_first()) s += ", batch_first=True";
  if (o.dropout() != 0) s += ", dropout=" + py_float(o.dropout());
  if (o.bidirectional()) s += ", bidirectional=True";
  return s;
}

namespace {

// LSTM, GRU and their cells have no nonlinearity: a value other than the default is refused, as
// torch's constructors refuse the keyword.
template <class Options>
const Options& without_nonlinearity(const Options& o, const char* module) {
  SEQLAB_CHECK_VALUE(o.nonlinearity() == "tanh", module, ": nonlinearity is an option of RNN only, got '",
                     o.nonlinearity(), "'");
  return o;
}

}  // namespace

RNN::RNN(const RNNOptions& options) : RNNBase(rnn_nonlinearity_mode(options.nonlinearity()), options) {}

LSTM::LSTM(const LSTMOptions& options) : RNNBase(RnnMode::Lstm, without_nonlinearity(options, "LSTM")) {}

GRU::GRU(const GRUOptions& options) : RNNBase(RnnMode::Gru, without_nonlinearity(options, "GRU")) {}

// ------------------------------------------------------------------ cells
RNNCellBase::RNNCellBase(const char* name, const RNNCellOptions& options_, int64_t gates)
    : Module(name), options(options_) {
  const int64_t I = options.input_size(), H = options.hidden_size();
  SEQLAB_CHECK_VALUE(I >= 0 && H >= 0, name, ": input_size and hidden_size must be non-negative, got ", I, " and ", H);
  weight_ih = register_parameter("weight_ih", Tensor::empty({gates * H, I}, options.dtype()));
  weight_hh = register_parameter("weight_hh", Tensor::empty({gates * H, H}, options.dtype()));
  if (options.bias()) {
    bias_ih = register_parameter("bias_ih", Tensor::empty({gates * H}, options.dtype()));
    bias_hh = register_parameter("bias_hh", Tensor::empty({gates * H}, options.dtype()));
  }
  reset_parameters();
}

void RNNCellBase::reset_parameters() { uniform_all(parameters(false), options.hidden_size()); }

std::string RNNCellBase::extra_repr() const {
  return str_cat(options.input_size(), ", ", options.hidden_size(), options.bias() ? "" : ", bias=False");
}

RNNCell::RNNCell(const RNNCellOptions& options_) : RNNCellBase("RNNCell", options_, 1) {
  rnn_nonlinearity_mode(options.nonlinearity());
}

Tensor RNNCell::forward(const Tensor& input, const Tensor& hx) {
  return options.nonlinearity() == "tanh" ? rnn_tanh_cell(input, hx, weight_ih, weight_hh, bias_ih, bias_hh)
                                          : rnn_relu_cell(input, hx, weight_ih, weight_hh, bias_ih, bias_hh);
}

std::string RNNCell::extra_repr() const {
  const std::string& nl = options.nonlinearity();
  return RNNCellBase::extra_repr() + (nl != "tanh" ? ", nonlinearity=" + nl : "");
}

LSTMCell::LSTMCell(const LSTMCellOptions& options_)
    : RNNCellBase("LSTMCell", without_nonlinearity(options_, "LSTMCell"), 4) {}

std::pair<Tensor, Tensor> LSTMCell::forward(const Tensor& input, const Tensor& hx, const Tensor& cx) {
  return lstm_cell(input, hx, cx, weight_ih, weight_hh, bias_ih, bias_hh);
}

GRUCell::GRUCell(const GRUCellOptions& options_)
    : RNNCellBase("GRUCell", without_nonlinearity(options_, "GRUCell"), 3) {}

Tensor GRUCell::forward(const Tensor& input, const Tensor& hx) {
  return gru_cell(input, hx, weight_ih, weight_hh, bias_ih, bias_hh);
}

}  // namespace seqlab::nn
