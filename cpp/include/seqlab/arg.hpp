// SEQLAB_ARG: one field of an options struct, as torch's TORCH_ARG
// (torch/csrc/api/include/torch/arg.h). Used by the optimizer options (seqlab/optim/optimizer.hpp).
#pragma once
#include <utility>

// SEQLAB_ARG(T, name) declares a private field `name_`, a getter `name()` and a chainable setter
// `name(value)`; an initializer after it is the default:
//   struct SGDOptions { SEQLAB_ARG(double, momentum) = 0; };
//   SGDOptions().momentum(0.9).momentum()  // 0.9
// It leaves the struct in `private:`, so declare methods before the fields. A type with a comma
// needs an alias first (`using betas_t = std::pair<double, double>;`).
#define SEQLAB_ARG(T, name)          \
 public:                             \
  auto& name(T value) {              \
    name##_ = std::move(value);      \
    return *this;                    \
  }                                  \
  const T& name() const {            \
    return name##_;                  \
  }                                  \
                                     \
 private:                            \
  T name##_
