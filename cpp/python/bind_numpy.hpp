// Returning C++ vectors to Python as NumPy arrays without a copy (the array owns the vector).
#pragma once
#include <pybind11/numpy.h>

#include <vector>

#include "bind_common.hpp"

namespace seqlab::bind {

template <class T>
py::array_t<T> move_to_numpy(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({static_cast<py::ssize_t>(heap->size())}, {static_cast<py::ssize_t>(sizeof(T))}, heap->data(),
                        owner);
}

}  // namespace seqlab::bind
