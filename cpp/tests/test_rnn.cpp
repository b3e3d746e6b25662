// The fused recurrent layers from C++, also run under ASan/UBSan (make asan-test): each layer
// against a loop of its cells (the composed twin) in float64, packed batches of unequal lengths
// against the same sequences run one at a time, empty batches, and bad input that must throw.
#include <gtest/gtest.h>

#include <cmath>

#include "seqlab/seqlab.hpp"
#include "test_util.hpp"

using namespace seqlab;
using seqlab::test::max_abs_diff;

namespace {

// One layer, one direction, as a loop of cells: the oracle.
std::pair<Tensor, Tensor> cell_loop(nn::RNNBase& m, const Tensor& x, const Tensor& h0, const Tensor& c0) {
  const TensorList& w = m.flat_weights();
  Tensor h = select(h0, 0, 0), c = c0.defined() ? select(c0, 0, 0) : Tensor();
  TensorList outs;
  for (int64_t t = 0; t < x.shape()[0]; ++t) {
    const Tensor xt = select(x, 0, t);
    switch (m.mode) {
      case RnnMode::Lstm: std::tie(h, c) = lstm_cell(xt, h, c, w[0], w[1], w[2], w[3]); break;
      case RnnMode::Gru: h = gru_cell(xt, h, w[0], w[1], w[2], w[3]); break;
      case RnnMode::RnnTanh: h = rnn_tanh_cell(xt, h, w[0], w[1], w[2], w[3]); break;
      case RnnMode::RnnRelu: h = rnn_relu_cell(xt, h, w[0], w[1], w[2], w[3]); break;
    }
    outs.push_back(h);
  }
  return {stack(outs, 0), h};
}

std::shared_ptr<nn::RNNBase> make(RnnMode mode, int64_t I, int64_t H, int64_t layers = 1, bool bidir = false) {
  const auto options = nn::RNNOptions(I, H).num_layers(layers).bidirectional(bidir).dtype(Dtype::Float64);
  switch (mode) {
    case RnnMode::Lstm: return std::make_shared<nn::LSTM>(options);
    case RnnMode::Gru: return std::make_shared<nn::GRU>(options);
    case RnnMode::RnnTanh: return std::make_shared<nn::RNN>(options);
    case RnnMode::RnnRelu: break;
  }
  return std::make_shared<nn::RNN>(nn::RNNOptions(options).nonlinearity("relu"));
}

const RnnMode kModes[] = {RnnMode::RnnTanh, RnnMode::RnnRelu, RnnMode::Lstm, RnnMode::Gru};

}  // namespace

TEST(RNN, FusedLayerEqualsItsCellLoopWithGradients) {
  for (RnnMode mode : kModes) {
    manual_seed(1);
    auto m = make(mode, 3, 5);
    Tensor x = randn({7, 2, 3}, Dtype::Float64).set_requires_grad(true);
    Tensor h0 = randn({1, 2, 5}, Dtype::Float64).set_requires_grad(true);
    Tensor c0 = mode == RnnMode::Lstm ? randn({1, 2, 5}, Dtype::Float64).set_requires_grad(true) : Tensor();
    RnnResult r = m->forward(x, h0, c0);
    auto [out, h] = cell_loop(*m, x, h0, c0);
    EXPECT_LT(max_abs_diff(r.output, out), 1e-12) << rnn_mode_name(mode);
    EXPECT_LT(max_abs_diff(select(r.h_n, 0, 0), h), 1e-12);

    // Gradients of the same loss through both.
    sum(mul(r.output, r.output)).backward();
    const Tensor gx = clone(x.grad()), gh = clone(h0.grad()), gw = clone(m->flat_weights()[1].grad());
    x.set_grad(Tensor()), h0.set_grad(Tensor());
    for (Tensor p : m->parameters()) p.set_grad(Tensor());
    sum(mul(out, out)).backward();
    EXPECT_LT(max_abs_diff(gx, x.grad()), 1e-11);
    EXPECT_LT(max_abs_diff(gh, h0.grad()), 1e-11);
    EXPECT_LT(max_abs_diff(gw, m->flat_weights()[1].grad()), 1e-11);
  }
}

TEST(RNN, PackedSequencesEndAtTheirOwnLengths) {
  // Lengths 5, 3, 1 packed (sorted): each sequence's h_n must be what it gives alone.
  for (RnnMode mode : kModes) {
    manual_seed(2);
    auto m = make(mode, 3, 4, 2, true);
    const std::vector<int64_t> lengths{5, 3, 1};
    const Tensor padded = randn({5, 3, 3}, Dtype::Float64);
    // Packed rows: step t holds the sequences longer than t.
    TensorList rows;
    std::vector<int64_t> bs;
    for (int64_t t = 0; t < 5; ++t) {
      int64_t b = 0;
      while (b < 3 && lengths[b] > t) ++b;
      bs.push_back(b);
      rows.push_back(narrow(select(padded, 0, t), 0, 0, b));
    }
    const Tensor batch_sizes = Tensor::empty({5}, Dtype::Int64);
    std::copy(bs.begin(), bs.end(), batch_sizes.data<int64_t>());
    RnnResult packed = m->forward_packed(cat(rows, 0), batch_sizes);
    for (int64_t s = 0; s < 3; ++s) {
      const Tensor alone = narrow(narrow(padded, 1, s, 1), 0, 0, lengths[s]);
      RnnResult one = m->forward(alone);
      EXPECT_LT(max_abs_diff(narrow(packed.h_n, 1, s, 1), one.h_n), 1e-12) << rnn_mode_name(mode) << " seq " << s;
    }
    sum(packed.output).backward();  // the backward walks the same rows
    for (const Tensor& p : m->parameters()) EXPECT_TRUE(p.grad().defined());
  }
}

TEST(RNN, EmptyBatchAndUnbatchedInput) {
  for (RnnMode mode : kModes) {
    auto m = make(mode, 3, 4, 2, true);
    RnnResult r = m->forward(randn({4, 0, 3}, Dtype::Float64));
    EXPECT_EQ(r.output.shape(), (Shape{4, 0, 8}));
    EXPECT_EQ(r.h_n.shape(), (Shape{4, 0, 4}));
    RnnResult u = m->forward(randn({4, 3}, Dtype::Float64));
    EXPECT_EQ(u.output.shape(), (Shape{4, 8}));
    EXPECT_EQ(u.h_n.shape(), (Shape{4, 4}));
  }
}

TEST(RNN, BadInputThrows) {
  nn::LSTM m(nn::LSTMOptions(3, 4).num_layers(2));
  EXPECT_THROW(m.forward(randn({5, 2, 4})), std::runtime_error);                    // input size
  EXPECT_THROW(m.forward(randn({0, 2, 3})), std::runtime_error);                    // empty sequence
  EXPECT_THROW(m.forward(randn({5, 2, 3, 1})), std::invalid_argument);              // 4-D
  EXPECT_THROW(m.forward(randn({5, 2, 3}), randn({2, 3, 4})), std::runtime_error);  // h0 batch
  EXPECT_THROW(m.forward(randn({5, 2, 3}, Dtype::Float64)), std::invalid_argument);  // dtype
  const Tensor bad_sizes = Tensor::empty({2}, Dtype::Int64);
  bad_sizes.data<int64_t>()[0] = 1, bad_sizes.data<int64_t>()[1] = 2;  // increasing
  EXPECT_THROW(m.forward_packed(randn({3, 3}), bad_sizes), std::runtime_error);
  bad_sizes.data<int64_t>()[0] = 2, bad_sizes.data<int64_t>()[1] = 2;  // more rows than the data
  EXPECT_THROW(m.forward_packed(randn({3, 3}), bad_sizes), std::runtime_error);
  EXPECT_THROW(nn::LSTM(nn::LSTMOptions(3, 4).proj_size(4)), std::invalid_argument);  // proj_size >= hidden
  EXPECT_THROW(nn::GRU(nn::GRUOptions(3, 4).proj_size(2)), std::invalid_argument);   // LSTM's only
  EXPECT_THROW(nn::RNN(nn::RNNOptions(3, 4).nonlinearity("sigmoid")), std::invalid_argument);
  EXPECT_THROW(nn::LSTM(nn::LSTMOptions(3, 4).nonlinearity("relu")), std::invalid_argument);  // RNN's only
  EXPECT_THROW(nn::GRU(3, 0), std::invalid_argument);
  nn::LSTMCell cell(3, 4);
  EXPECT_THROW(cell.forward(randn({2, 5})), std::runtime_error);
  EXPECT_THROW(cell.forward(randn({2, 3}), randn({3, 4}), randn({2, 4})), std::runtime_error);
}

TEST(RNN, ReprsAreTorchs) {
  EXPECT_EQ(nn::LSTM(nn::LSTMOptions(10, 20)
                         .num_layers(2)
                         .batch_first(true)
                         .dropout(0.5)
                         .bidirectional(true)
                         .proj_size(5))
                .repr(),
            "LSTM(10, 20, proj_size=5, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True)");
  EXPECT_EQ(nn::GRUCell(nn::GRUCellOptions(3, 4).bias(false)).repr(), "GRUCell(3, 4, bias=False)");
  EXPECT_EQ(nn::RNNCell(nn::RNNCellOptions(3, 4).nonlinearity("relu")).repr(), "RNNCell(3, 4, nonlinearity=relu)");
}
