// The DLPack C ABI (https://dmlc.github.io/dlpack/latest/c_api.html), unversioned
// DLManagedTensor: the structs seqlab exchanges with NumPy and PyTorch.
#pragma once
#include <cstdint>

extern "C" {
typedef enum { kDLCPU = 1 } DLDeviceType;
typedef enum { kDLInt = 0U, kDLUInt = 1U, kDLFloat = 2U, kDLBfloat = 4U, kDLBool = 6U } DLDataTypeCode;
typedef struct {
  int32_t device_type;
  int32_t device_id;
} DLDevice;
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL = compact row-major
  uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;
}
