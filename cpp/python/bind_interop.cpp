// Zero-copy exchange with NumPy (buffer protocol, from_numpy, Tensor.numpy) and with any
// DLPack producer or consumer (PyTorch, NumPy): __dlpack__, __dlpack_device__, from_dlpack.
#include <memory>
#include <optional>
#include <string>

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
    case Dtype::Int32: return "i";
    case Dtype::Int16: return "h";
    case Dtype::Int8: return "b";
    case Dtype::UInt8: return "B";
    case Dtype::Bool: return "?";
    case Dtype::Float16: return "e";
    case Dtype::BFloat16: break;  // NumPy has no bfloat16
  }
  throw py::type_error(str_cat("Got unsupported ScalarType ", scalar_type_name(d)));
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

// Foreign memory as an import describes it, before seqlab borrows it. Every import ends in
// borrow(): from_numpy (and through it tensor(), as_tensor() and any object with the buffer
// protocol, which NumPy reads for them) and from_dlpack.
struct Foreign {
  const char* source;            // "numpy array" or "DLPack tensor", as the messages name it
  void* data;                    // the first element
  std::optional<Dtype> dtype;    // nullopt: a type seqlab does not have
  std::string type_name;         // the source's name for its type, for that error
  bool native_byte_order = true;
  Shape shape;
  Shape byte_strides;
  bool read_only = false;        // the owner does not let us write (Storage::read_only)
  std::shared_ptr<void> owner;   // keeps the memory alive
};

// A tensor over f's memory, without a copy. The kernels read elements through typed pointers and
// strides in elements, so anything they would misread is refused here, in torch.from_numpy's
// words where it has them: types seqlab does not have (TypeError), non-native byte order,
// negative strides or strides that are not a multiple of the element size (ValueError), and
// memory not aligned to the element size (ValueError; torch accepts it, and its kernels then
// crash on some CPUs, pytorch#190043). Copying entries (tensor, as_tensor) convert instead.
Tensor borrow(const Foreign& f) {
  const std::string src = f.source;
  if (!f.dtype)
    throw py::type_error("can't convert " + std::string(src == "numpy array" ? "np.ndarray" : "a DLPack tensor") +
                         " of type " + f.type_name + ". The only supported types are: float64, float32, float16, "
                         "bfloat16, int64, int32, int16, int8, uint8, and bool.");
  if (!f.native_byte_order)
    throw py::value_error("given " + src + " has byte order different from the native byte order. Conversion "
                          "between byte orders is currently not supported.");
  const int64_t isz = static_cast<int64_t>(itemsize(*f.dtype));
  Shape strides;
  int64_t last = 0;  // the offset of the last element, in elements
  for (size_t d = 0; d < f.shape.size(); ++d) {
    const int64_t st = f.byte_strides[d];
    if (f.shape[d] < 0) throw py::value_error("given " + src + " has a negative dimension");
    if (st < 0)
      throw py::value_error("At least one stride in the given " + src + " is negative, and tensors with negative "
                            "strides are not currently supported. (You can probably work around this by making a "
                            "copy of your array  with array.copy().) ");
    if (st % isz != 0)
      throw py::value_error("given " + src + " strides not a multiple of the element byte size. Copy the numpy "
                            "array to reallocate the memory.");
    strides.push_back(st / isz);
    int64_t span = 0;
    if (f.shape[d] > 0 && (__builtin_mul_overflow(f.shape[d] - 1, strides.back(), &span) ||
                           __builtin_add_overflow(last, span, &last)))
      throw py::value_error("given " + src + " spans more memory than an int64 can address");
  }
  const int64_t numel = shape_numel(f.shape);  // raises on overflow
  if (numel > 0 && reinterpret_cast<uintptr_t>(f.data) % static_cast<uintptr_t>(isz) != 0)
    throw py::value_error("given " + src + " is not aligned: its data does not start at a multiple of its element "
                          "size (" + std::to_string(isz) + " bytes). Copy the array (array.copy()) to get aligned "
                          "memory.");
  const size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(last + 1) * static_cast<size_t>(isz);
  Tensor t = Tensor::from_blob(f.data, f.shape, strides, *f.dtype, f.owner, nbytes);
  t.impl()->storage->read_only = f.read_only;
  return t;
}

std::optional<Dtype> numpy_dtype(const py::dtype& dt) {
  if (dt.kind() == 'f' && dt.itemsize() == 4) return Dtype::Float32;
  if (dt.kind() == 'f' && dt.itemsize() == 8) return Dtype::Float64;
  if (dt.kind() == 'f' && dt.itemsize() == 2) return Dtype::Float16;
  if (dt.kind() == 'i' && dt.itemsize() == 8) return Dtype::Int64;
  if (dt.kind() == 'i' && dt.itemsize() == 4) return Dtype::Int32;
  if (dt.kind() == 'i' && dt.itemsize() == 2) return Dtype::Int16;
  if (dt.kind() == 'i' && dt.itemsize() == 1) return Dtype::Int8;
  if (dt.kind() == 'u' && dt.itemsize() == 1) return Dtype::UInt8;
  if (dt.kind() == 'b' && dt.itemsize() == 1) return Dtype::Bool;
  return std::nullopt;
}

// A NumPy array's memory as borrow() takes it, its elements read as `dtype` (nullopt: a type
// seqlab does not have, which borrow() refuses naming the array's type).
Foreign foreign_array(const py::array& arr, std::optional<Dtype> dtype) {
  Foreign f{"numpy array", const_cast<void*>(arr.data())};
  f.dtype = dtype;
  f.type_name = "numpy." + std::string(py::str(arr.dtype().attr("type").attr("__name__")));
  f.native_byte_order = arr.dtype().attr("isnative").cast<bool>();
  for (ssize_t i = 0; i < arr.ndim(); ++i) {
    f.shape.push_back(arr.shape(i));
    f.byte_strides.push_back(arr.strides(i));
  }
  f.read_only = !arr.writeable();
  f.owner = keep_alive(arr);
  return f;
}

std::optional<Dtype> dlpack_dtype(const DLDataType& t) {
  if (t.lanes != 1) return std::nullopt;
  if (t.code == kDLFloat && t.bits == 32) return Dtype::Float32;
  if (t.code == kDLFloat && t.bits == 64) return Dtype::Float64;
  if (t.code == kDLFloat && t.bits == 16) return Dtype::Float16;
  if (t.code == kDLBfloat && t.bits == 16) return Dtype::BFloat16;
  if (t.code == kDLInt && t.bits == 64) return Dtype::Int64;
  if (t.code == kDLInt && t.bits == 32) return Dtype::Int32;
  if (t.code == kDLInt && t.bits == 16) return Dtype::Int16;
  if (t.code == kDLInt && t.bits == 8) return Dtype::Int8;
  if (t.code == kDLUInt && t.bits == 8) return Dtype::UInt8;
  if (t.code == kDLBool && t.bits == 8) return Dtype::Bool;
  return std::nullopt;
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
                           static_cast<ssize_t>(shape.size()), shape, strides, impl.storage->read_only);
  });

  cls.def("numpy", [](const Tensor& t, bool force) {
    if (!force) check_numpy_ok(*t.impl());
    const ssize_t isz = static_cast<ssize_t>(itemsize(t.dtype()));
    std::vector<ssize_t> shape(t.shape().begin(), t.shape().end()), strides;
    for (int64_t s : t.strides()) strides.push_back(s * isz);
    // The array keeps the tensor (its Python object) alive, and stays read-only where it is.
    py::array out(py::dtype(buffer_format(t.dtype())), shape, strides, t.raw_data(), py::cast(t));
    if (t.impl()->storage->read_only) out.attr("setflags")(py::arg("write") = false);
    return out;
  }, py::kw_only(), py::arg("force") = false,
        "A NumPy array sharing this tensor's memory (torch.Tensor.numpy); refuses tensors that require grad\n"
        "unless force=True.");

  m.def("from_numpy", [](py::object obj) {
    if (!py::isinstance<py::array>(obj))
      throw py::type_error("expected np.ndarray (got " + type_name(obj) + ")");
    auto arr = py::reinterpret_borrow<py::array>(obj);
    return borrow(foreign_array(arr, numpy_dtype(arr.dtype())));
  }, py::arg("ndarray"),
        "A tensor sharing the NumPy array's memory, zero-copy (torch.from_numpy).");

  // The bytes of a NumPy array read as `dtype`, of the same element size, zero-copy: how
  // serialization loads BF16 entries bit for bit (NumPy has no bfloat16 of its own); private,
  // not torch.from_numpy, which refuses ml_dtypes' bfloat16.
  m.def("_from_numpy_as", [](const py::array& arr, Dtype dtype) {
    SEQLAB_CHECK_TYPE(static_cast<size_t>(arr.itemsize()) == itemsize(dtype), "_from_numpy_as: a ",
                      arr.itemsize(), "-byte element cannot be read as ", dtype_name(dtype));
    return borrow(foreign_array(arr, dtype));
  }, py::arg("ndarray"), py::arg("dtype"));

  cls.def("__dlpack_device__", [](const Tensor&) { return py::make_tuple(static_cast<int>(kDLCPU), 0); },
        "(device type, device id): (kDLCPU, 0).");
  cls.def("__dlpack__", [](const Tensor& t, py::object stream, py::object max_version, py::object dl_device,
                           py::object copy) {
    if (t.requires_grad()) throw py::buffer_error("Can't export tensors that require gradient, use tensor.detach()");
    const bool copied = !copy.is_none() && PyObject_IsTrue(copy.ptr()) == 1;
    // NumPy's rule: the unversioned DLPack this exports cannot mark memory read-only.
    if (t.impl()->storage->read_only && !copied)
      throw py::buffer_error("Cannot export readonly array since signalling readonly is unsupported by DLPack.");
    auto ctx = std::make_unique<DLContext>();
    ctx->tensor = copied ? clone(t) : t;
    const Tensor& out = ctx->tensor;
    ctx->shape = out.shape();
    ctx->strides = out.strides();
    DLTensor& dl = ctx->managed.dl_tensor;
    dl.data = out.impl()->storage->data;
    dl.byte_offset = static_cast<uint64_t>(out.offset()) * itemsize(out.dtype());
    dl.device = {kDLCPU, 0};
    dl.ndim = static_cast<int32_t>(out.dim());
    switch (out.dtype()) {
      case Dtype::Float32: dl.dtype = {kDLFloat, 32, 1}; break;
      case Dtype::Float64: dl.dtype = {kDLFloat, 64, 1}; break;
      case Dtype::Int64: dl.dtype = {kDLInt, 64, 1}; break;
      case Dtype::Int32: dl.dtype = {kDLInt, 32, 1}; break;
      case Dtype::Int16: dl.dtype = {kDLInt, 16, 1}; break;
      case Dtype::Int8: dl.dtype = {kDLInt, 8, 1}; break;
      case Dtype::UInt8: dl.dtype = {kDLUInt, 8, 1}; break;
      case Dtype::Bool: dl.dtype = {kDLBool, 8, 1}; break;
      case Dtype::Float16: dl.dtype = {kDLFloat, 16, 1}; break;
      case Dtype::BFloat16: dl.dtype = {kDLBfloat, 16, 1}; break;
    }
    dl.shape = ctx->shape.data();
    dl.strides = ctx->strides.data();
    ctx->managed.manager_ctx = ctx.get();
    ctx->managed.deleter = [](DLManagedTensor* self) { delete static_cast<DLContext*>(self->manager_ctx); };
    DLManagedTensor* managed = &ctx.release()->managed;
    return py::reinterpret_steal<py::object>(PyCapsule_New(managed, "dltensor", capsule_destructor));
  }, py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
     py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
        "A DLPack capsule sharing this tensor's memory, for another library's from_dlpack.");

  m.def("from_dlpack", [](py::object obj) {
    py::object capsule = py::hasattr(obj, "__dlpack__") ? obj.attr("__dlpack__")() : obj;
    if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
      throw py::type_error("from_dlpack(): argument 'ext_tensor' must be an object with __dlpack__ or an unconsumed "
                           "DLPack capsule, not " + type_name(obj));
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    const DLTensor& dl = managed->dl_tensor;
    if (dl.device.device_type != kDLCPU) throw py::value_error("from_dlpack: seqlab supports CPU tensors only");
    // Consume the capsule: from here the owner below frees the producer's tensor, also when
    // borrow() refuses it.
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
    Foreign f{"DLPack tensor", static_cast<char*>(dl.data) + dl.byte_offset};
    f.dtype = dlpack_dtype(dl.dtype);
    f.type_name = "(code " + std::to_string(dl.dtype.code) + ", bits " + std::to_string(dl.dtype.bits) + ", lanes " +
                  std::to_string(dl.dtype.lanes) + ")";
    f.shape.assign(dl.shape, dl.shape + dl.ndim);
    const Shape elem_strides = dl.strides ? Shape(dl.strides, dl.strides + dl.ndim) : contiguous_strides(f.shape);
    const int64_t isz = f.dtype ? static_cast<int64_t>(itemsize(*f.dtype)) : 1;
    for (int64_t st : elem_strides) {
      int64_t bytes = 0;
      if (__builtin_mul_overflow(st, isz, &bytes)) throw py::value_error("from_dlpack: a stride overflows int64");
      f.byte_strides.push_back(bytes);
    }
    f.owner = std::move(owner);
    return borrow(f);
  }, py::arg("ext_tensor"),
        "A tensor sharing the memory of an object with __dlpack__ (or a DLPack capsule), zero-copy\n"
        "(torch.from_dlpack).");
}

}  // namespace seqlab::bind
