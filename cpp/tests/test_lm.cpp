// The n-gram model's building blocks from C++ (under ASan too): the vocabulary index, the
// n-gram table across its rehashes, and scoring — the batched, prefetching score() must say
// what the one-lookup-at-a-time log10_prob says, and every distribution must sum to 1.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "seqlab/lm/ngram.hpp"
#include "seqlab/text/token_index.hpp"

using namespace seqlab;

TEST(TokenIndex, FindsEveryTokenAcrossGrowthAndKeepsTheFirstOfDuplicates) {
  std::vector<std::string> tokens;
  text::TokenIndex index;
  index.build(tokens);
  EXPECT_EQ(index.find(tokens, "a"), text::TokenIndex::kMissing);
  for (uint32_t i = 0; i < 5000; ++i) {
    tokens.push_back("w" + std::to_string(i) + (i % 7 == 0 ? std::string(20, 'x') : ""));
    index.add(tokens, i);
  }
  for (uint32_t i = 0; i < tokens.size(); ++i) ASSERT_EQ(index.find(tokens, tokens[i]), i);
  EXPECT_EQ(index.find(tokens, "w5000"), text::TokenIndex::kMissing);
  EXPECT_EQ(index.find(tokens, ""), text::TokenIndex::kMissing);
  tokens.push_back("w3");  // a duplicate: build keeps id 3
  text::TokenIndex rebuilt;
  rebuilt.build(tokens);
  EXPECT_EQ(rebuilt.find(tokens, "w3"), 3u);
}

TEST(NGramTable, InsertFindAndCandidateAcrossRehashes) {
  lm::NGramTable table(3);
  std::vector<uint32_t> key(3);
  for (uint32_t i = 0; i < 20000; ++i) {
    key = {i, i * 7 + 1, i % 13};
    bool added;
    ASSERT_EQ(table.insert(key.data(), added), i);
    ASSERT_TRUE(added);
  }
  for (uint32_t i = 0; i < 20000; ++i) {
    key = {i, i * 7 + 1, i % 13};
    ASSERT_EQ(table.find(key.data()), static_cast<int64_t>(i));
    ASSERT_EQ(table.candidate(table.hash(key.data())), static_cast<int64_t>(i));
    bool added;
    ASSERT_EQ(table.insert(key.data(), added), i);
    ASSERT_FALSE(added);
  }
  key = {1, 2, 3};
  EXPECT_EQ(table.find(key.data()), -1);
}

namespace {
lm::NGramModel toy_model(lm::Smoothing smoothing, int order) {
  // "a b c a b d" / "b c" / "c a b" as ids into words {a, b, c, d}.
  std::vector<std::string> words = {"a", "b", "c", "d"};
  std::vector<int32_t> ids = {0, 1, 2, 0, 1, 3, 1, 2, 2, 0, 1};
  std::vector<int64_t> offsets = {0, 6, 8, 11};
  lm::BuildOptions opt;
  opt.order = order;
  opt.smoothing = smoothing;
  return lm::NGramModel::build(words, ids.data(), offsets.data(), 3, opt);
}
}  // namespace

class NGramScore : public ::testing::TestWithParam<std::tuple<lm::Smoothing, int>> {};

TEST_P(NGramScore, BatchedScoreEqualsOneLookupAtATimeAndDistributionsSumToOne) {
  auto [smoothing, order] = GetParam();
  lm::NGramModel m = toy_model(smoothing, order);
  const uint32_t a = m.id("a"), b = m.id("b"), c = m.id("c"), d = m.id("d");
  std::vector<std::vector<uint32_t>> sentences = {{a, b, c}, {d, d, a, b, d}, {}, {c, lm::kUnk, b}, {a}};
  for (const auto& s : sentences)
    for (bool bos : {true, false})
      for (bool eos : {true, false}) {
        std::vector<double> got(s.size() + 1);
        std::vector<int> len(s.size() + 1);
        m.score(s.data(), s.size(), bos, eos, got.data(), len.data());
        std::vector<uint32_t> hist;
        if (bos) hist.push_back(lm::kBos);
        for (size_t i = 0; i < s.size() + (eos ? 1 : 0); ++i) {
          const uint32_t w = i == s.size() ? lm::kEos : s[i];
          int want_len = 0;
          const double want = m.log10_prob(hist.data(), hist.size(), w, &want_len);
          if (std::isinf(want))
            EXPECT_EQ(got[i], want) << "token " << i;  // MLE: an unseen word after a seen history
          else
            EXPECT_NEAR(got[i], want, 1e-5) << "token " << i;
          EXPECT_EQ(len[i], want_len) << "token " << i;
          hist.push_back(w);
        }
      }
  // p(. | h) sums to 1 over the vocabulary without <s>, for seen and unseen histories.
  std::vector<std::vector<uint32_t>> histories = {{}, {a}, {lm::kBos, a}, {a, b}, {d, d}, {lm::kUnk}};
  for (const auto& h : histories) {
    double total = 0;
    for (double lp : m.distribution(h.data(), h.size())) total += std::pow(10.0, lp);
    EXPECT_NEAR(total, 1.0, 1e-5) << "history of " << h.size() << " ids starting " << (h.empty() ? -1 : int(h[0]));
  }
}

INSTANTIATE_TEST_SUITE_P(Smoothings, NGramScore,
                         ::testing::Combine(::testing::Values(lm::Smoothing::KneserNey, lm::Smoothing::WittenBell,
                                                              lm::Smoothing::Katz, lm::Smoothing::MLE,
                                                              lm::Smoothing::AddK),
                                            ::testing::Values(1, 2, 3, 5)));

TEST(NGramModel, BuildRejectsBadInputWithClearErrors) {
  std::vector<std::string> words = {"a"};
  std::vector<int32_t> ids = {0};
  std::vector<int64_t> offsets = {0, 0};
  lm::BuildOptions opt;
  EXPECT_THROW(lm::NGramModel::build(words, ids.data(), offsets.data(), 1, opt), std::exception);  // empty
  offsets = {0, 1};
  opt.order = 0;
  EXPECT_THROW(lm::NGramModel::build(words, ids.data(), offsets.data(), 1, opt), std::exception);
}
