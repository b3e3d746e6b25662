// The recurrent layers for C++ users, twins of python/seqlab/nn/modules/rnn.py and of torch::nn's:
// torch's constructor arguments as an options struct, parameter names (weight_ih_l{k}[_reverse],
// ...), shapes, initialisation U(±1/√hidden_size) in registration order, and reprs; forward is one call of
// the functional in ops/rnn.hpp that the Python modules call too (DESIGN.md, "The twin policy").
// cpp/src/nn/rnn.cpp; tests: tests/test_nn_twins.py, cpp/tests/test_rnn.cpp.
#pragma once
#include <string>
#include <utility>

#include "seqlab/arg.hpp"
#include "seqlab/nn/module.hpp"
#include "seqlab/ops/rnn.hpp"

namespace seqlab::nn {

// torch.nn.RNN's, LSTM's and GRU's arguments (torch::nn::RNNOptions, LSTMOptions, GRUOptions): one
// struct under the three names, each module taking the fields its Python twin takes (nonlinearity:
// RNN only; proj_size: LSTM only; checked when the module is made).
struct RNNOptions {
  RNNOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}

  SEQLAB_ARG(int64_t, input_size);
  SEQLAB_ARG(int64_t, hidden_size);
  SEQLAB_ARG(int64_t, num_layers) = 1;
  SEQLAB_ARG(std::string, nonlinearity) = "tanh";  // RNN's: "tanh" or "relu"
  SEQLAB_ARG(bool, bias) = true;
  SEQLAB_ARG(bool, batch_first) = false;  // (B, T, I) input and output instead of (T, B, I)
  SEQLAB_ARG(double, dropout) = 0.0;      // on every layer's output but the last, in training
  SEQLAB_ARG(bool, bidirectional) = false;
  SEQLAB_ARG(int64_t, proj_size) = 0;     // LSTM's: h_t = W_hr (o ⊙ tanh c_t) of this size (Sak et al. 2014)
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
using LSTMOptions = RNNOptions;
using GRUOptions = RNNOptions;

// RNN, LSTM and GRU: a stack of num_layers recurrent layers, optionally bidirectional.
class RNNBase : public Module {
 public:
  // input (T, B, I), (B, T, I) with batch_first, or unbatched (T, I); hx, cx undefined = zeros.
  // c_n is defined for LSTM only.
  RnnResult forward(const Tensor& input, const Tensor& hx = Tensor(), const Tensor& cx = Tensor());
  // A PackedSequence's fields; the output is packed rows with the same batch_sizes.
  RnnResult forward_packed(const Tensor& data, const Tensor& batch_sizes, const Tensor& sorted_indices = Tensor(),
                           const Tensor& unsorted_indices = Tensor(), const Tensor& hx = Tensor(),
                           const Tensor& cx = Tensor());
  void reset_parameters();
  void flatten_parameters() {}  // torch's cuDNN hint; the weights are always used in place
  std::string extra_repr() const override;
  // torch's _flat_weights: per layer and direction w_ih, w_hh, [b_ih, b_hh], [w_hr].
  const TensorList& flat_weights() const { return flat_weights_; }

  const RnnMode mode;
  const RNNOptions options;

 protected:
  RNNBase(RnnMode mode, const RNNOptions& options);

 private:
  RnnOptions functional_options() const;  // what ops/rnn.hpp's functionals take
  TensorList flat_weights_;
};

// Elman RNN: h_t = tanh or relu(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh).
class RNN : public RNNBase {
 public:
  explicit RNN(const RNNOptions& options);
  RNN(int64_t input_size, int64_t hidden_size) : RNN(RNNOptions(input_size, hidden_size)) {}
};

class LSTM : public RNNBase {
 public:
  explicit LSTM(const LSTMOptions& options);
  LSTM(int64_t input_size, int64_t hidden_size) : LSTM(LSTMOptions(input_size, hidden_size)) {}
};

class GRU : public RNNBase {
 public:
  explicit GRU(const GRUOptions& options);
  GRU(int64_t input_size, int64_t hidden_size) : GRU(GRUOptions(input_size, hidden_size)) {}
};

// torch.nn.RNNCell's, LSTMCell's and GRUCell's arguments (torch::nn::RNNCellOptions, ...): one
// struct under the three names; nonlinearity is RNNCell's only.
struct RNNCellOptions {
  RNNCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}

  SEQLAB_ARG(int64_t, input_size);
  SEQLAB_ARG(int64_t, hidden_size);
  SEQLAB_ARG(bool, bias) = true;
  SEQLAB_ARG(std::string, nonlinearity) = "tanh";
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
using LSTMCellOptions = RNNCellOptions;
using GRUCellOptions = RNNCellOptions;

// The cells: one step, weight_ih (G·H, I), weight_hh (G·H, H), bias_ih, bias_hh (G·H).
class RNNCellBase : public Module {
 public:
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
  const RNNCellOptions options;

 protected:
  RNNCellBase(const char* name, const RNNCellOptions& options, int64_t gates);
};

class RNNCell : public RNNCellBase {
 public:
  explicit RNNCell(const RNNCellOptions& options);
  RNNCell(int64_t input_size, int64_t hidden_size) : RNNCell(RNNCellOptions(input_size, hidden_size)) {}
  Tensor forward(const Tensor& input, const Tensor& hx = Tensor());
  std::string extra_repr() const override;
};

class LSTMCell : public RNNCellBase {
 public:
  explicit LSTMCell(const LSTMCellOptions& options);
  LSTMCell(int64_t input_size, int64_t hidden_size) : LSTMCell(LSTMCellOptions(input_size, hidden_size)) {}
  std::pair<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = Tensor(), const Tensor& cx = Tensor());
};

class GRUCell : public RNNCellBase {
 public:
  explicit GRUCell(const GRUCellOptions& options);
  GRUCell(int64_t input_size, int64_t hidden_size) : GRUCell(GRUCellOptions(input_size, hidden_size)) {}
  Tensor forward(const Tensor& input, const Tensor& hx = Tensor());
};

}  // namespace seqlab::nn
