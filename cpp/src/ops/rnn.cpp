// torch.nn.RNN / LSTM / GRU's forward as one functional: the checks and messages of torch's
// modules, unbatched and batch_first inputs, packed sequences (hx permuted by sorted_indices,
// h_n back by unsorted_indices), the layer stack with dropout between layers in training.
// Each layer is one fused node (rnn_layer.cpp); this file only arranges them.
#include <sstream>

#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/ops/rnn.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

namespace {

std::string size_tuple(const Shape& s) {
  std::ostringstream o;
  o << "(";
  for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << ")";
  return o.str();
}

// Sizes read from the weights, which must be torch's layout (checked: the functional is public).
struct StackDims {
  int64_t D, H, Hout, I, per_layer;
};

StackDims check_weights(const TensorList& w, const RnnOptions& opt, Dtype input_dtype) {
  const char* name = rnn_mode_name(opt.mode);
  const bool has_c = rnn_cell_info(opt.mode).cell_state;  // c0 in, c_n out
  SEQLAB_CHECK_VALUE(opt.num_layers >= 1, name, ": num_layers must be greater than zero");
  SEQLAB_CHECK_VALUE(opt.proj_size >= 0, name, ": proj_size should be a positive integer or zero to disable projections");
  SEQLAB_CHECK_VALUE(opt.proj_size == 0 || opt.mode == RnnMode::Lstm,
                     "proj_size argument is only supported for LSTM, not RNN or GRU");
  SEQLAB_CHECK_VALUE(opt.dropout >= 0 && opt.dropout <= 1, name,
                     ": dropout should be a number in range [0, 1] representing the probability of an element being "
                     "zeroed");
  const int64_t D = opt.bidirectional ? 2 : 1, G = rnn_gate_count(opt.mode);
  const int64_t per_dir = 2 + (opt.has_biases ? 2 : 0) + (opt.proj_size > 0 ? 1 : 0);
  SEQLAB_CHECK(static_cast<int64_t>(w.size()) == opt.num_layers * D * per_dir, name, ": expected ",
               opt.num_layers * D * per_dir, " weight tensors (", per_dir, " per layer and direction), got ", w.size());
  for (const Tensor& t : w) {
    SEQLAB_CHECK(t.defined(), name, ": a weight is None");
    SEQLAB_CHECK_VALUE(t.dtype() == input_dtype, "RNN input dtype (seqlab.", dtype_name(input_dtype),
                       ") does not match weight dtype (seqlab.", dtype_name(t.dtype()),
                       "). Convert input: input.to(seqlab.", dtype_name(t.dtype()),
                       "), or convert model: model.to(seqlab.", dtype_name(input_dtype), ")");
  }
  SEQLAB_CHECK(w[1].dim() == 2, name, ": weight_hh_l0 must be 2-D, got ", shape_str(w[1].shape()));
  const int64_t H = w[1].shape()[0] / G;
  const int64_t Hout = opt.proj_size > 0 ? opt.proj_size : H;
  SEQLAB_CHECK(w[0].dim() == 2, name, ": weight_ih_l0 must be 2-D, got ", shape_str(w[0].shape()));
  const int64_t I = w[0].shape()[1];
  for (int64_t l = 0; l < opt.num_layers; ++l)
    for (int64_t d = 0; d < D; ++d) {
      const int64_t base = (l * D + d) * per_dir;
      const std::string sfx = std::to_string(l) + (d ? "_reverse" : "");
      auto expect = [&](int64_t k, const Shape& shape, const char* what) {
        SEQLAB_CHECK(w[base + k].shape() == shape, name, ": ", what, sfx, " must have shape ", size_tuple(shape),
                     ", got ", size_tuple(w[base + k].shape()));
      };
      expect(0, {G * H, l == 0 ? I : D * Hout}, "weight_ih_l");
      expect(1, {G * H, Hout}, "weight_hh_l");
      if (opt.has_biases) {
        expect(2, {G * H}, "bias_ih_l");
        expect(3, {G * H}, "bias_hh_l");
      }
      if (opt.proj_size > 0) expect(per_dir - 1, {Hout, H}, "weight_hr_l");
    }
  return {D, H, Hout, I, per_dir * D};
}

// One initial state: undefined = zeros; otherwise torch's shape check.
Tensor initial_state(const Tensor& s, const Shape& expected, Dtype dtype, const char* which) {
  if (!s.defined()) return zeros(expected, dtype);
  SEQLAB_CHECK(s.shape() == expected, "Expected hidden", which, " size ", size_tuple(expected), ", got ",
               shape_str(s.shape()));
  SEQLAB_CHECK_VALUE(s.dtype() == dtype, "Expected hidden", which, " dtype ", dtype_name(dtype), ", got ",
                     dtype_name(s.dtype()));
  return s;
}

// The stack over packed rows x (N, I); h0 (D·L, B, H_out), c0 (D·L, B, H).
RnnResult run_stack(const Tensor& x, const std::vector<int64_t>& batch_sizes, const Tensor& h0, const Tensor& c0,
                    const TensorList& w, const RnnOptions& opt, const StackDims& sd, const Tensor& grad_norms) {
  const bool has_c = rnn_cell_info(opt.mode).cell_state;  // c0 in, c_n out
  Tensor layer_input = x;
  TensorList hs, cs;
  for (int64_t l = 0; l < opt.num_layers; ++l) {
    if (l > 0 && opt.dropout > 0 && opt.train) layer_input = dropout(layer_input, opt.dropout, true);
    const TensorList lw(w.begin() + l * sd.per_layer, w.begin() + (l + 1) * sd.per_layer);
    RnnResult r = rnn_layer(opt.mode, layer_input, batch_sizes, narrow(h0, 0, l * sd.D, sd.D),
                            has_c ? narrow(c0, 0, l * sd.D, sd.D) : Tensor(), lw, opt.has_biases, opt.proj_size,
                            grad_norms, l * sd.D);
    layer_input = r.output;
    hs.push_back(r.h_n);
    if (has_c) cs.push_back(r.c_n);
  }
  return {layer_input, opt.num_layers == 1 ? hs[0] : cat(hs, 0),
          has_c ? (opt.num_layers == 1 ? cs[0] : cat(cs, 0)) : Tensor()};
}

void check_grad_norms(const Tensor& g, int64_t rows, int64_t T) {
  if (!g.defined()) return;
  SEQLAB_CHECK(g.dtype() == Dtype::Float64 && g.is_contiguous() && g.shape() == Shape({rows, T}),
               "rnn: grad_norms must be a contiguous float64 tensor of shape (", rows, ", ", T, "), got ",
               shape_str(g.shape()), " ", dtype_name(g.dtype()));
}

}  // namespace

RnnResult rnn_forward(const Tensor& input, const Tensor& hx, const Tensor& cx, const TensorList& weights,
                      const RnnOptions& opt, const Tensor& grad_norms) {
  const char* name = rnn_mode_name(opt.mode);
  const bool has_c = rnn_cell_info(opt.mode).cell_state;  // c0 in, c_n out
  SEQLAB_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, name, ": Expected input to be 2D or 3D, got ", input.dim(),
                     "D instead");
  const StackDims sd = check_weights(weights, opt, input.dtype());
  const bool batched = input.dim() == 3;
  // States must have the input's rank (torch's wording for each case).
  if (hx.defined() || cx.defined()) {
    const int64_t want = batched ? 3 : 2;
    const bool bad = (hx.defined() && hx.dim() != want) || (has_c && cx.defined() && cx.dim() != want);
    if (bad) {
      const std::string kind = batched ? "batched 3-D" : "unbatched 2-D";
      if (has_c)
        SEQLAB_CHECK(false, "For ", kind, " input, hx and cx should also be ", want, "-D but got (",
                     hx.defined() ? hx.dim() : 0, "-D, ", cx.defined() ? cx.dim() : 0, "-D) tensors");
      SEQLAB_CHECK(false, "For ", kind, " input, hx should also be ", want, "-D but got ", hx.dim(), "-D tensor");
    }
  }
  // Time-major (T, B, I): unbatched gets B = 1, batch_first is transposed.
  Tensor x = batched ? (opt.batch_first ? transpose(input, 0, 1) : input) : unsqueeze(input, 1);
  Tensor h = hx.defined() && !batched ? unsqueeze(hx, 1) : hx;
  Tensor c = cx.defined() && !batched ? unsqueeze(cx, 1) : cx;
  const int64_t T = x.shape()[0], B = x.shape()[1];
  SEQLAB_CHECK(x.shape()[2] == sd.I, "input.size(-1) must be equal to input_size. Expected ", sd.I, ", got ",
               x.shape()[2]);
  SEQLAB_CHECK(T > 0, "Expected sequence length to be larger than 0 in RNN");
  const int64_t L = opt.num_layers;
  h = initial_state(h, {sd.D * L, B, sd.Hout}, input.dtype(), has_c ? "[0]" : "");
  if (has_c) c = initial_state(c, {sd.D * L, B, sd.H}, input.dtype(), "[1]");
  check_grad_norms(grad_norms, sd.D * L, T);

  const RnnResult r =
      run_stack(reshape(contiguous(x), {T * B, sd.I}), std::vector<int64_t>(T, B), h, c, weights, opt, sd, grad_norms);
  Tensor out = reshape(r.output, {T, B, sd.D * sd.Hout});
  if (!batched) return {squeeze(out, 1), squeeze(r.h_n, 1), has_c ? squeeze(r.c_n, 1) : Tensor()};
  return {opt.batch_first ? transpose(out, 0, 1) : out, r.h_n, r.c_n};
}

RnnResult rnn_forward_packed(const Tensor& data, const Tensor& batch_sizes, const Tensor& sorted_indices,
                             const Tensor& unsorted_indices, const Tensor& hx, const Tensor& cx,
                             const TensorList& weights, const RnnOptions& opt, const Tensor& grad_norms) {
  const char* name = rnn_mode_name(opt.mode);
  const bool has_c = rnn_cell_info(opt.mode).cell_state;  // c0 in, c_n out
  SEQLAB_CHECK(data.dim() == 2, name, ": a PackedSequence's data must be 2-D (sum of lengths, input_size), got ",
               shape_str(data.shape()));
  SEQLAB_CHECK(batch_sizes.dim() == 1 && batch_sizes.dtype() == Dtype::Int64, name,
               ": batch_sizes must be a 1-D int64 tensor, got ", shape_str(batch_sizes.shape()), " ",
               dtype_name(batch_sizes.dtype()));
  const StackDims sd = check_weights(weights, opt, data.dtype());
  const Tensor bsc = contiguous(batch_sizes);
  const int64_t* bp = bsc.data<int64_t>();
  std::vector<int64_t> bs(bp, bp + bsc.numel());
  SEQLAB_CHECK(!bs.empty(), "Expected sequence length to be larger than 0 in RNN");
  int64_t total = 0;
  for (size_t t = 0; t < bs.size(); ++t) {
    SEQLAB_CHECK(bs[t] > 0 && (t == 0 || bs[t] <= bs[t - 1]), name,
                 ": batch_sizes must be positive and non-increasing, got ", bs[t], " at step ", t);
    total += bs[t];
  }
  SEQLAB_CHECK(total == data.shape()[0], name, ": batch_sizes sum to ", total, " but the packed data has ",
               data.shape()[0], " rows");
  SEQLAB_CHECK(data.shape()[1] == sd.I, "input.size(-1) must be equal to input_size. Expected ", sd.I, ", got ",
               data.shape()[1]);
  const int64_t B = bs[0], L = opt.num_layers;
  // The states are in the caller's batch order; the packed rows in sorted order.
  auto to_sorted = [&](const Tensor& s) {
    if (!s.defined() || !sorted_indices.defined()) return s;
    SEQLAB_CHECK(s.dim() == 3, "For batched 3-D input, hx", has_c ? " and cx" : "", " should also be 3-D but got ",
                 s.dim(), "-D tensor");
    return index_select(s, 1, sorted_indices);
  };
  Tensor h = initial_state(to_sorted(hx), {sd.D * L, B, sd.Hout}, data.dtype(), has_c ? "[0]" : "");
  Tensor c = has_c ? initial_state(to_sorted(cx), {sd.D * L, B, sd.H}, data.dtype(), "[1]") : Tensor();
  check_grad_norms(grad_norms, sd.D * L, static_cast<int64_t>(bs.size()));
  RnnResult r = run_stack(contiguous(data), bs, h, c, weights, opt, sd, grad_norms);
  if (unsorted_indices.defined()) {
    r.h_n = index_select(r.h_n, 1, unsorted_indices);
    if (has_c) r.c_n = index_select(r.c_n, 1, unsorted_indices);
  }
  return r;
}

}  // namespace seqlab
