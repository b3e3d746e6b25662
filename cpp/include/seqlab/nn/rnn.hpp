// The recurrent layers for C++ users, twins of python/seqlab/nn/rnn.py and of torch::nn's:
// torch's constructor arguments, parameter names (weight_ih_l{k}[_reverse], ...), shapes,
// initialisation U(±1/√hidden_size) in registration order, and reprs; forward is one call of
// the functional in ops/rnn.hpp that the Python modules call too (DESIGN.md, "The twin policy").
// cpp/src/nn/rnn.cpp; tests: tests/test_nn_twins.py, cpp/tests/test_rnn.cpp.
#pragma once
#include <string>

#include "seqlab/nn/module.hpp"
#include "seqlab/ops/rnn.hpp"

namespace seqlab::nn {

// RNN, LSTM and GRU: a stack of num_layers recurrent layers, optionally bidirectional.
class RNNBase : public Module {
 public:
  RNNBase(RnnMode mode, int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool bias = true,
          bool batch_first = false, double dropout = 0.0, bool bidirectional = false, int64_t proj_size = 0,
          Dtype dtype = Dtype::Float32);
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
  const int64_t input_size, hidden_size, num_layers;
  const bool bias, batch_first;
  const double dropout;
  const bool bidirectional;
  const int64_t proj_size;

 private:
  RnnOptions options() const;
  TensorList flat_weights_;
};

// Elman RNN: h_t = tanh or relu(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh).
class RNN : public RNNBase {
 public:
  RNN(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, const std::string& nonlinearity = "tanh",
      bool bias = true, bool batch_first = false, double dropout = 0.0, bool bidirectional = false,
      Dtype dtype = Dtype::Float32);
  const std::string nonlinearity;
};

class LSTM : public RNNBase {
 public:
  LSTM(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool bias = true, bool batch_first = false,
       double dropout = 0.0, bool bidirectional = false, int64_t proj_size = 0, Dtype dtype = Dtype::Float32);
};

class GRU : public RNNBase {
 public:
  GRU(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool bias = true, bool batch_first = false,
      double dropout = 0.0, bool bidirectional = false, Dtype dtype = Dtype::Float32);
};

// The cells: one step, weight_ih (G·H, I), weight_hh (G·H, H), bias_ih, bias_hh (G·H).
class RNNCellBase : public Module {
 public:
  RNNCellBase(const char* name, int64_t input_size, int64_t hidden_size, bool bias, int64_t gates, Dtype dtype);
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
  const int64_t input_size, hidden_size;
  const bool bias;
};

class RNNCell : public RNNCellBase {
 public:
  RNNCell(int64_t input_size, int64_t hidden_size, bool bias = true, const std::string& nonlinearity = "tanh",
          Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& input, const Tensor& hx = Tensor());
  std::string extra_repr() const override;
  const std::string nonlinearity;
};

class LSTMCell : public RNNCellBase {
 public:
  LSTMCell(int64_t input_size, int64_t hidden_size, bool bias = true, Dtype dtype = Dtype::Float32);
  std::pair<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = Tensor(), const Tensor& cx = Tensor());
};

class GRUCell : public RNNCellBase {
 public:
  GRUCell(int64_t input_size, int64_t hidden_size, bool bias = true, Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& input, const Tensor& hx = Tensor());
};

}  // namespace seqlab::nn
