// The instruction-set levels seqlab's kernels are compiled for (sse2, avx2 = AVX2+FMA, avx512 =
// AVX-512F), the best one this CPU has, and the cap that every dispatcher obeys: SEQLAB_ISA in
// the environment, or set_isa() (the tests run each kernel once per level the CPU has).
// Like PyTorch's ATEN_CPU_CAPABILITY. Tests: tests/test_isa.py, cpp/tests/test_isa.cpp.
#pragma once
#include <string>
#include <vector>

namespace seqlab::simd {

enum class Isa : int { sse2 = 0, avx2 = 1, avx512 = 2 };

// The best level this CPU and the OS support (AVX-512 needs the OS to save its registers).
Isa cpu_isa();
// The level the dispatchers use now: SEQLAB_ISA's or set_isa's cap, else cpu_isa().
Isa active_isa();
// Caps every dispatcher at `isa` from the next kernel call on. Kernels already running finish
// with the level they started with; call it between ops, not while another thread computes.
// std::invalid_argument if the CPU lacks `isa`.
void set_isa(Isa isa);
// Reads SEQLAB_ISA (sse2, avx2, avx512; unset or empty: the CPU's best) and applies it;
// std::invalid_argument naming the value and what the CPU has when unknown or unsupported.
// (SEQLAB_TEST_CPU_ISA=<level>, for tests, makes cpu_isa() report at most that level.)
// The Python module calls it at import, the C++ tests' main before the tests.
void init_isa_from_env();

const char* isa_name(Isa isa);               // "sse2", "avx2", "avx512"
Isa parse_isa(const std::string& name);      // the inverse; std::invalid_argument otherwise
std::vector<Isa> available_isas();           // every level up to cpu_isa(), lowest first

// Sets the cap for a scope and restores the previous one (the tests' ISA loops).
class IsaGuard {
 public:
  explicit IsaGuard(Isa isa) : previous_(active_isa()) { set_isa(isa); }
  ~IsaGuard() { set_isa(previous_); }
  IsaGuard(const IsaGuard&) = delete;
  IsaGuard& operator=(const IsaGuard&) = delete;

 private:
  Isa previous_;
};

}  // namespace seqlab::simd
