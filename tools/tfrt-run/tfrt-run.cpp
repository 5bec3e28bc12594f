//===- tfrt-run.cpp - run a model compiled with --emit=shared -------------===//
//
// Loads DIR/NAME.so produced by `tfrt-compile MODEL --name NAME --emit=shared`,
// reads the model's inputs from .npy or ONNX TensorProto (.pb) files, checks
// them against the model's descriptor, runs the model through the exported
// NAME_create / NAME_run / NAME_destroy entry points and prints, saves (.npy)
// or benchmarks the outputs. Every failure is reported as "error: ..." on
// stderr with exit status 1; the tool never throws on its own.
//
//===----------------------------------------------------------------------===//

#include "tfrt/async.h"
#include "tfrt/cuda.h"
#include "tfrt/profile.h"
#include "tfrt/runtime.h"

#include <onnx/onnx_pb.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Diagnostics and small helpers
//===----------------------------------------------------------------------===//

/// Prints "error: <message>" to stderr and returns false, so callers can write
/// `return fail(...)`.
bool fail(const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return false;
}

/// Like fail(), for functions returning an exit status.
int failWith1(const std::string &message) {
  fail(message);
  return 1;
}

std::string quote(const std::string &text) { return "'" + text + "'"; }

std::string formatShape(const int64_t *dims, int32_t rank) {
  std::string text = "[";
  for (int32_t i = 0; i < rank; ++i) {
    if (i)
      text += ",";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

std::string formatShape(const std::vector<int64_t> &dims) {
  return formatShape(dims.data(), int32_t(dims.size()));
}

/// Number of elements of a shape; false on negative dims or overflow.
bool elementCount(const std::vector<int64_t> &dims, size_t &count) {
  count = 1;
  for (int64_t dim : dims) {
    if (dim < 0)
      return false;
    if (dim != 0 && count > SIZE_MAX / size_t(dim))
      return false;
    count *= size_t(dim);
  }
  return true;
}

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool startsWith(const std::string &text, const std::string &prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

/// Parses a non-negative decimal integer that fits in an int.
bool parseCount(const std::string &text, int &value) {
  if (text.empty() || text.size() > 9)
    return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

/// Reads a whole file; false (with `error` set) when it cannot be read.
bool readFile(const std::string &path, std::string &contents,
              std::string &error) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    error = std::strerror(errno);
    return false;
  }
  if (S_ISDIR(info.st_mode)) {
    error = "is a directory";
    return false;
  }
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = std::strerror(errno);
    return false;
  }
  contents.clear();
  char chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    contents.append(chunk, got);
  bool ok = !std::ferror(file);
  std::fclose(file);
  if (!ok)
    error = "read error";
  return ok;
}

//===----------------------------------------------------------------------===//
// Host tensors
//===----------------------------------------------------------------------===//

/// 64-byte aligned, zero-initialized storage for one tensor.
class Buffer {
public:
  Buffer() = default;
  bool allocate(size_t bytes) {
    size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    data.reset(static_cast<char *>(std::aligned_alloc(64, rounded)));
    if (!data)
      return false;
    std::memset(data.get(), 0, rounded);
    size = bytes;
    return true;
  }
  char *get() const { return data.get(); }
  size_t bytes() const { return size; }

private:
  struct FreeDeleter {
    void operator()(char *pointer) const { std::free(pointer); }
  };
  std::unique_ptr<char, FreeDeleter> data;
  size_t size = 0;
};

/// A dense row-major tensor owned by the tool.
struct HostTensor {
  int32_t dtype = TFRT_DTYPE_INVALID;
  std::vector<int64_t> dims;
  Buffer buffer;
};

/// Allocates `tensor`'s buffer for its dtype and dims.
bool allocateTensor(HostTensor &tensor, std::string &error) {
  size_t count;
  size_t elementSize = tfrt_dtype_size(tensor.dtype);
  if (!elementCount(tensor.dims, count) || elementSize == 0 ||
      (count && elementSize > SIZE_MAX / count)) {
    error = "invalid shape " + formatShape(tensor.dims);
    return false;
  }
  if (!tensor.buffer.allocate(count * elementSize)) {
    error = "out of memory allocating " + std::to_string(count * elementSize) +
            " bytes";
    return false;
  }
  return true;
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(float(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(float(mantissa | 0x400), int(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

float bfloat16ToFloat(uint16_t bits) {
  uint32_t word = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &word, sizeof(value));
  return value;
}

/// Formats element `index` of `data` (of `dtype`).
std::string formatElement(int32_t dtype, const char *data, size_t index) {
  char text[64];
  auto load = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, data + index * sizeof(value), sizeof(value));
    return value;
  };
  switch (dtype) {
  case TFRT_DTYPE_FLOAT32:
    std::snprintf(text, sizeof(text), "%.7g", double(load(float())));
    break;
  case TFRT_DTYPE_FLOAT64:
    std::snprintf(text, sizeof(text), "%.15g", load(double()));
    break;
  case TFRT_DTYPE_FLOAT16:
    std::snprintf(text, sizeof(text), "%.5g",
                  double(halfToFloat(load(uint16_t()))));
    break;
  case TFRT_DTYPE_BFLOAT16:
    std::snprintf(text, sizeof(text), "%.4g",
                  double(bfloat16ToFloat(load(uint16_t()))));
    break;
  case TFRT_DTYPE_BOOL:
    return load(uint8_t()) ? "true" : "false";
  case TFRT_DTYPE_INT8:
    return std::to_string(load(int8_t()));
  case TFRT_DTYPE_UINT8:
    return std::to_string(load(uint8_t()));
  case TFRT_DTYPE_INT16:
    return std::to_string(load(int16_t()));
  case TFRT_DTYPE_UINT16:
    return std::to_string(load(uint16_t()));
  case TFRT_DTYPE_INT32:
    return std::to_string(load(int32_t()));
  case TFRT_DTYPE_UINT32:
    return std::to_string(load(uint32_t()));
  case TFRT_DTYPE_INT64:
    return std::to_string(load(int64_t()));
  case TFRT_DTYPE_UINT64:
    return std::to_string(load(uint64_t()));
  default:
    return "?";
  }
  return text;
}

/// Element `index` as a double, for summaries.
double elementValue(int32_t dtype, const char *data, size_t index) {
  auto load = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, data + index * sizeof(value), sizeof(value));
    return value;
  };
  switch (dtype) {
  case TFRT_DTYPE_FLOAT32:
    return load(float());
  case TFRT_DTYPE_FLOAT64:
    return load(double());
  case TFRT_DTYPE_FLOAT16:
    return halfToFloat(load(uint16_t()));
  case TFRT_DTYPE_BFLOAT16:
    return bfloat16ToFloat(load(uint16_t()));
  case TFRT_DTYPE_BOOL:
  case TFRT_DTYPE_UINT8:
    return load(uint8_t());
  case TFRT_DTYPE_INT8:
    return load(int8_t());
  case TFRT_DTYPE_INT16:
    return load(int16_t());
  case TFRT_DTYPE_UINT16:
    return load(uint16_t());
  case TFRT_DTYPE_INT32:
    return load(int32_t());
  case TFRT_DTYPE_UINT32:
    return load(uint32_t());
  case TFRT_DTYPE_INT64:
    return double(load(int64_t()));
  case TFRT_DTYPE_UINT64:
    return double(load(uint64_t()));
  default:
    return 0;
  }
}

//===----------------------------------------------------------------------===//
// .npy files
//===----------------------------------------------------------------------===//

const char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicSize = 6;

/// Maps a numpy type string ("<f4", "|b1", "?") to a dtype.
bool dtypeFromNpyDescr(const std::string &descr, int32_t &dtype,
                       std::string &error) {
  std::string code = descr;
  char order = '=';
  if (!code.empty() && std::strchr("<>|=", code[0])) {
    order = code[0];
    code = code.substr(1);
  }
  static const struct {
    const char *code;
    int32_t dtype;
  } table[] = {
      {"f4", TFRT_DTYPE_FLOAT32}, {"f8", TFRT_DTYPE_FLOAT64},
      {"f2", TFRT_DTYPE_FLOAT16}, {"i1", TFRT_DTYPE_INT8},
      {"i2", TFRT_DTYPE_INT16},   {"i4", TFRT_DTYPE_INT32},
      {"i8", TFRT_DTYPE_INT64},   {"u1", TFRT_DTYPE_UINT8},
      {"u2", TFRT_DTYPE_UINT16},  {"u4", TFRT_DTYPE_UINT32},
      {"u8", TFRT_DTYPE_UINT64},  {"b1", TFRT_DTYPE_BOOL},
      {"?", TFRT_DTYPE_BOOL},
  };
  for (const auto &entry : table) {
    if (code != entry.code)
      continue;
    if (order == '>' && tfrt_dtype_size(entry.dtype) > 1) {
      error = "big-endian dtype '" + descr + "' is not supported";
      return false;
    }
    dtype = entry.dtype;
    return true;
  }
  error = "unsupported numpy dtype '" + descr + "'";
  return false;
}

/// Finds `'key':` in a numpy header dict and returns the text after it.
bool findNpyKey(const std::string &header, const char *key, size_t &valueAt) {
  std::string quoted[] = {std::string("'") + key + "'",
                          std::string("\"") + key + "\""};
  for (const std::string &pattern : quoted) {
    size_t at = header.find(pattern);
    if (at == std::string::npos)
      continue;
    at = header.find(':', at + pattern.size());
    if (at == std::string::npos)
      return false;
    valueAt = at + 1;
    while (valueAt < header.size() && header[valueAt] == ' ')
      ++valueAt;
    return true;
  }
  return false;
}

/// Parses the dict of a .npy header into dtype, shape and order.
bool parseNpyHeader(const std::string &header, HostTensor &tensor,
                    std::string &error) {
  size_t at;
  if (!findNpyKey(header, "descr", at) || at >= header.size() ||
      (header[at] != '\'' && header[at] != '"')) {
    error = "malformed .npy header (no simple 'descr'): " + header;
    return false;
  }
  size_t end = header.find(header[at], at + 1);
  if (end == std::string::npos) {
    error = "malformed .npy header: " + header;
    return false;
  }
  if (!dtypeFromNpyDescr(header.substr(at + 1, end - at - 1), tensor.dtype,
                         error))
    return false;

  bool fortranOrder = false;
  if (findNpyKey(header, "fortran_order", at))
    fortranOrder = header.compare(at, 4, "True") == 0;

  if (!findNpyKey(header, "shape", at) || at >= header.size() ||
      header[at] != '(') {
    error = "malformed .npy header (no 'shape'): " + header;
    return false;
  }
  end = header.find(')', at);
  if (end == std::string::npos) {
    error = "malformed .npy header: " + header;
    return false;
  }
  tensor.dims.clear();
  std::string item;
  std::string tuple = header.substr(at + 1, end - at - 1) + ",";
  for (char c : tuple) {
    if (c != ',') {
      if (c != ' ' && c != 'L')
        item += c;
      continue;
    }
    if (item.empty())
      continue;
    char *stop = nullptr;
    errno = 0;
    long long dim = std::strtoll(item.c_str(), &stop, 10);
    if (*stop || errno || dim < 0) {
      error = "malformed .npy shape '(" + header.substr(at + 1, end - at - 1) +
              ")'";
      return false;
    }
    tensor.dims.push_back(dim);
    item.clear();
  }
  size_t nonTrivial = std::count_if(tensor.dims.begin(), tensor.dims.end(),
                                    [](int64_t dim) { return dim != 1; });
  if (fortranOrder && nonTrivial > 1) {
    error = "Fortran-order arrays are not supported (save with C order)";
    return false;
  }
  return true;
}

/// Reads a .npy file (format versions 1, 2 and 3).
bool readNpy(const std::string &contents, HostTensor &tensor,
             std::string &error) {
  if (contents.size() < 10 ||
      contents.compare(0, kNpyMagicSize, kNpyMagic, kNpyMagicSize) != 0) {
    error = "not a .npy file (bad magic)";
    return false;
  }
  unsigned major = uint8_t(contents[6]);
  size_t headerLength, headerStart;
  const auto byte = [&](size_t i) { return size_t(uint8_t(contents[i])); };
  if (major == 1) {
    headerLength = byte(8) | byte(9) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (contents.size() < 12) {
      error = "truncated .npy header";
      return false;
    }
    headerLength = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    headerStart = 12;
  } else {
    error = "unsupported .npy format version " + std::to_string(major);
    return false;
  }
  if (headerLength > contents.size() - headerStart) {
    error = "truncated .npy header";
    return false;
  }
  std::string header = contents.substr(headerStart, headerLength);
  if (!parseNpyHeader(header, tensor, error) || !allocateTensor(tensor, error))
    return false;
  size_t dataStart = headerStart + headerLength;
  size_t available = contents.size() - dataStart;
  if (available != tensor.buffer.bytes()) {
    error = "holds " + std::to_string(available) + " data bytes but " +
            std::string(tfrt_dtype_name(tensor.dtype)) + " " +
            formatShape(tensor.dims) + " needs " +
            std::to_string(tensor.buffer.bytes());
    return false;
  }
  std::memcpy(tensor.buffer.get(), contents.data() + dataStart, available);
  return true;
}

/// The numpy type string of a dtype; bfloat16 has none and is saved as
/// its raw uint16 bits.
const char *npyDescr(int32_t dtype) {
  switch (dtype) {
  case TFRT_DTYPE_FLOAT32:
    return "<f4";
  case TFRT_DTYPE_FLOAT64:
    return "<f8";
  case TFRT_DTYPE_FLOAT16:
    return "<f2";
  case TFRT_DTYPE_INT8:
    return "|i1";
  case TFRT_DTYPE_INT16:
    return "<i2";
  case TFRT_DTYPE_INT32:
    return "<i4";
  case TFRT_DTYPE_INT64:
    return "<i8";
  case TFRT_DTYPE_UINT8:
    return "|u1";
  case TFRT_DTYPE_UINT16:
  case TFRT_DTYPE_BFLOAT16:
    return "<u2";
  case TFRT_DTYPE_UINT32:
    return "<u4";
  case TFRT_DTYPE_UINT64:
    return "<u8";
  case TFRT_DTYPE_BOOL:
    return "|b1";
  default:
    return nullptr;
  }
}

/// Writes `data` as a version 1.0 .npy file.
bool writeNpy(const std::string &path, int32_t dtype, const int64_t *dims,
              int32_t rank, const char *data, size_t bytes,
              std::string &error) {
  const char *descr = npyDescr(dtype);
  if (!descr) {
    error = std::string("cannot save dtype ") + tfrt_dtype_name(dtype);
    return false;
  }
  std::string shape = "(";
  for (int32_t i = 0; i < rank; ++i)
    shape += std::to_string(dims[i]) + (rank == 1      ? ","
                                        : i + 1 < rank ? ", "
                                                       : "");
  shape += ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that magic + version + length + header is a multiple
  // of 64 bytes, ending in a newline.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xffff) {
    error = "shape too long for a version 1.0 .npy header";
    return false;
  }
  std::string prefix(kNpyMagic, kNpyMagicSize);
  prefix += '\x01';
  prefix += '\x00';
  prefix += char(header.size() & 0xff);
  prefix += char(header.size() >> 8);

  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) {
    error = std::strerror(errno);
    return false;
  }
  bool ok =
      std::fwrite(prefix.data(), 1, prefix.size(), file) == prefix.size() &&
      std::fwrite(header.data(), 1, header.size(), file) == header.size() &&
      (bytes == 0 || std::fwrite(data, 1, bytes, file) == bytes);
  ok = (std::fclose(file) == 0) && ok;
  if (!ok)
    error = "write error";
  return ok;
}

//===----------------------------------------------------------------------===//
// ONNX TensorProto (.pb) files
//===----------------------------------------------------------------------===//

/// Copies a repeated protobuf field into `tensor`, narrowing each value to
/// `Element`. `Field` is the repeated field's type.
template <typename Element, typename Field>
bool copyTypedField(const Field &field, const char *fieldName,
                    HostTensor &tensor, size_t count, std::string &error) {
  if (size_t(field.size()) != count) {
    error = "has " + std::to_string(field.size()) + " values in " + fieldName +
            " but " + std::string(tfrt_dtype_name(tensor.dtype)) + " " +
            formatShape(tensor.dims) + " needs " + std::to_string(count);
    return false;
  }
  char *out = tensor.buffer.get();
  for (size_t i = 0; i < count; ++i) {
    Element value = static_cast<Element>(field.Get(int(i)));
    std::memcpy(out + i * sizeof(Element), &value, sizeof(Element));
  }
  return true;
}

bool readTensorProto(const std::string &contents, HostTensor &tensor,
                     std::string &error) {
  onnx::TensorProto proto;
  if (!proto.ParseFromString(contents)) {
    error = "not a .npy file and not a valid ONNX TensorProto";
    return false;
  }
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    error = "TensorProto with external data is not supported";
    return false;
  }
  if (proto.has_segment()) {
    error = "segmented TensorProto is not supported";
    return false;
  }
  tensor.dtype = proto.data_type();
  if (tfrt_dtype_size(tensor.dtype) == 0) {
    error = "unsupported TensorProto data_type " +
            std::to_string(proto.data_type());
    return false;
  }
  tensor.dims.assign(proto.dims().begin(), proto.dims().end());
  if (!allocateTensor(tensor, error))
    return false;
  size_t count = tensor.buffer.bytes() / tfrt_dtype_size(tensor.dtype);

  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    if (raw.size() != tensor.buffer.bytes()) {
      error = "has " + std::to_string(raw.size()) + " bytes of raw_data but " +
              std::string(tfrt_dtype_name(tensor.dtype)) + " " +
              formatShape(tensor.dims) + " needs " +
              std::to_string(tensor.buffer.bytes());
      return false;
    }
    std::memcpy(tensor.buffer.get(), raw.data(), raw.size());
    return true;
  }
  switch (tensor.dtype) {
  case TFRT_DTYPE_FLOAT32:
    return copyTypedField<float>(proto.float_data(), "float_data", tensor,
                                 count, error);
  case TFRT_DTYPE_FLOAT64:
    return copyTypedField<double>(proto.double_data(), "double_data", tensor,
                                  count, error);
  case TFRT_DTYPE_INT64:
    return copyTypedField<int64_t>(proto.int64_data(), "int64_data", tensor,
                                   count, error);
  case TFRT_DTYPE_INT32:
    return copyTypedField<int32_t>(proto.int32_data(), "int32_data", tensor,
                                   count, error);
  case TFRT_DTYPE_INT16:
    return copyTypedField<int16_t>(proto.int32_data(), "int32_data", tensor,
                                   count, error);
  case TFRT_DTYPE_INT8:
    return copyTypedField<int8_t>(proto.int32_data(), "int32_data", tensor,
                                  count, error);
  case TFRT_DTYPE_UINT16:
  case TFRT_DTYPE_FLOAT16: // bit patterns in the low 16 bits
  case TFRT_DTYPE_BFLOAT16:
    return copyTypedField<uint16_t>(proto.int32_data(), "int32_data", tensor,
                                    count, error);
  case TFRT_DTYPE_UINT8:
    return copyTypedField<uint8_t>(proto.int32_data(), "int32_data", tensor,
                                   count, error);
  case TFRT_DTYPE_BOOL: {
    if (!copyTypedField<uint8_t>(proto.int32_data(), "int32_data", tensor,
                                 count, error))
      return false;
    for (size_t i = 0; i < count; ++i)
      tensor.buffer.get()[i] = tensor.buffer.get()[i] != 0;
    return true;
  }
  case TFRT_DTYPE_UINT32:
    return copyTypedField<uint32_t>(proto.uint64_data(), "uint64_data", tensor,
                                    count, error);
  case TFRT_DTYPE_UINT64:
    return copyTypedField<uint64_t>(proto.uint64_data(), "uint64_data", tensor,
                                    count, error);
  default:
    error = "unsupported TensorProto data_type";
    return false;
  }
}

/// Reads an input file, choosing the format by extension or magic.
bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &error) {
  std::string contents;
  if (!readFile(path, contents, error))
    return false;
  bool isNpy =
      endsWith(path, ".npy") ||
      (contents.size() >= kNpyMagicSize &&
       contents.compare(0, kNpyMagicSize, kNpyMagic, kNpyMagicSize) == 0);
  return isNpy ? readNpy(contents, tensor, error)
               : readTensorProto(contents, tensor, error);
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

struct Options {
  std::string modelPath;
  std::string name;
  std::vector<std::string> inputs; // "name=path" or "path"
  std::string outputDir;
  int benchmarkRuns = 0;
  int warmupRuns = 3;
  int threads = 1;
  bool print = false;
  /// --profile: per-launch timing of a model compiled with --profile.
  bool profile = false;
  double peakGflops = 0;
  std::string profileJson;
};

void printUsage(std::FILE *out) {
  std::fprintf(
      out,
      "usage: tfrt-run MODEL.so [--name NAME] [--input NAME=FILE]...\n"
      "                [--output-dir DIR] [--benchmark=N] [--warmup=K] "
      "[--print]\n"
      "                [--threads=N] [--profile [--peak-gflops=X]\n"
      "                [--profile-json=FILE]]\n"
      "\n"
      "Runs a model compiled with `tfrt-compile --emit=shared`.\n"
      "  --name NAME          symbol prefix of the model (default: the file\n"
      "                       name without extension and leading 'lib')\n"
      "  --input NAME=FILE    input tensor from a .npy or ONNX TensorProto\n"
      "                       (.pb) file; `--input FILE` takes the next\n"
      "                       input in the model's order\n"
      "  --output-dir DIR     write every output as DIR/<output name>.npy\n"
      "  --print              print every output's dtype, shape and first\n"
      "                       16 values\n"
      "  --benchmark=N        time N runs after --warmup=K runs (default 3)\n"
      "  --threads=N          run on N threads: the calling thread and a\n"
      "                       pool of N-1 workers that share the model's\n"
      "                       parallel loops (default 1)\n"
      "  --profile            for a model compiled with --profile: print the\n"
      "                       time per launch over the measured runs (after\n"
      "                       --warmup), sorted by total time\n"
      "  --peak-gflops=X      with --profile: the machine's peak GFLOP/s per\n"
      "                       run thread (measured separately), for a\n"
      "                       percent-of-peak column\n"
      "  --profile-json=FILE  with --profile: also write every entry as "
      "JSON\n");
}

/// Parses argv; returns false after printing an error (or the usage, in which
/// case `exitCode` is 0).
bool parseOptions(int argc, char **argv, Options &options, int &exitCode) {
  exitCode = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    // Splits "--flag=value" or takes the value from the next argument.
    auto value = [&](const char *flag, std::string &out) {
      std::string prefix = std::string(flag) + "=";
      if (startsWith(arg, prefix)) {
        out = arg.substr(prefix.size());
        return true;
      }
      if (arg != flag)
        return false;
      if (i + 1 >= argc) {
        out.clear();
        fail(std::string("missing value after ") + flag);
        exitCode = -1;
        return true;
      }
      out = argv[++i];
      return true;
    };
    std::string text;
    if (arg == "-h" || arg == "--help") {
      printUsage(stdout);
      exitCode = 0;
      return false;
    }
    if (arg == "--print") {
      options.print = true;
    } else if (arg == "--profile") {
      options.profile = true;
    } else if (value("--peak-gflops", text)) {
      if (exitCode < 0)
        return false;
      char *end = nullptr;
      errno = 0;
      options.peakGflops = std::strtod(text.c_str(), &end);
      if (text.empty() || *end || errno || !(options.peakGflops > 0) ||
          !std::isfinite(options.peakGflops))
        return fail("--peak-gflops needs a positive number, got '" + text +
                    "'");
    } else if (value("--profile-json", text)) {
      if (exitCode < 0)
        return false;
      if (text.empty())
        return fail("--profile-json needs a file name");
      options.profileJson = text;
    } else if (value("--name", text)) {
      if (exitCode < 0)
        return false;
      if (text.empty())
        return fail("--name needs a non-empty value");
      options.name = text;
    } else if (value("--input", text)) {
      if (exitCode < 0)
        return false;
      if (text.empty())
        return fail("--input needs NAME=FILE or FILE");
      options.inputs.push_back(text);
    } else if (value("--output-dir", text)) {
      if (exitCode < 0)
        return false;
      if (text.empty())
        return fail("--output-dir needs a directory");
      options.outputDir = text;
    } else if (value("--benchmark", text)) {
      if (exitCode < 0)
        return false;
      if (!parseCount(text, options.benchmarkRuns) ||
          options.benchmarkRuns == 0)
        return fail("--benchmark needs a positive run count, got '" + text +
                    "'");
    } else if (value("--threads", text)) {
      if (exitCode < 0)
        return false;
      if (!parseCount(text, options.threads) || options.threads < 1 ||
          options.threads > 4096)
        return fail("--threads needs a count from 1 to 4096, got '" + text +
                    "'");
    } else if (value("--warmup", text)) {
      if (exitCode < 0)
        return false;
      if (!parseCount(text, options.warmupRuns))
        return fail("--warmup needs a non-negative run count, got '" + text +
                    "'");
    } else if (startsWith(arg, "-") && arg != "-") {
      fail("unknown option '" + arg + "'");
      printUsage(stderr);
      return false;
    } else if (options.modelPath.empty()) {
      options.modelPath = arg;
    } else {
      return fail("unexpected argument '" + arg +
                  "' (inputs are passed with --input NAME=FILE)");
    }
  }
  if (!options.profile &&
      (options.peakGflops > 0 || !options.profileJson.empty()))
    return fail("--peak-gflops and --profile-json need --profile");
  if (options.modelPath.empty()) {
    fail("no model library given");
    printUsage(stderr);
    return false;
  }
  exitCode = 0;
  return true;
}

/// The default symbol prefix: the file name without directories and
/// extension, and without a leading "lib".
std::string defaultModelName(const std::string &path, bool stripLib) {
  std::string stem = path.substr(path.find_last_of('/') + 1);
  size_t dot = stem.find('.');
  if (dot != std::string::npos && dot > 0)
    stem = stem.substr(0, dot);
  if (stripLib && startsWith(stem, "lib") && stem.size() > 3)
    stem = stem.substr(3);
  return stem;
}

//===----------------------------------------------------------------------===//
// The model library
//===----------------------------------------------------------------------===//

using CreateFn = tfrt_status (*)(tfrt_instance **);
using RunFn = tfrt_status (*)(tfrt_instance *, const tfrt_tensor *, size_t,
                              const tfrt_tensor *, size_t);
using DestroyFn = tfrt_status (*)(tfrt_instance *);
using DescriptorFn = const tfrt_model_desc *(*)();
using StatusMessageFn = const char *(*)(tfrt_status);
using StatusFreeFn = void (*)(tfrt_status);

/// A dlopen'ed model library and its entry points.
class ModelLibrary {
public:
  ~ModelLibrary() {
    if (handle)
      dlclose(handle);
  }

  bool open(const std::string &path) {
    struct stat info;
    if (::stat(path.c_str(), &info) != 0)
      return fail("cannot open model library '" + path +
                  "': " + std::strerror(errno));
    // A bare file name would make dlopen search the library path.
    std::string loadPath =
        path.find('/') == std::string::npos ? "./" + path : path;
    dlerror();
    handle = dlopen(loadPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *reason = dlerror();
      return fail("cannot load model library '" + path +
                  "': " + (reason ? reason : "unknown dlopen error"));
    }
    return true;
  }

  /// Resolves NAME_create/run/destroy/descriptor and the status functions.
  bool resolve(const std::string &path, const std::string &prefix) {
    std::string missing;
    void *symbols[4] = {};
    const char *suffixes[4] = {"_descriptor", "_create", "_run", "_destroy"};
    for (int i = 0; i < 4; ++i) {
      dlerror();
      symbols[i] = dlsym(handle, (prefix + suffixes[i]).c_str());
      if (!symbols[i]) {
        const char *reason = dlerror();
        return fail("model library '" + path + "' does not export '" + prefix +
                    suffixes[i] + "'" +
                    (reason ? std::string(" (") + reason + ")" : "") +
                    "; pass --name NAME if the model prefix differs");
      }
    }
    descriptor = reinterpret_cast<DescriptorFn>(symbols[0]);
    create = reinterpret_cast<CreateFn>(symbols[1]);
    run = reinterpret_cast<RunFn>(symbols[2]);
    destroy = reinterpret_cast<DestroyFn>(symbols[3]);
    // Statuses are created by the library's own copy of runtime-lib; read and
    // free them with that copy. The statically linked copy (same layout) is
    // the fallback for a library that does not export them.
    statusMessage =
        reinterpret_cast<StatusMessageFn>(dlsym(handle, "tfrt_status_message"));
    statusFree =
        reinterpret_cast<StatusFreeFn>(dlsym(handle, "tfrt_status_free"));
    if (!statusMessage || !statusFree) {
      statusMessage = tfrt_status_message;
      statusFree = tfrt_status_free;
    }
    return true;
  }

  /// Hands back the text of a status and frees it.
  std::string consume(tfrt_status status) {
    std::string message = statusMessage(status);
    statusFree(status);
    return message.empty() ? "(no message)" : message;
  }

  bool hasSymbol(const std::string &name) {
    dlerror();
    return dlsym(handle, name.c_str()) != nullptr;
  }

  void *handle = nullptr;
  DescriptorFn descriptor = nullptr;
  CreateFn create = nullptr;
  RunFn run = nullptr;
  DestroyFn destroy = nullptr;
  StatusMessageFn statusMessage = nullptr;
  StatusFreeFn statusFree = nullptr;
};

/// Destroys an instance at scope exit.
struct InstanceGuard {
  ModelLibrary &library;
  tfrt_instance *instance = nullptr;
  ~InstanceGuard() {
    if (instance)
      if (tfrt_status status = library.destroy(instance))
        fail("destroying the instance: " + library.consume(status));
  }
};

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

std::string describe(const tfrt_tensor_desc &desc) {
  return std::string(tfrt_dtype_name(desc.dtype)) + " " +
         formatShape(desc.dims, desc.rank);
}

std::string inputName(const tfrt_tensor_desc &desc, size_t index) {
  return desc.name ? std::string(desc.name) : "#" + std::to_string(index);
}

/// Assigns the --input arguments to the model's inputs, reads and validates
/// every file.
bool loadInputs(const Options &options, const tfrt_model_desc &desc,
                std::vector<HostTensor> &inputs) {
  size_t count = desc.num_inputs;
  std::vector<std::string> files(count);
  std::vector<bool> assigned(count, false);
  auto findInput = [&](const std::string &name) -> size_t {
    for (size_t i = 0; i < count; ++i)
      if (desc.inputs[i].name && name == desc.inputs[i].name)
        return i;
    return count;
  };
  auto listInputs = [&] {
    std::string list;
    for (size_t i = 0; i < count; ++i)
      list += (i ? ", " : "") + quote(inputName(desc.inputs[i], i)) + " (" +
              describe(desc.inputs[i]) + ")";
    return count ? list : std::string("none");
  };

  std::vector<std::string> positional;
  for (const std::string &arg : options.inputs) {
    size_t equals = arg.find('=');
    if (equals == std::string::npos) {
      positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(0, equals);
    size_t index = findInput(name);
    if (index == count) {
      struct stat info;
      // A path that merely contains '=' is a positional input.
      if (::stat(arg.c_str(), &info) == 0) {
        positional.push_back(arg);
        continue;
      }
      return fail("unknown input name " + quote(name) + " in --input " + arg +
                  "; the model's inputs are: " + listInputs());
    }
    if (assigned[index])
      return fail("input " + quote(name) + " is given more than once");
    files[index] = arg.substr(equals + 1);
    assigned[index] = true;
    if (files[index].empty())
      return fail("--input " + arg + ": empty file name");
  }
  size_t next = 0;
  for (const std::string &path : positional) {
    while (next < count && assigned[next])
      ++next;
    if (next == count)
      return fail("too many inputs: '" + path + "' has no input left (the " +
                  "model has " + std::to_string(count) + ": " + listInputs() +
                  ")");
    files[next] = path;
    assigned[next] = true;
  }
  for (size_t i = 0; i < count; ++i)
    if (!assigned[i])
      return fail("missing input " + quote(inputName(desc.inputs[i], i)) +
                  " (" + describe(desc.inputs[i]) + "); pass --input " +
                  inputName(desc.inputs[i], i) + "=FILE");

  inputs.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const tfrt_tensor_desc &expected = desc.inputs[i];
    std::string where =
        "input " + quote(inputName(expected, i)) + " (file '" + files[i] + "')";
    std::string error;
    if (!readTensorFile(files[i], inputs[i], error))
      return fail(where + ": " + error);
    HostTensor &tensor = inputs[i];
    // numpy has no bfloat16 and ONNX's own test data stores bfloat16 inputs
    // as uint16: the same 16 bits are taken as they are.
    if (tensor.dtype == TFRT_DTYPE_UINT16 &&
        (expected.dtype == TFRT_DTYPE_BFLOAT16 ||
         expected.dtype == TFRT_DTYPE_FLOAT16))
      tensor.dtype = expected.dtype;
    if (tensor.dtype != expected.dtype)
      return fail(where + ": dtype " + tfrt_dtype_name(tensor.dtype) +
                  " does not match the model's " +
                  tfrt_dtype_name(expected.dtype));
    if (int32_t(tensor.dims.size()) != expected.rank ||
        !std::equal(tensor.dims.begin(), tensor.dims.end(), expected.dims))
      return fail(where + ": shape " + formatShape(tensor.dims) +
                  " does not match the model's " +
                  formatShape(expected.dims, expected.rank));
  }
  return true;
}

/// Checks that the descriptor is usable before anything touches it.
bool checkDescriptor(const std::string &path, const tfrt_model_desc *desc) {
  if (!desc)
    return fail("model library '" + path + "' returned a null descriptor");
  if (desc->abi_version != TFRT_MODEL_ABI_VERSION)
    return fail("model library '" + path + "' has descriptor ABI version " +
                std::to_string(desc->abi_version) + ", tfrt-run expects " +
                std::to_string(TFRT_MODEL_ABI_VERSION));
  const struct {
    const char *kind;
    uint32_t count;
    const tfrt_tensor_desc *tensors;
  } groups[] = {{"input", desc->num_inputs, desc->inputs},
                {"output", desc->num_outputs, desc->outputs}};
  for (const auto &group : groups) {
    if (group.count && !group.tensors)
      return fail("model library '" + path + "' has no " + group.kind +
                  " descriptions");
    for (uint32_t i = 0; i < group.count; ++i) {
      const tfrt_tensor_desc &tensor = group.tensors[i];
      if (tfrt_dtype_size(tensor.dtype) == 0 || tensor.rank < 0 ||
          (tensor.rank > 0 && !tensor.dims))
        return fail("model library '" + path + "' has a malformed " +
                    group.kind + " description #" + std::to_string(i));
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

std::string outputFileName(const tfrt_tensor_desc &desc, size_t index) {
  std::string name = desc.name ? desc.name : "";
  if (name.empty() || name == "." || name == "..")
    name = "output_" + std::to_string(index);
  std::replace(name.begin(), name.end(), '/', '_');
  return name + ".npy";
}

void printOutput(const tfrt_tensor_desc &desc, size_t index,
                 const HostTensor &tensor, bool values) {
  size_t count = tensor.buffer.bytes() / tfrt_dtype_size(tensor.dtype);
  std::string line =
      "output " + quote(inputName(desc, index)) + ": " + describe(desc);
  if (values) {
    line += " = [";
    size_t shown = std::min<size_t>(count, 16);
    for (size_t i = 0; i < shown; ++i)
      line +=
          (i ? ", " : "") + formatElement(tensor.dtype, tensor.buffer.get(), i);
    if (shown < count)
      line += ", ...] (first 16 of " + std::to_string(count) + " values)";
    else
      line += "]";
  } else {
    line +=
        ", " + std::to_string(count) + (count == 1 ? " element" : " elements");
    if (count) {
      double lo = INFINITY, hi = -INFINITY, sum = 0;
      size_t nans = 0;
      for (size_t i = 0; i < count; ++i) {
        double value = elementValue(tensor.dtype, tensor.buffer.get(), i);
        if (std::isnan(value)) {
          ++nans;
          continue;
        }
        lo = std::min(lo, value);
        hi = std::max(hi, value);
        sum += value;
      }
      char stats[160];
      if (nans == count)
        std::snprintf(stats, sizeof(stats), ", all NaN");
      else
        std::snprintf(stats, sizeof(stats), ", min=%.7g max=%.7g mean=%.7g", lo,
                      hi, sum / double(count - nans));
      line += stats;
      if (nans && nans != count)
        line += ", " + std::to_string(nans) + " NaN";
    }
  }
  std::printf("%s\n", line.c_str());
}

bool writeOutputs(const std::string &dir, const tfrt_model_desc &desc,
                  const std::vector<HostTensor> &outputs) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return fail("cannot create output directory '" + dir +
                "': " + ec.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const tfrt_tensor_desc &tensor = desc.outputs[i];
    std::string path = dir + "/" + outputFileName(tensor, i);
    std::string error;
    if (!writeNpy(path, tensor.dtype, tensor.dims, tensor.rank,
                  outputs[i].buffer.get(), outputs[i].buffer.bytes(), error))
      return fail("cannot write output " + quote(inputName(tensor, i)) +
                  " to '" + path + "': " + error);
    if (tensor.dtype == TFRT_DTYPE_BFLOAT16)
      std::fprintf(stderr,
                   "warning: numpy has no bfloat16; '%s' holds the raw bits "
                   "as uint16\n",
                   path.c_str());
    std::printf("wrote %s\n", path.c_str());
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Profiles (models compiled with --profile)
//===----------------------------------------------------------------------===//

/// The profile functions of the model library's own copy of runtime-lib
/// (it owns the instance).
struct ProfileApi {
  decltype(&tfrt_model_profile_desc) table = nullptr;
  decltype(&tfrt_model_profile) read = nullptr;
  decltype(&tfrt_model_profile_reset) reset = nullptr;
};

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (uint8_t(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", unsigned(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// The items of "a,b,c" (none for "").
std::vector<std::string> splitList(const char *commaSeparated) {
  std::vector<std::string> items;
  std::string text = commaSeparated ? commaSeparated : "";
  for (size_t start = 0; !text.empty() && start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string::npos)
      end = text.size();
    items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

/// "a,b,c" as a JSON array of strings.
std::string jsonList(const char *commaSeparated) {
  std::string out = "[";
  for (const std::string &item : splitList(commaSeparated))
    out += (out.size() > 1 ? ", " : "") + jsonString(item);
  return out + "]";
}

std::string truncated(const std::string &text, size_t width) {
  if (text.size() <= width)
    return text;
  return text.substr(0, width - 3) + "...";
}

const char *profileKindName(uint32_t kind) {
  switch (kind) {
  case TFRT_PROFILE_LAUNCH:
    return "launch";
  case TFRT_PROFILE_KERNEL:
    return "kernel";
  default:
    return "inline";
  }
}

/// Prints the profile table (every entry, by total time) and writes the
/// JSON file when asked.
bool reportProfile(const Options &options, const std::string &name,
                   const tfrt_profile_desc &table,
                   const std::vector<tfrt_profile_counter> &counters,
                   uint64_t runs, uint64_t runNanoseconds) {
  std::vector<uint32_t> order(table.num_entries);
  uint64_t byKind[3] = {0, 0, 0};
  for (uint32_t i = 0; i < table.num_entries; ++i) {
    order[i] = i;
    byKind[std::min<uint32_t>(table.entries[i].kind, 2)] +=
        counters[i].nanoseconds;
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return counters[a].nanoseconds > counters[b].nanoseconds;
  });
  auto perRunMs = [&](uint64_t ns) {
    return runs ? double(ns) / 1e6 / double(runs) : 0.0;
  };
  std::string peak;
  if (options.peakGflops > 0) {
    char text[64];
    std::snprintf(text, sizeof(text), ", peak %.2f GFLOP/s",
                  options.peakGflops);
    peak = text;
  }
  std::printf("profile: model '%s', %llu run%s, %.4f ms per run (launches "
              "%.4f ms, inline kernels %.4f ms, other inline code %.4f ms)"
              "%s\n",
              name.c_str(), static_cast<unsigned long long>(runs),
              runs == 1 ? "" : "s", perRunMs(runNanoseconds),
              perRunMs(byKind[TFRT_PROFILE_LAUNCH]),
              perRunMs(byKind[TFRT_PROFILE_KERNEL]),
              perRunMs(byKind[TFRT_PROFILE_INLINE]), peak.c_str());
  std::printf("%5s %-6s %6s %10s %10s %6s %8s %6s  %-24s %s\n", "entry", "kind",
              "calls", "total_ms", "mean_us", "%run", "GFLOP/s", "%peak", "ops",
              "nodes");
  for (uint32_t i : order) {
    const tfrt_profile_entry_desc &e = table.entries[i];
    const tfrt_profile_counter &c = counters[i];
    char gflops[32] = "-", ofPeak[32] = "-";
    if (e.flops > 0 && c.nanoseconds) {
      double g = double(e.flops) * double(c.calls) / double(c.nanoseconds);
      std::snprintf(gflops, sizeof(gflops), "%.2f", g);
      if (options.peakGflops > 0)
        std::snprintf(ofPeak, sizeof(ofPeak), "%.1f",
                      100.0 * g / options.peakGflops);
    }
    std::string nodes = e.nodes ? e.nodes : "";
    if (e.kind == TFRT_PROFILE_INLINE)
      nodes = "(the rest of the inline code)";
    std::printf(
        "%5u %-6s %6llu %10.4f %10.2f %6.2f %8s %6s  %-24s %s\n", i,
        profileKindName(e.kind), static_cast<unsigned long long>(c.calls),
        double(c.nanoseconds) / 1e6,
        c.calls ? double(c.nanoseconds) / 1e3 / double(c.calls) : 0.0,
        runNanoseconds ? 100.0 * double(c.nanoseconds) / double(runNanoseconds)
                       : 0.0,
        gflops, ofPeak, truncated(e.ops ? e.ops : "", 24).c_str(),
        truncated(nodes, 72).c_str());
  }

  if (options.profileJson.empty())
    return true;
  std::string json = "{\n  \"model\": " + jsonString(name) +
                     ",\n  \"runs\": " + std::to_string(runs) +
                     ",\n  \"run_ns\": " + std::to_string(runNanoseconds) +
                     ",\n  \"launches\": " + std::to_string(table.num_launches);
  if (options.peakGflops > 0) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.6g", options.peakGflops);
    json += ",\n  \"peak_gflops\": " + std::string(text);
  }
  json += ",\n  \"entries\": [";
  for (uint32_t i = 0; i < table.num_entries; ++i) {
    const tfrt_profile_entry_desc &e = table.entries[i];
    const tfrt_profile_counter &c = counters[i];
    json += std::string(i ? "," : "") +
            "\n    {\"index\": " + std::to_string(i) + ", \"kind\": \"" +
            profileKindName(e.kind) +
            "\", \"iterations\": " + std::to_string(e.iterations) +
            ", \"flops\": " + std::to_string(e.flops) +
            ", \"calls\": " + std::to_string(c.calls) +
            ", \"ns\": " + std::to_string(c.nanoseconds) +
            ", \"ops\": " + jsonList(e.ops) +
            ", \"nodes\": " + jsonList(e.nodes) + "}";
  }
  json += "\n  ]\n}\n";
  std::FILE *file = std::fopen(options.profileJson.c_str(), "wb");
  if (!file)
    return fail("cannot write '" + options.profileJson +
                "': " + std::strerror(errno));
  bool ok = std::fwrite(json.data(), 1, json.size(), file) == json.size();
  ok = std::fclose(file) == 0 && ok;
  if (!ok)
    return fail("cannot write '" + options.profileJson + "'");
  return true;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

int runTool(const Options &options) {
  ModelLibrary library;
  if (!library.open(options.modelPath))
    return 1;
  std::string name = options.name;
  if (name.empty()) {
    name = defaultModelName(options.modelPath, /*stripLib=*/true);
    std::string unstripped =
        defaultModelName(options.modelPath, /*stripLib=*/false);
    if (unstripped != name && !library.hasSymbol(name + "_descriptor") &&
        library.hasSymbol(unstripped + "_descriptor"))
      name = unstripped;
  }
  if (!library.resolve(options.modelPath, name))
    return 1;
  const tfrt_model_desc *desc = library.descriptor();
  if (!checkDescriptor(options.modelPath, desc))
    return 1;

  std::vector<HostTensor> inputs;
  if (!loadInputs(options, *desc, inputs))
    return 1;
  std::vector<HostTensor> outputs(desc->num_outputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    outputs[i].dtype = desc->outputs[i].dtype;
    outputs[i].dims.assign(desc->outputs[i].dims,
                           desc->outputs[i].dims + desc->outputs[i].rank);
    std::string error;
    if (!allocateTensor(outputs[i], error))
      return failWith1("output " + quote(inputName(desc->outputs[i], i)) +
                       ": " + error);
  }
  auto toTensors = [](std::vector<HostTensor> &tensors) {
    std::vector<tfrt_tensor> result(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i)
      result[i] = {tensors[i].buffer.get(), tensors[i].dtype,
                   int32_t(tensors[i].dims.size()), tensors[i].dims.data()};
    return result;
  };
  std::vector<tfrt_tensor> inputTensors = toTensors(inputs);
  std::vector<tfrt_tensor> outputTensors = toTensors(outputs);

  InstanceGuard guard{library};
  if (tfrt_status status = library.create(&guard.instance)) {
    guard.instance = nullptr;
    return failWith1("cannot create model " + quote(name) + ": " +
                     library.consume(status));
  }
  // The library's own copy of runtime-lib owns the pool its code uses.
  std::unique_ptr<tfrt_pool, void (*)(tfrt_pool *)> pool(nullptr,
                                                         tfrt_pool_destroy);
  if (options.threads > 1) {
    auto poolCreate = reinterpret_cast<decltype(&tfrt_pool_create)>(
        dlsym(library.handle, "tfrt_pool_create"));
    auto poolDestroy = reinterpret_cast<decltype(&tfrt_pool_destroy)>(
        dlsym(library.handle, "tfrt_pool_destroy"));
    auto setPool = reinterpret_cast<decltype(&tfrt_model_set_pool)>(
        dlsym(library.handle, "tfrt_model_set_pool"));
    if (!poolCreate || !poolDestroy || !setPool)
      return failWith1("--threads: model library " + quote(name) +
                       " does not export the thread pool functions "
                       "(tfrt_pool_create, tfrt_model_set_pool)");
    tfrt_pool *created = nullptr;
    if (tfrt_status status = poolCreate(options.threads - 1, &created))
      return failWith1("--threads: cannot start " +
                       std::to_string(options.threads - 1) +
                       " worker threads: " + library.consume(status));
    pool = std::unique_ptr<tfrt_pool, void (*)(tfrt_pool *)>(created,
                                                             poolDestroy);
    if (tfrt_status status = setPool(guard.instance, created))
      return failWith1("--threads: " + library.consume(status));
  }
  ProfileApi profileApi;
  const tfrt_profile_desc *profileTable = nullptr;
  if (options.profile) {
    profileApi.table = reinterpret_cast<decltype(profileApi.table)>(
        dlsym(library.handle, "tfrt_model_profile_desc"));
    profileApi.read = reinterpret_cast<decltype(profileApi.read)>(
        dlsym(library.handle, "tfrt_model_profile"));
    profileApi.reset = reinterpret_cast<decltype(profileApi.reset)>(
        dlsym(library.handle, "tfrt_model_profile_reset"));
    if (profileApi.table)
      profileTable = profileApi.table(desc);
    if (!profileTable || !profileApi.read || !profileApi.reset)
      return failWith1("--profile: model " + quote(name) +
                       " was not compiled with `tfrt-compile --profile`");
  }
  auto runOnce = [&] {
    tfrt_status status =
        library.run(guard.instance, inputTensors.data(), inputTensors.size(),
                    outputTensors.data(), outputTensors.size());
    if (status)
      return fail("running model " + quote(name) + ": " +
                  library.consume(status));
    return true;
  };

  if (options.benchmarkRuns > 0) {
    for (int i = 0; i < options.warmupRuns; ++i)
      if (!runOnce())
        return 1;
    // CUDA models: device time per run from the instance's CUDA events.
    auto cudaTimes =
        (desc->flags & TFRT_MODEL_FLAG_CUDA)
            ? reinterpret_cast<decltype(&tfrt_cuda_last_run_times)>(
                  dlsym(library.handle, "tfrt_cuda_last_run_times"))
            : nullptr;
    if (profileTable)
      if (tfrt_status status = profileApi.reset(guard.instance))
        return failWith1("--profile: " + library.consume(status));
    std::vector<double> times, kernelTimes, copyTimes;
    times.reserve(size_t(options.benchmarkRuns));
    for (int i = 0; i < options.benchmarkRuns; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (!runOnce())
        return 1;
      auto stop = std::chrono::steady_clock::now();
      times.push_back(
          std::chrono::duration<double, std::milli>(stop - start).count());
      float kernels = 0, withCopies = 0;
      if (cudaTimes) {
        if (tfrt_status status =
                cudaTimes(guard.instance, &kernels, &withCopies))
          return failWith1("device timing: " + library.consume(status));
        kernelTimes.push_back(kernels);
        copyTimes.push_back(withCopies);
      }
    }
    // Sorts `v` and returns its median.
    auto sortedMedian = [](std::vector<double> &v) {
      std::sort(v.begin(), v.end());
      size_t n = v.size();
      return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    };
    double median = sortedMedian(times);
    double mean = 0;
    for (double t : times)
      mean += t;
    mean /= double(times.size());
    std::printf("benchmark: runs=%d median_ms=%.4f min_ms=%.4f max_ms=%.4f "
                "mean_ms=%.4f\n",
                options.benchmarkRuns, median, times.front(), times.back(),
                mean);
    if (!kernelTimes.empty())
      std::printf("device: median_kernels_ms=%.4f median_with_copies_ms=%.4f "
                  "(CUDA events on the run's stream)\n",
                  sortedMedian(kernelTimes), sortedMedian(copyTimes));
  } else if (!runOnce()) {
    return 1;
  }

  if (profileTable) {
    std::vector<tfrt_profile_counter> counters(profileTable->num_entries);
    uint64_t runs = 0, runNanoseconds = 0;
    if (tfrt_status status =
            profileApi.read(guard.instance, counters.data(), counters.size(),
                            &runs, &runNanoseconds))
      return failWith1("--profile: " + library.consume(status));
    if (!reportProfile(options, name, *profileTable, counters, runs,
                       runNanoseconds))
      return 1;
  }

  if (!options.outputDir.empty() &&
      !writeOutputs(options.outputDir, *desc, outputs))
    return 1;
  if (options.print || (options.outputDir.empty() && !options.benchmarkRuns))
    for (size_t i = 0; i < outputs.size(); ++i)
      printOutput(desc->outputs[i], i, outputs[i], options.print);
  std::fflush(stdout);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  int exitCode;
  if (!parseOptions(argc, argv, options, exitCode))
    return exitCode == 0 ? 0 : 1;
  return runTool(options);
}
