// Zero-copy exchange with NumPy (buffer protocol, from_numpy, Tensor.numpy) and with any
// DLPack producer or consumer (PyTorch, NumPy): __dlpack__, __dlpack_device__, from_dlpack.
#include <memory>

#include <pybind11/numpy.h>

#include "bind_common.hpp"
#include "dlpack.hpp"

namespace seqlab::bind {

namespace {

const char* buffer_format(Dtype d) {
  switch (d) {
    case Dtype::Float32: return "f";
    case Dtype::Float64: return "d";
    case Dtype::Int64: return "q";
    case Dtype::Bool: return "?";
  }
  return "";
}

void check_numpy_ok(const TensorImpl& impl) {
  SEQLAB_CHECK(!(impl.requires_grad || impl.grad_fn),
               "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
}

// A Python object kept alive by a tensor's storage. The last reference to the storage may drop
// where the GIL is released (in a compute call, on a worker), so the deleter takes the GIL; with
// from_dlpack's owner below, the only gil_scoped_* outside bind_common.hpp.
std::shared_ptr<void> keep_alive(py::object o) {
  return std::shared_ptr<void>(new py::object(std::move(o)), [](void* p) {
    auto* obj = static_cast<py::object*>(p);
    if (Py_IsInitialized()) {
      py::gil_scoped_acquire gil;
      delete obj;
    }
  });
}

Dtype numpy_dtype(const py::dtype& dt) {
  if (dt.is(py::dtype::of<float>())) return Dtype::Float32;
  if (dt.kind() == 'f' && dt.itemsize() == 4) return Dtype::Float32;
  if (dt.kind() == 'f' && dt.itemsize() == 8) return Dtype::Float64;
  if (dt.kind() == 'i' && dt.itemsize() == 8) return Dtype::Int64;
  if (dt.kind() == 'b' && dt.itemsize() == 1) return Dtype::Bool;
  throw py::type_error("can't convert np.ndarray of type numpy." + std::string(py::str(dt)) +
                       ". The only supported types are: float64, float32, int64, and bool.");
}

// What a DLManagedTensor exported by seqlab owns: the tensor and its shape/strides arrays.
struct DLContext {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

void capsule_destructor(PyObject* capsule) {
  // Only an unconsumed capsule still owns its tensor.
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (m && m->deleter) m->deleter(m);
  }
}

}  // namespace

void bind_interop(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<TensorImpl, std::shared_ptr<TensorImpl>>>(m.attr("Tensor"));

  cls.def_buffer([](TensorImpl& impl) -> py::buffer_info {
    check_numpy_ok(impl);
    const ssize_t isz = static_cast<ssize_t>(itemsize(impl.dtype));
    std::vector<ssize_t> shape(impl.shape.begin(), impl.shape.end()), strides;
    for (int64_t s : impl.strides) strides.push_back(s * isz);
    return py::buffer_info(static_cast<char*>(impl.storage->data) + impl.offset * isz, isz, buffer_format(impl.dtype),
                           static_cast<ssize_t>(shape.size()), shape, strides, /*readonly=*/false);
  });

  cls.def("numpy", [](py::object self, bool force) {
    Tensor t = self.cast<Tensor>();
    if (!force) check_numpy_ok(*t.impl());
    const ssize_t isz = static_cast<ssize_t>(itemsize(t.dtype()));
    std::vector<ssize_t> shape(t.shape().begin(), t.shape().end()), strides;
    for (int64_t s : t.strides()) strides.push_back(s * isz);
    return py::array(py::dtype(buffer_format(t.dtype())), shape, strides, t.raw_data(), self);
  }, py::kw_only(), py::arg("force") = false);

  m.def("from_numpy", [](py::array arr) {
    const Dtype d = numpy_dtype(arr.dtype());
    const ssize_t isz = arr.itemsize();
    Shape shape, strides;
    for (ssize_t i = 0; i < arr.ndim(); ++i) {
      const ssize_t st = arr.strides(i);
      if (st < 0 || st % isz != 0)
        throw py::value_error("from_numpy: the given NumPy array has negative or non-itemsize-multiple strides, which "
                              "seqlab does not support; pass array.copy() instead");
      shape.push_back(arr.shape(i));
      strides.push_back(st / isz);
    }
    if (!arr.writeable())
      PyErr_WarnEx(PyExc_UserWarning, "The given NumPy array is not writable; writing to the tensor is undefined.", 1);
    return Tensor::from_blob(const_cast<void*>(arr.data()), shape, strides, d, keep_alive(arr),
                             static_cast<size_t>(arr.nbytes()));
  }, py::arg("ndarray"));

  cls.def("__dlpack_device__", [](const Tensor&) { return py::make_tuple(static_cast<int>(kDLCPU), 0); });
  cls.def("__dlpack__", [](const Tensor& t, py::object stream, py::object max_version, py::object dl_device,
                           py::object copy) {
    if (!copy.is_none() && copy.cast<bool>()) throw py::buffer_error("seqlab's __dlpack__ does not copy (copy=True)");
    if (t.requires_grad()) throw py::buffer_error("Can't export tensors that require gradient, use tensor.detach()");
    auto ctx = std::make_unique<DLContext>();
    ctx->tensor = t;
    ctx->shape = t.shape();
    ctx->strides = t.strides();
    DLTensor& dl = ctx->managed.dl_tensor;
    dl.data = t.impl()->storage->data;
    dl.byte_offset = static_cast<uint64_t>(t.offset()) * itemsize(t.dtype());
    dl.device = {kDLCPU, 0};
    dl.ndim = static_cast<int32_t>(t.dim());
    switch (t.dtype()) {
      case Dtype::Float32: dl.dtype = {kDLFloat, 32, 1}; break;
      case Dtype::Float64: dl.dtype = {kDLFloat, 64, 1}; break;
      case Dtype::Int64: dl.dtype = {kDLInt, 64, 1}; break;
      case Dtype::Bool: dl.dtype = {kDLBool, 8, 1}; break;
    }
    dl.shape = ctx->shape.data();
    dl.strides = ctx->strides.data();
    ctx->managed.manager_ctx = ctx.get();
    ctx->managed.deleter = [](DLManagedTensor* self) { delete static_cast<DLContext*>(self->manager_ctx); };
    DLManagedTensor* managed = &ctx.release()->managed;
    return py::reinterpret_steal<py::object>(PyCapsule_New(managed, "dltensor", capsule_destructor));
  }, py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
     py::arg("dl_device") = py::none(), py::arg("copy") = py::none());

  m.def("from_dlpack", [](py::object obj) {
    py::object capsule = py::hasattr(obj, "__dlpack__") ? obj.attr("__dlpack__")() : obj;
    if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
      throw py::type_error("from_dlpack(): argument 'ext_tensor' must be an object with __dlpack__ or an unconsumed "
                           "DLPack capsule, not " + type_name(obj));
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    const DLTensor& dl = managed->dl_tensor;
    if (dl.device.device_type != kDLCPU) throw py::value_error("from_dlpack: seqlab supports CPU tensors only");
    Dtype d;
    if (dl.dtype.lanes != 1) throw py::type_error("from_dlpack: vector dtypes (lanes != 1) are not supported");
    if (dl.dtype.code == kDLFloat && dl.dtype.bits == 32) d = Dtype::Float32;
    else if (dl.dtype.code == kDLFloat && dl.dtype.bits == 64) d = Dtype::Float64;
    else if (dl.dtype.code == kDLInt && dl.dtype.bits == 64) d = Dtype::Int64;
    else if (dl.dtype.code == kDLBool && dl.dtype.bits == 8) d = Dtype::Bool;
    else
      throw py::type_error("from_dlpack: unsupported dtype (code " + std::to_string(dl.dtype.code) + ", bits " +
                           std::to_string(dl.dtype.bits) + "); seqlab has float32, float64, int64 and bool");
    Shape shape(dl.shape, dl.shape + dl.ndim);
    Shape strides = dl.strides ? Shape(dl.strides, dl.strides + dl.ndim) : contiguous_strides(shape);
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    std::shared_ptr<void> owner(managed, [](void* p) {  // the producer's deleter, with the GIL (see keep_alive)
      auto* mt = static_cast<DLManagedTensor*>(p);
      if (!mt->deleter) return;
      if (Py_IsInitialized()) {
        py::gil_scoped_acquire gil;
        mt->deleter(mt);
      } else {
        mt->deleter(mt);
      }
    });
    void* data = static_cast<char*>(dl.data) + dl.byte_offset;
    return Tensor::from_blob(data, shape, strides, d, owner, 0);
  }, py::arg("ext_tensor"));
}

}  // namespace seqlab::bind
