//===- DType.cpp - element type sizes and names ---------------------------===//
//
// Sizes and lower-case names of the element types in tfrt_dtype. The codes are
// ONNX TensorProto.DataType values; unknown codes have size 0 and the name
// "invalid", so callers can validate a code with tfrt_dtype_size() != 0.
//
//===----------------------------------------------------------------------===//

#include "tfrt/runtime.h"

extern "C" {

TFRT_API size_t tfrt_dtype_size(int32_t dtype) {
  switch (dtype) {
  case TFRT_DTYPE_UINT8:
  case TFRT_DTYPE_INT8:
  case TFRT_DTYPE_BOOL:
    return 1;
  case TFRT_DTYPE_UINT16:
  case TFRT_DTYPE_INT16:
  case TFRT_DTYPE_FLOAT16:
  case TFRT_DTYPE_BFLOAT16:
    return 2;
  case TFRT_DTYPE_FLOAT32:
  case TFRT_DTYPE_INT32:
  case TFRT_DTYPE_UINT32:
    return 4;
  case TFRT_DTYPE_INT64:
  case TFRT_DTYPE_FLOAT64:
  case TFRT_DTYPE_UINT64:
    return 8;
  default:
    return 0;
  }
}

TFRT_API const char *tfrt_dtype_name(int32_t dtype) {
  switch (dtype) {
  case TFRT_DTYPE_FLOAT32:
    return "float32";
  case TFRT_DTYPE_UINT8:
    return "uint8";
  case TFRT_DTYPE_INT8:
    return "int8";
  case TFRT_DTYPE_UINT16:
    return "uint16";
  case TFRT_DTYPE_INT16:
    return "int16";
  case TFRT_DTYPE_INT32:
    return "int32";
  case TFRT_DTYPE_INT64:
    return "int64";
  case TFRT_DTYPE_BOOL:
    return "bool";
  case TFRT_DTYPE_FLOAT16:
    return "float16";
  case TFRT_DTYPE_FLOAT64:
    return "float64";
  case TFRT_DTYPE_UINT32:
    return "uint32";
  case TFRT_DTYPE_UINT64:
    return "uint64";
  case TFRT_DTYPE_BFLOAT16:
    return "bfloat16";
  default:
    return "invalid";
  }
}

} // extern "C"
