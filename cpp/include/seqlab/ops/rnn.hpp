// Recurrent networks: torch.nn.RNN / LSTM / GRU and their cells, as C++ functionals that the
// Python modules (python/seqlab/nn/modules/rnn.py) and the C++ modules (nn/rnn.hpp) both call.
//
//   RNN   h_t = g(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh),  g = tanh or relu
//   LSTM  i, f, g, o = σ, σ, tanh, σ of (W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)   (gate order of torch)
//         c_t = f ⊙ c_{t-1} + i ⊙ g,   h_t = o ⊙ tanh(c_t)   (then h_t = W_hr h_t with proj_size)
//   GRU   r, z = σ(W_i{r,z} x_t + b_i{r,z} + W_h{r,z} h_{t-1} + b_h{r,z})
//         n = tanh(W_in x_t + b_in + r ⊙ (W_hn h_{t-1} + b_hn)),   h_t = (1 - z) ⊙ n + z ⊙ h_{t-1}
//
// The cells (rnn_cell.cpp) are composed of ordinary ops, for teaching and custom loops; they are
// also the oracle of the fused layers. The layers (rnn.cpp, the stack; rnn_layer.cpp, the fused
// kernels) run one layer over a whole sequence, both directions, as one autograd node with a
// hand-written backward through time.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "seqlab/autograd.hpp"

namespace seqlab {

enum class RnnMode { RnnTanh, RnnRelu, Lstm, Gru };
// What a mode's registered cell (cpp/src/ops/recurrent/<cell>.cpp) says of itself.
struct RnnCellInfo {
  RnnMode mode;
  const char* mode_name;  // torch's mode string: "RNN_TANH", "RNN_RELU", "LSTM", "GRU"
  const char* name;       // torch's name in errors: "RNN", "LSTM", "GRU"
  int64_t gates;          // rows of W_ih per hidden unit: 1, 1, 4, 3
  bool cell_state;        // carries c_t beside h_t (LSTM): c0 in, c_n out
};
const RnnCellInfo& rnn_cell_info(RnnMode mode);
RnnMode rnn_mode_from_name(const std::string& mode_name);  // "LSTM" -> Lstm; torch's ValueError otherwise
const char* rnn_mode_name(RnnMode mode);  // rnn_cell_info(mode).name
int64_t rnn_gate_count(RnnMode mode);     // rnn_cell_info(mode).gates
// torch.nn.RNN's nonlinearity: "tanh" or "relu", else torch's ValueError.
RnnMode rnn_nonlinearity_mode(const std::string& nonlinearity);
// torch.nn.RNNBase's constructor checks (ValueError in Python), shared by both twins.
void check_rnn_args(RnnMode mode, int64_t input_size, int64_t hidden_size, int64_t num_layers, double dropout,
                    int64_t proj_size);

// --- cells: input (B, I) or unbatched (I); hx (B, H) / (H), undefined = zeros.
Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih = Tensor(), const Tensor& b_hh = Tensor());
Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih = Tensor(), const Tensor& b_hh = Tensor());
// Returns (h', c').
std::pair<Tensor, Tensor> lstm_cell(const Tensor& input, const Tensor& hx, const Tensor& cx, const Tensor& w_ih,
                                    const Tensor& w_hh, const Tensor& b_ih = Tensor(), const Tensor& b_hh = Tensor());
Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const Tensor& b_ih = Tensor(), const Tensor& b_hh = Tensor());

// --- layers.
// The weights in torch's _flat_weights order: for each layer, for each direction:
// w_ih, w_hh, [b_ih, b_hh], [w_hr].
struct RnnOptions {
  RnnMode mode = RnnMode::Lstm;
  int64_t num_layers = 1;
  bool has_biases = true;
  bool batch_first = false;
  double dropout = 0.0;  // between layers, in training only
  bool train = false;
  bool bidirectional = false;
  int64_t proj_size = 0;  // LSTM only
};

struct RnnResult {
  Tensor output;  // (T, B, D·H_out), (B, T, D·H_out), (T, D·H_out) or packed rows (N, D·H_out)
  Tensor h_n;     // (D·L, B, H_out) or (D·L, H_out)
  Tensor c_n;     // LSTM only: (D·L, B, H) or (D·L, H)
};

// torch.nn.RNN/LSTM/GRU.forward on a padded (or unbatched) input, checks included.
// hx, cx: undefined = zeros. grad_norms: when defined, a float64 (D·L, T) tensor that the
// backward fills with ||∂L/∂h_t|| (over the batch) for every layer, direction and step.
RnnResult rnn_forward(const Tensor& input, const Tensor& hx, const Tensor& cx, const TensorList& weights,
                      const RnnOptions& opt, const Tensor& grad_norms = Tensor());

// The same on a PackedSequence: data (N, I) with int64 batch_sizes (T) in decreasing order;
// sorted_indices / unsorted_indices (undefined = identity) permute hx in and h_n out, as torch's
// modules do. output is the packed (N, D·H_out).
RnnResult rnn_forward_packed(const Tensor& data, const Tensor& batch_sizes, const Tensor& sorted_indices,
                             const Tensor& unsorted_indices, const Tensor& hx, const Tensor& cx,
                             const TensorList& weights, const RnnOptions& opt, const Tensor& grad_norms = Tensor());

// One layer, both directions when weights hold two sets, over packed rows: the fused node
// (rnn_layer.cpp). x (N, I); h0 (D, B, H_out); c0 (D, B, H) for LSTM; returns output
// (N, D·H_out), h_n (D, B, H_out), c_n (D, B, H). grad_norms: rows of a (D·L, T) sink or undefined.
RnnResult rnn_layer(RnnMode mode, const Tensor& x, const std::vector<int64_t>& batch_sizes, const Tensor& h0,
                    const Tensor& c0, const TensorList& weights, bool has_biases, int64_t proj_size,
                    const Tensor& grad_norms = Tensor(), int64_t grad_norms_row = 0);

}  // namespace seqlab
