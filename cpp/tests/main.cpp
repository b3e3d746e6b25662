// The C++ tests' main: every test runs once per instruction set level this CPU has (sse2, avx2,
// avx512; as GoogleTest repetitions, each iteration capping the SIMD dispatchers at one level), so
// an AVX-512 machine checks three kernel paths and an AVX2 machine two. SEQLAB_ISA=<level> runs
// that level only; an explicit --gtest_repeat keeps its own count and cycles through the levels.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "../src/simd/isa.hpp"

namespace {

class IsaPerIteration : public testing::EmptyTestEventListener {
 public:
  explicit IsaPerIteration(std::vector<seqlab::simd::Isa> isas) : isas_(std::move(isas)) {}
  void OnTestIterationStart(const testing::UnitTest&, int iteration) override {
    const seqlab::simd::Isa isa = isas_[static_cast<size_t>(iteration) % isas_.size()];
    seqlab::simd::set_isa(isa);
    std::printf("[   ISA    ] %s\n", seqlab::simd::isa_name(isa));
  }

 private:
  std::vector<seqlab::simd::Isa> isas_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  try {
    seqlab::simd::init_isa_from_env();
  } catch (const std::exception& e) {  // a bad SEQLAB_ISA: the reason, and a failure
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  const char* env = std::getenv("SEQLAB_ISA");
  const std::vector<seqlab::simd::Isa> isas =
      env && *env ? std::vector<seqlab::simd::Isa>{seqlab::simd::active_isa()} : seqlab::simd::available_isas();
  if (GTEST_FLAG_GET(repeat) == 1) GTEST_FLAG_SET(repeat, static_cast<int>(isas.size()));
  testing::UnitTest::GetInstance()->listeners().Append(new IsaPerIteration(isas));
  return RUN_ALL_TESTS();
}
