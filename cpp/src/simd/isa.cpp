// CPU detection and the SEQLAB_ISA cap (isa.hpp). GCC's __builtin_cpu_supports checks the CPU's
// feature bits and, for AVX and AVX-512, that the OS saves their registers (XGETBV), which
// xsimd 8.1's detection does not.
#include "simd/isa.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace seqlab::simd {

namespace {

Isa detect_hardware() {
#if defined(__GNUC__) && defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return Isa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
#endif
  return Isa::sse2;  // the x86-64 baseline
}

// SEQLAB_TEST_CPU_ISA=<level> makes seqlab behave as on a CPU that has only up to that level, so
// that the tests of what an older CPU refuses run on any machine (an unknown value is ignored
// here and refused by init_isa_from_env).
Isa detect() {
  const Isa hw = detect_hardware();
  const char* env = std::getenv("SEQLAB_TEST_CPU_ISA");
  if (env && *env)
    for (Isa isa : {Isa::sse2, Isa::avx2, Isa::avx512})
      if (std::string(env) == isa_name(isa)) return static_cast<int>(isa) < static_cast<int>(hw) ? isa : hw;
  return hw;
}

// -1 until first use; then the level every dispatcher reads (one relaxed load per kernel call).
std::atomic<int> g_active{-1};

std::string join(const std::vector<Isa>& isas) {
  std::string s;
  for (Isa isa : isas) s += (s.empty() ? "" : ", ") + std::string(isa_name(isa));
  return s;
}

// SEQLAB_ISA's level (unset or empty: the CPU's best); throws as set_isa and parse_isa do.
Isa from_env() {
  const char* env = std::getenv("SEQLAB_ISA");
  const Isa isa = env && *env ? parse_isa(env) : cpu_isa();
  if (static_cast<int>(isa) > static_cast<int>(cpu_isa()))
    throw std::invalid_argument(std::string("SEQLAB_ISA=") + env + ": this CPU does not support " + isa_name(isa) +
                                " (it has " + join(available_isas()) + ")");
  return isa;
}

}  // namespace

Isa cpu_isa() {
  static const Isa best = detect();
  return best;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    default: return "sse2";
  }
}

Isa parse_isa(const std::string& name) {
  for (Isa isa : {Isa::sse2, Isa::avx2, Isa::avx512})
    if (name == isa_name(isa)) return isa;
  throw std::invalid_argument("SEQLAB_ISA: unknown instruction set '" + name +
                              "' (seqlab has sse2, avx2, avx512; this CPU has " + join(available_isas()) + ")");
}

std::vector<Isa> available_isas() {
  std::vector<Isa> out;
  for (int i = 0; i <= static_cast<int>(cpu_isa()); ++i) out.push_back(static_cast<Isa>(i));
  return out;
}

void set_isa(Isa isa) {
  if (static_cast<int>(isa) > static_cast<int>(cpu_isa()))
    throw std::invalid_argument(std::string("set_isa: this CPU does not support ") + isa_name(isa) + " (it has " +
                                join(available_isas()) + ")");
  g_active.store(static_cast<int>(isa), std::memory_order_relaxed);
}

void init_isa_from_env() {
  if (const char* test = std::getenv("SEQLAB_TEST_CPU_ISA"); test && *test) parse_isa(test);
  g_active.store(static_cast<int>(from_env()), std::memory_order_relaxed);
}

Isa active_isa() {
  int v = g_active.load(std::memory_order_relaxed);
  if (v < 0) {  // first use in a C++ program that did not call init_isa_from_env
    Isa isa = cpu_isa();
    try {
      isa = from_env();
    } catch (const std::exception& e) {  // a kernel cannot throw: say so, and use the CPU's best
      std::fprintf(stderr, "seqlab: %s; using %s\n", e.what(), isa_name(isa));
    }
    int expected = -1;
    g_active.compare_exchange_strong(expected, static_cast<int>(isa), std::memory_order_relaxed);
    v = g_active.load(std::memory_order_relaxed);
  }
  return static_cast<Isa>(v);
}

}  // namespace seqlab::simd
