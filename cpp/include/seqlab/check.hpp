// SEQLAB_CHECK: precondition checks at the API boundary. Each throws a standard exception
// that pybind11 translates as PyTorch would raise it:
//   std::invalid_argument -> ValueError, std::out_of_range -> IndexError,
//   std::domain_error -> TypeError, std::runtime_error -> RuntimeError,
//   seqlab::NotImplementedError -> NotImplementedError (a dtype an op has no kernel for).
//   seqlab::assertion_error -> AssertionError (where torch raises it from Python code).
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include <cstdint>

namespace seqlab {

namespace detail {
inline void cat_to(std::ostringstream&) {}
template <typename T, typename... Rest>
void cat_to(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  cat_to(os, rest...);
}
}  // namespace detail

template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  detail::cat_to(os, args...);
  return os.str();
}

// torch raises NotImplementedError where an op has no kernel for a dtype ("\"floor_vml_cpu\" not
// implemented for 'Bool'"); SEQLAB_CHECK_IMPL throws this, which the bindings translate to it.
struct NotImplementedError : std::logic_error {
  using std::logic_error::logic_error;
};

// What PyTorch raises as AssertionError from Python code (torch.nn.MultiheadAttention's shape
// checks): pybind11 translates it to AssertionError (cpp/python/module.cpp).
class assertion_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// "[2, 3]" as PyTorch prints a size in its messages.
std::string shape_str(const std::vector<int64_t>& shape);

}  // namespace seqlab

#define SEQLAB_CHECK_T(EXC, cond, ...) \
  do {                                 \
    if (!(cond)) throw EXC(::seqlab::str_cat(__VA_ARGS__)); \
  } while (0)

#define SEQLAB_CHECK(cond, ...) SEQLAB_CHECK_T(std::runtime_error, cond, __VA_ARGS__)
#define SEQLAB_CHECK_INDEX(cond, ...) SEQLAB_CHECK_T(std::out_of_range, cond, __VA_ARGS__)
#define SEQLAB_CHECK_IMPL(cond, ...) SEQLAB_CHECK_T(::seqlab::NotImplementedError, cond, __VA_ARGS__)
#define SEQLAB_CHECK_VALUE(cond, ...) SEQLAB_CHECK_T(std::invalid_argument, cond, __VA_ARGS__)
#define SEQLAB_CHECK_ASSERT(cond, ...) SEQLAB_CHECK_T(::seqlab::assertion_error, cond, __VA_ARGS__)
// dtype problems: PyTorch raises RuntimeError for these (TypeError only from argument parsing).
#define SEQLAB_CHECK_TYPE(cond, ...) SEQLAB_CHECK_T(std::runtime_error, cond, __VA_ARGS__)
