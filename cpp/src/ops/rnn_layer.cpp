// One recurrent layer over a whole (packed) sequence, both directions, as one autograd node:
// the fused forward and its hand-written backward through time (equations in ops/rnn.hpp).
//
// Layout. Rows are packed time-major, as in a PackedSequence: step t owns rows
// [offset_t, offset_t + batch_sizes[t]) and batch_sizes decrease, so the sequences still running
// at step t are always the first batch_sizes[t] rows of the state. A dense (T, B, I) input is
// the case batch_sizes = (B, …, B). The forward direction walks t = 0…T-1 (a finished row keeps
// its state, which is its h_n); the reverse one walks t = T-1…0 (a row joins, from h0, at its
// last step), so each sequence's states are taken at its true end and padding never enters.
//
// Work per direction: one GEMM for the input projection of all steps (W_ih x + biases, N×GH),
// then per step one GEMM for the recurrence, accumulated into that step's gate rows, and one
// fused pass over the gates (σ/tanh through the SIMD kernels, the cell update, the output). The
// backward runs the steps in reverse with one GEMM per step (dh_{t-1} = dG_t W_hh) and leaves
// the weight gradients to three GEMMs over all steps at the end: dW_ih = dGᵀX, dW_hh = dGᵀH_prev,
// dX = dG W_ih.
//
// The modes are a registry (ops/recurrent/cell.hpp): each cell is one file under ops/recurrent/
// with its forward and backward step; this file holds the registry and the layer's entry point,
// which read a mode's description, never the mode itself.
#include <cassert>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "recurrent/cell.hpp"

namespace seqlab {

namespace recurrent {

namespace {
std::map<RnnMode, CellDescription>& registry() {
  static std::map<RnnMode, CellDescription> cells;
  return cells;
}
}  // namespace

CellRegistration::CellRegistration(CellDescription description) {
  const bool added = registry().emplace(description.info.mode, description).second;
  assert(added && "two recurrent cells registered for one mode");
  (void)added;
}

const CellDescription& cell_description(RnnMode mode) {
  const auto it = registry().find(mode);
  SEQLAB_CHECK(it != registry().end(), "rnn: no recurrent cell is registered for mode ", static_cast<int>(mode));
  return it->second;
}

}  // namespace recurrent

const RnnCellInfo& rnn_cell_info(RnnMode mode) { return recurrent::cell_description(mode).info; }
const char* rnn_mode_name(RnnMode mode) { return rnn_cell_info(mode).name; }
int64_t rnn_gate_count(RnnMode mode) { return rnn_cell_info(mode).gates; }

RnnMode rnn_mode_from_name(const std::string& mode_name) {  // torch's RNNBase wording
  for (const auto& [mode, cell] : recurrent::registry())
    if (mode_name == cell.info.mode_name) return mode;
  SEQLAB_CHECK_VALUE(false, "Unrecognized RNN mode: ", mode_name);  // torch's words
  return RnnMode::Lstm;  // not reached
}

namespace {

using recurrent::copy_n;
using recurrent::DirSaved;
using recurrent::DirWeights;
using recurrent::Dims;

std::vector<int64_t> row_offsets(const std::vector<int64_t>& bs) {
  std::vector<int64_t> off(bs.size() + 1, 0);
  for (size_t t = 0; t < bs.size(); ++t) off[t + 1] = off[t] + bs[t];
  return off;
}

// The weights of direction `dir` in the layer's list (w_ih, w_hh, [b_ih, b_hh], [w_hr]).
struct WeightSlots {
  int64_t per_dir, ih, hh, bih, bhh, hr;  // -1 where absent
};
WeightSlots weight_slots(bool has_biases, bool proj) {
  WeightSlots s{2 + (has_biases ? 2 : 0) + (proj ? 1 : 0), 0, 1, -1, -1, -1};
  if (has_biases) s.bih = 2, s.bhh = 3;
  if (proj) s.hr = has_biases ? 4 : 2;
  return s;
}

template <typename T>
DirWeights<T> dir_weights(const TensorList& w, const WeightSlots& sl, int64_t dir) {
  const int64_t base = dir * sl.per_dir;
  auto p = [&](int64_t slot) -> const T* { return slot < 0 ? nullptr : w[base + slot].data<T>(); };
  return {p(sl.ih), p(sl.hh), p(sl.bih), p(sl.bhh), p(sl.hr)};
}

}  // namespace

RnnResult rnn_layer(RnnMode mode, const Tensor& x_in, const std::vector<int64_t>& batch_sizes, const Tensor& h0,
                    const Tensor& c0, const TensorList& weights_in, bool has_biases, int64_t proj_size,
                    const Tensor& grad_norms, int64_t grad_norms_row) {
  const recurrent::CellDescription& cell = recurrent::cell_description(mode);
  const bool has_c = cell.info.cell_state;
  const bool proj = proj_size > 0;  // the stack's check_weights allows it for LSTM only, as torch
  const WeightSlots sl = weight_slots(has_biases, proj);
  const int64_t D = static_cast<int64_t>(weights_in.size()) / sl.per_dir;
  SEQLAB_CHECK(D == 1 || D == 2, cell.info.name, ": expected ", sl.per_dir, " or ", 2 * sl.per_dir,
               " weights for a layer, got ", weights_in.size());
  Dims d{};
  d.cell = &cell;
  d.G = cell.info.gates;
  d.N = x_in.shape()[0];
  d.I = x_in.shape()[1];
  d.T = static_cast<int64_t>(batch_sizes.size());
  d.B = h0.shape()[1];
  d.H = weights_in[sl.ih].shape()[0] / d.G;
  d.Hout = proj ? proj_size : d.H;
  d.D = D;
  d.proj = proj;

  // The kernels read contiguous memory; copies here are outside the graph (the node's
  // inputs stay the caller's tensors, so gradients reach them).
  const Tensor x = contiguous_copy_if_needed(x_in);
  TensorList w;
  for (const Tensor& t : weights_in) w.push_back(contiguous_copy_if_needed(t));
  const Dtype dt = x.dtype();
  const std::vector<int64_t> off = row_offsets(batch_sizes);

  Tensor y = Tensor::empty({d.N, D * d.Hout}, dt);
  Tensor h_n = Tensor::empty({D, d.B, d.Hout}, dt);
  Tensor c_n = has_c ? Tensor::empty({D, d.B, d.H}, dt) : Tensor();
  TensorList node_inputs{x_in, h0, c0};
  for (const Tensor& t : weights_in) node_inputs.push_back(t);
  const bool keep = any_requires_grad(node_inputs);  // save what the backward needs
  auto saved = std::make_shared<std::vector<DirSaved>>(D);

  dispatch_float(dt, cell.info.name, [&](auto tag) {
    using T = decltype(tag);
    const Tensor h0c = contiguous_copy_if_needed(h0);
    copy_n(h_n.data<T>(), h0c.data<T>(), D * d.B * d.Hout);
    if (has_c) {
      const Tensor c0c = contiguous_copy_if_needed(c0);
      copy_n(c_n.data<T>(), c0c.data<T>(), D * d.B * d.H);
    }
    for (int64_t dir = 0; dir < D; ++dir)
      cell.kernels.forward<T>()(d, dir, x.data<T>(), batch_sizes, off, dir_weights<T>(w, sl, dir),
                                h_n.data<T>() + dir * d.B * d.Hout, has_c ? c_n.data<T>() + dir * d.B * d.H : nullptr,
                                y.data<T>(), (*saved)[dir], keep);
  });

  RnnResult res{y, h_n, c_n};
  if (!keep) return res;

  TensorList outs{y, h_n};
  if (has_c) outs.push_back(c_n);
  const bool need_x = x_in.requires_grad();
  const bool need_h0 = h0.requires_grad(), need_c0 = c0.defined() && c0.requires_grad();
  std::vector<bool> need_w;
  for (const Tensor& t : weights_in) need_w.push_back(t.requires_grad());
  const int64_t norms_offset = grad_norms.defined() ? grad_norms_row * d.T : -1;
  attach_multi(outs, cell.backward_name, node_inputs,
               [d, sl, batch_sizes, off, saved, sx = save(x), sw = [&] {
                  std::vector<SavedTensor> v;
                  for (const Tensor& t : w) v.push_back(save(t));
                  return v;
                }(), need_x, need_h0, need_c0, need_w, has_c, grad_norms, norms_offset](const TensorList& g) -> TensorList {
                 const Tensor x = sx.unpack();
                 TensorList w;
                 for (const SavedTensor& s : sw) w.push_back(s.unpack());
                 const Dtype dt = x.dtype();
                 // Incoming gradients, contiguous; zeros where none flowed.
                 const Tensor dy = g[0].defined() ? contiguous_copy_if_needed(g[0]) : Tensor();
                 Tensor dh = Tensor::empty({d.D, d.B, d.Hout}, dt), dc;
                 Tensor dx = need_x ? Tensor::empty({d.N, d.I}, dt) : Tensor();
                 TensorList dw(w.size());
                 for (size_t i = 0; i < w.size(); ++i)
                   if (need_w[i]) dw[i] = Tensor::empty(w[i].shape(), dt);
                 dispatch_float(dt, "rnn backward", [&](auto tag) {
                   using T = decltype(tag);
                   auto init = [&](Tensor& dst, const Tensor& src) {
                     if (src.defined())
                       copy_n(dst.data<T>(), contiguous_copy_if_needed(src).data<T>(), dst.numel());
                     else
                       std::fill_n(dst.data<T>(), dst.numel(), T(0));
                   };
                   init(dh, g[1]);
                   if (has_c) {
                     dc = Tensor::empty({d.D, d.B, d.H}, dt);
                     init(dc, g[2]);
                   }
                   auto ptr = [&](int64_t dir, int64_t slot) -> T* {
                     return slot < 0 || !dw[dir * sl.per_dir + slot].defined() ? nullptr
                                                                                : dw[dir * sl.per_dir + slot].data<T>();
                   };
                   for (int64_t dir = 0; dir < d.D; ++dir) {
                     double* norms = norms_offset >= 0 ? grad_norms.data<double>() + norms_offset + dir * d.T : nullptr;
                     d.cell->kernels.backward<T>()(d, dir, x.data<T>(), batch_sizes, off, dir_weights<T>(w, sl, dir),
                                                   (*saved)[dir], dy.defined() ? dy.data<T>() : nullptr,
                                                   dh.data<T>() + dir * d.B * d.Hout,
                                                   has_c ? dc.data<T>() + dir * d.B * d.H : nullptr,
                                                   need_x ? dx.data<T>() : nullptr, dir > 0, ptr(dir, sl.ih),
                                                   ptr(dir, sl.hh), ptr(dir, sl.bih), ptr(dir, sl.bhh), ptr(dir, sl.hr),
                                                   norms);
                   }
                 });
                 TensorList grads{dx, need_h0 ? dh : Tensor(), need_c0 ? dc : Tensor()};
                 for (const Tensor& t : dw) grads.push_back(t);
                 return grads;
               });
  return res;
}

}  // namespace seqlab
