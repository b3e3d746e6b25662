// C++ modules with no Python: a character-bigram-style MLP built from nn::Embedding,
// nn::LayerNorm, nn::Linear trains with optim::Adam; names and reprs follow PyTorch.
#include <gtest/gtest.h>

#include <cmath>

#include "seqlab/seqlab.hpp"

using namespace seqlab;

namespace {
// A user-defined model, as torch::nn users write them.
struct TinyLM : nn::Module {
  TinyLM(int64_t V, int64_t D, int64_t H) : nn::Module("TinyLM") {
    emb = register_module("emb", std::make_shared<nn::Embedding>(V, D));
    norm = register_module("norm", std::make_shared<nn::LayerNorm>(Shape{D}));
    fc1 = register_module("fc1", std::make_shared<nn::Linear>(D, H));
    fc2 = register_module("fc2", std::make_shared<nn::Linear>(H, V));
  }
  Tensor forward(const Tensor& idx) { return fc2->forward(tanh(fc1->forward(norm->forward(emb->forward(idx))))); }
  std::shared_ptr<nn::Embedding> emb;
  std::shared_ptr<nn::LayerNorm> norm;
  std::shared_ptr<nn::Linear> fc1, fc2;
};
}  // namespace

TEST(NN, ParameterNamesFollowPyTorch) {
  TinyLM m(10, 4, 8);
  std::vector<std::string> names;
  for (auto& [n, t] : m.named_parameters()) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"emb.weight", "norm.weight", "norm.bias", "fc1.weight", "fc1.bias",
                                             "fc2.weight", "fc2.bias"}));
  EXPECT_EQ(m.fc1->weight.shape(), (Shape{8, 4}));
  EXPECT_EQ(m.fc1->repr(), "Linear(in_features=4, out_features=8, bias=True)");
  EXPECT_NE(m.repr().find("  (norm): LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"), std::string::npos);
}

TEST(NN, LinearInitBoundsAreTorchs) {
  manual_seed(0);
  nn::Linear fc(100, 50);
  const float* w = fc.weight.data<float>();
  float mx = 0;
  for (int64_t i = 0; i < fc.weight.numel(); ++i) mx = std::max(mx, std::fabs(w[i]));
  EXPECT_LE(mx, 0.1f);  // 1/sqrt(100)
  EXPECT_GT(mx, 0.095f);
}

TEST(NN, TrainsWithAdamFromCppAlone) {
  manual_seed(1);
  const int64_t V = 6;
  TinyLM model(V, 8, 32);
  optim::Adam opt(model.parameters(), optim::AdamOptions(0.02));
  // next token = (token + 1) mod V: learnable exactly
  Tensor x = arange(0, V, 1, Dtype::Int64);
  Tensor y = Tensor::empty({V}, Dtype::Int64);
  for (int64_t i = 0; i < V; ++i) y.data<int64_t>()[i] = (i + 1) % V;
  double first = 0, last = 0;
  for (int step = 0; step < 150; ++step) {
    opt.zero_grad();
    Tensor loss = cross_entropy(model.forward(x), y);
    loss.backward();
    opt.step();
    if (step == 0) first = loss.item<double>();
    last = loss.item<double>();
  }
  EXPECT_GT(first, 1.0);
  EXPECT_LT(last, 0.05);
}

TEST(NN, StateDictRoundTripAndStrictErrors) {
  TinyLM a(5, 3, 4), b(5, 3, 4);
  b.load_state_dict(a.state_dict());
  EXPECT_EQ(b.fc2->bias.data<float>()[1], a.fc2->bias.data<float>()[1]);
  auto sd = a.state_dict();
  sd.erase("fc1.bias");
  sd["extra"] = zeros({1});
  try {
    b.load_state_dict(sd);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("Error(s) in loading state_dict for TinyLM"), std::string::npos);
    EXPECT_NE(msg.find("Missing key(s) in state_dict: \"fc1.bias\""), std::string::npos);
    EXPECT_NE(msg.find("Unexpected key(s) in state_dict: \"extra\""), std::string::npos);
  }
}

TEST(NN, SequentialChainsAndPrintsLikeTorch) {
  manual_seed(2);
  nn::Sequential seq({std::make_shared<nn::Linear>(4, 8), std::make_shared<nn::GELU>("tanh"),
                      std::make_shared<nn::LayerNorm>(Shape{8}), std::make_shared<nn::Linear>(8, 2)});
  EXPECT_EQ(seq.forward(randn({5, 4})).shape(), (Shape{5, 2}));
  EXPECT_EQ(seq.repr(),
            "Sequential(\n  (0): Linear(in_features=4, out_features=8, bias=True)\n  (1): GELU(approximate='tanh')\n"
            "  (2): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)\n"
            "  (3): Linear(in_features=8, out_features=2, bias=True)\n)");
  EXPECT_EQ(seq.named_parameters()[2].first, "2.weight");
}

TEST(NN, BatchNorm1dNormalisesAndTracksRunningStats) {
  nn::BatchNorm1d bn(nn::BatchNormOptions(3).eps(1e-5).momentum(0.1));
  Tensor x = view(arange(0, 12, 1, Dtype::Float32), {4, 3});  // column c: c, c+3, c+6, c+9
  Tensor y = bn.forward(x);
  Tensor col_mean = mean(y, {0});
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(col_mean.data<float>()[c], 0.0f, 1e-6);
  // running_mean = 0.9 * 0 + 0.1 * (c + 4.5);  running_var = 0.9 * 1 + 0.1 * unbiased var (15)
  EXPECT_NEAR(bn.running_mean.data<float>()[1], 0.55f, 1e-6);
  EXPECT_NEAR(bn.running_var.data<float>()[0], 0.9f + 1.5f, 1e-5);
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);
  bn.eval();
  Tensor z = bn.forward(x);  // uses the running statistics now
  EXPECT_NEAR(z.data<float>()[0], (0.0f - 0.45f) / std::sqrt(2.4f + 1e-5f), 1e-5);
  EXPECT_EQ(bn.repr(), "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)");
}

TEST(NN, DropoutFollowsTrainEval) {
  nn::Dropout d(0.5);
  Tensor x = ones({1000});
  d.eval();
  EXPECT_EQ(sum(d.forward(x)).item<double>(), 1000.0);
  d.train();
  const double s = sum(d.forward(x)).item<double>();
  EXPECT_NEAR(s, 1000.0, 150.0);  // zeros half, doubles the rest
}
