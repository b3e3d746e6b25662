// The n-gram model's building blocks from C++ (under ASan too): the vocabulary index, the
// trie (every n-gram of the text found, in sorted runs, with its count), and scoring — the
// stateful score() must say what the one-lookup-at-a-time log10_prob says, and every
// distribution must sum to 1.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
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

// Counts by brute force: every n-gram ending at a predicted token, back to <s> at most.
TEST(NGramTrie, HoldsEveryNGramOfTheTextWithItsCountInSortedRuns) {
  std::vector<std::string> words;
  std::vector<int32_t> ids;
  std::vector<int64_t> offsets = {0};
  uint64_t state = 12345;
  for (int i = 0; i < 30; ++i) words.push_back("w" + std::to_string(i));
  for (int s = 0; s < 400; ++s) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int len = static_cast<int>(state >> 60);  // 0..15 words
    for (int i = 0; i < len; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const uint64_t r = state >> 33;
      ids.push_back(static_cast<int32_t>(r % 7 == 0 ? r % 30 : r % 5));  // skewed: repeats
    }
    offsets.push_back(static_cast<int64_t>(ids.size()));
  }
  lm::BuildOptions opt;
  opt.order = 4;
  opt.smoothing = lm::Smoothing::WittenBell;
  lm::NGramModel m = lm::NGramModel::build(words, ids.data(), offsets.data(), 400, opt);
  std::map<std::vector<uint32_t>, uint32_t> want;
  for (int s = 0; s < 400; ++s) {
    std::vector<uint32_t> sent = {lm::kBos};
    for (int64_t i = offsets[s]; i < offsets[s + 1]; ++i) sent.push_back(ids[i] + 3);
    sent.push_back(lm::kEos);
    for (size_t t = 1; t < sent.size(); ++t)
      for (size_t n = 1; n <= 4 && n <= t + 1; ++n) ++want[std::vector<uint32_t>(sent.begin() + (t + 1 - n), sent.begin() + t + 1)];
  }
  size_t total = 0;
  for (int n = 1; n <= 4; ++n) {
    const lm::Order& o = m.order_table(n);
    const std::vector<uint32_t> keys = m.keys(n);
    ASSERT_EQ(keys.size(), o.size() * n);
    for (size_t e = 0; e < o.size(); ++e) {
      std::vector<uint32_t> key(keys.begin() + e * n, keys.begin() + (e + 1) * n);
      if (e > 0) ASSERT_LT(std::vector<uint32_t>(keys.begin() + (e - 1) * n, keys.begin() + e * n), key);
      ASSERT_EQ(m.find(key.data(), n), static_cast<int64_t>(e));
      auto it = want.find(key);
      if (n == 1 && it == want.end()) {  // every id is a unigram; unseen ones count 0
        EXPECT_EQ(o.count[e], 0u);
        continue;
      }
      ASSERT_NE(it, want.end()) << "order " << n << " entry " << e;
      EXPECT_EQ(o.count[e], it->second);
      ++total;
    }
  }
  EXPECT_EQ(total, want.size());
  const uint32_t missing[] = {3, 3, 3, 3};
  EXPECT_EQ(m.find(missing, 4) >= 0, want.count({3, 3, 3, 3}) > 0);
  const uint32_t beyond[] = {1000};
  EXPECT_EQ(m.find(beyond, 1), -1);
}

// The scorer's hash index says what the trie's binary search (child) says: every n-gram is
// found at the key of its words, and a word that does not continue a context is not.
TEST(NGramIndex, FindsWhatTheTrieFindsAndNothingElse) {
  lm::NGramModel m = toy_model(lm::Smoothing::KneserNey, 5);
  std::vector<lm::Order> orders;
  for (int n = 1; n <= m.order(); ++n) orders.push_back(m.order_table(n));
  lm::NGramIndex index;
  index.build(orders);
  for (int n = 2; n <= m.order(); ++n) {
    const std::vector<uint32_t> keys = m.keys(n);
    for (uint32_t e = 0; e < m.order_table(n).size(); ++e) {
      const uint32_t* words = keys.data() + static_cast<size_t>(e) * n;
      uint64_t context_key = lm::NGramIndex::kRoot;
      for (int k = 0; k < n - 1; ++k) context_key = lm::NGramIndex::extend(context_key, words[k]);
      const int64_t c = m.find(words, n - 1);
      ASSERT_GE(c, 0);
      for (uint32_t w = 0; w < m.vocab().size(); ++w) {
        const int64_t got = index.find(n, lm::NGramIndex::extend(context_key, w), static_cast<uint32_t>(c), w);
        EXPECT_EQ(got, m.child(n - 1, static_cast<uint32_t>(c), w)) << "order " << n << " entry " << e << " word " << w;
      }
    }
  }
}

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
