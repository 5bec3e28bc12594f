//===- TfrtRunTest.cpp - tests for the tfrt-run tool ----------------------===//
//
// Drives the tfrt-run executable as a subprocess against fakeadd.so (a
// hand-written model library with inputs a, b: float32 [2,3] and outputs
// "sum/out" = a + b and "count" = 6) and fakefail.so (whose create fails).
// Input files are written by the tests themselves: .npy files of every header
// version and hand-encoded ONNX TensorProto messages. Checks outputs, saved
// .npy files, the benchmark line and every user-facing error.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#ifndef TFRT_RUN_PATH
#error "TFRT_RUN_PATH must name the tfrt-run executable"
#endif
#ifndef FAKEADD_PATH
#error "FAKEADD_PATH must name fakeadd.so"
#endif
#ifndef FAKEFAIL_PATH
#error "FAKEFAIL_PATH must name fakefail.so"
#endif

namespace fs = std::filesystem;

namespace {

/// Result of one tfrt-run invocation.
struct Result {
  int exitCode = -1;
  std::string out;
  std::string err;
};

std::string readText(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

std::string shellQuote(const std::string &text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'')
      quoted += "'\\''";
    else
      quoted += c;
  }
  return quoted + "'";
}

/// Bytes of a .npy file with the given header version, type string, shape
/// tuple text (e.g. "(2, 3)") and data.
std::string npyBytes(const std::string &descr, const std::string &shape,
                     const void *data, size_t bytes, int major = 1) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string file = "\x93NUMPY";
  file += char(major);
  file += '\0';
  size_t length = header.size();
  file += char(length & 0xff);
  file += char((length >> 8) & 0xff);
  if (major != 1) {
    file += char((length >> 16) & 0xff);
    file += char((length >> 24) & 0xff);
  }
  file += header;
  file.append(static_cast<const char *>(data), bytes);
  return file;
}

//===--- Hand encoding of onnx.TensorProto --------------------------------===//

void appendVarint(std::string &out, uint64_t value) {
  while (value >= 0x80) {
    out += char((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += char(value);
}

void appendTag(std::string &out, int field, int wireType) {
  appendVarint(out, uint64_t(field) << 3 | uint64_t(wireType));
}

void appendBytesField(std::string &out, int field, const std::string &bytes) {
  appendTag(out, field, 2);
  appendVarint(out, bytes.size());
  out += bytes;
}

/// TensorProto fields: dims = 1, data_type = 2, float_data = 4,
/// int32_data = 5, int64_data = 7, name = 8, raw_data = 9.
std::string tensorProto(int dataType, const std::vector<int64_t> &dims) {
  std::string out;
  for (int64_t dim : dims) {
    appendTag(out, 1, 0);
    appendVarint(out, uint64_t(dim));
  }
  appendTag(out, 2, 0);
  appendVarint(out, uint64_t(dataType));
  appendBytesField(out, 8, "t");
  return out;
}

class TfrtRunTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tfrt-run-XXXXXX");
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    ASSERT_NE(mkdtemp(buffer.data()), nullptr);
    dir = buffer.data();
    for (int i = 0; i < 6; ++i) {
      a[i] = float(i) + 0.5f;
      b[i] = float(10 * i);
    }
    aPath = writeFile("a.npy", npyBytes("<f4", "(2, 3)", a, sizeof(a)));
    bPath = writeFile("b.npy", npyBytes("<f4", "(2, 3)", b, sizeof(b)));
  }

  void TearDown() override {
    std::error_code ec;
    if (!dir.empty())
      fs::remove_all(dir, ec);
  }

  std::string writeFile(const std::string &name, const std::string &bytes) {
    std::string path = dir + "/" + name;
    std::ofstream file(path, std::ios::binary);
    file.write(bytes.data(), std::streamsize(bytes.size()));
    return path;
  }

  /// Runs tfrt-run with `args` (already split) and captures its output.
  Result run(const std::vector<std::string> &args) {
    std::string command = shellQuote(TFRT_RUN_PATH);
    for (const std::string &arg : args)
      command += " " + shellQuote(arg);
    std::string outPath = dir + "/stdout.txt", errPath = dir + "/stderr.txt";
    command += " >" + shellQuote(outPath) + " 2>" + shellQuote(errPath);
    int status = std::system(command.c_str());
    Result result;
    if (status != -1 && WIFEXITED(status))
      result.exitCode = WEXITSTATUS(status);
    result.out = readText(outPath);
    result.err = readText(errPath);
    return result;
  }

  /// Expects exit status 1 and an "error: " line containing `text`.
  void expectError(const Result &result, const std::string &text) {
    EXPECT_EQ(result.exitCode, 1) << result.out << result.err;
    EXPECT_NE(result.err.find("error: "), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(text), std::string::npos)
        << "stderr was: " << result.err;
  }

  std::string expectedSumLine() const {
    std::string line = "output 'sum/out': float32 [2,3] = [";
    for (int i = 0; i < 6; ++i) {
      char value[32];
      std::snprintf(value, sizeof(value), "%.7g", double(a[i] + b[i]));
      line += (i ? ", " : "") + std::string(value);
    }
    return line + "]";
  }

  std::string dir, aPath, bPath;
  float a[6], b[6];
};

//===----------------------------------------------------------------------===//
// Successful runs
//===----------------------------------------------------------------------===//

TEST_F(TfrtRunTest, NamedInputsPrint) {
  Result result = run({FAKEADD_PATH, "--input", "a=" + aPath, "--input",
                       "b=" + bPath, "--print"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find(expectedSumLine()), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("output 'count': int64 [] = [6]"),
            std::string::npos)
      << result.out;
  EXPECT_EQ(result.err, "");
}

TEST_F(TfrtRunTest, PositionalInputsAndEqualsSyntax) {
  Result result =
      run({FAKEADD_PATH, "--input=" + aPath, "--input", bPath, "--print"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find(expectedSumLine()), std::string::npos)
      << result.out;
}

TEST_F(TfrtRunTest, NamedThenPositionalFillsTheRest) {
  // b by name, then the positional file goes to the first unassigned: a.
  Result result =
      run({FAKEADD_PATH, "--input", "b=" + bPath, "--input", aPath, "--print"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find(expectedSumLine()), std::string::npos)
      << result.out;
}

TEST_F(TfrtRunTest, SummaryByDefault) {
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + aPath, "--input", "b=" + bPath});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("output 'sum/out': float32 [2,3], 6 elements, "
                            "min=0.5 max=55.5 mean=28"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("output 'count': int64 [], 1 element, min=6 "
                            "max=6 mean=6"),
            std::string::npos)
      << result.out;
}

TEST_F(TfrtRunTest, OutputDirWritesNpy) {
  std::string outDir = dir + "/out/nested";
  Result result = run({FAKEADD_PATH, "--input", "a=" + aPath, "--input",
                       "b=" + bPath, "--output-dir", outDir});
  ASSERT_EQ(result.exitCode, 0) << result.err;

  float sum[6];
  for (int i = 0; i < 6; ++i)
    sum[i] = a[i] + b[i];
  EXPECT_EQ(readText(outDir + "/sum_out.npy"),
            npyBytes("<f4", "(2, 3)", sum, sizeof(sum)));
  int64_t count = 6;
  EXPECT_EQ(readText(outDir + "/count.npy"),
            npyBytes("<i8", "()", &count, sizeof(count)));
  EXPECT_NE(result.out.find("sum_out.npy"), std::string::npos);
}

TEST_F(TfrtRunTest, NumpyRoundTrip) {
  // Cross-checks the .npy reader and writer against numpy when available.
  std::string python;
  for (const char *candidate : {"/usr/bin/python3", "python3"})
    if (std::system(
            (std::string(candidate) + " -c 'import numpy' >/dev/null 2>&1")
                .c_str()) == 0) {
      python = candidate;
      break;
    }
  if (python.empty())
    GTEST_SKIP() << "python3 with numpy is not available";
  std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "np.save(d + '/na.npy', np.arange(6, dtype=np.float32).reshape(2, 3))\n"
      "np.save(d + '/nb.npy', np.full((2, 3), 2.5, dtype=np.float32))\n";
  writeFile("gen.py", script);
  ASSERT_EQ(std::system((python + " " + shellQuote(dir + "/gen.py") + " " +
                         shellQuote(dir))
                            .c_str()),
            0);
  Result result = run({FAKEADD_PATH, "--input", dir + "/na.npy", "--input",
                       dir + "/nb.npy", "--output-dir", dir + "/o"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  std::string check =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "s = np.load(d + '/o/sum_out.npy')\n"
      "c = np.load(d + '/o/count.npy')\n"
      "assert s.dtype == np.float32 and s.shape == (2, 3), (s.dtype, s.shape)\n"
      "assert (s == np.arange(6).reshape(2, 3) + 2.5).all(), s\n"
      "assert c.dtype == np.int64 and c.shape == () and c == 6, c\n";
  writeFile("check.py", check);
  EXPECT_EQ(std::system((python + " " + shellQuote(dir + "/check.py") + " " +
                         shellQuote(dir))
                            .c_str()),
            0);
}

TEST_F(TfrtRunTest, NpyVersions2And3) {
  std::string a2 =
      writeFile("a2.npy", npyBytes("<f4", "(2, 3)", a, sizeof(a), 2));
  std::string b3 =
      writeFile("b3.npy", npyBytes("<f4", "(2,3)", b, sizeof(b), 3));
  Result result = run(
      {FAKEADD_PATH, "--input", "a=" + a2, "--input", "b=" + b3, "--print"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find(expectedSumLine()), std::string::npos)
      << result.out;
}

TEST_F(TfrtRunTest, TensorProtoInputs) {
  // a via raw_data, b via packed float_data.
  std::string protoA = tensorProto(1, {2, 3});
  appendBytesField(protoA, 9,
                   std::string(reinterpret_cast<char *>(a), sizeof(a)));
  std::string protoB = tensorProto(1, {2, 3});
  appendBytesField(protoB, 4,
                   std::string(reinterpret_cast<char *>(b), sizeof(b)));
  std::string pathA = writeFile("a.pb", protoA);
  std::string pathB = writeFile("b.pb", protoB);
  Result result = run({FAKEADD_PATH, "--input", "a=" + pathA, "--input",
                       "b=" + pathB, "--print"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find(expectedSumLine()), std::string::npos)
      << result.out;
}

TEST_F(TfrtRunTest, TensorProtoWrongCount) {
  std::string proto = tensorProto(1, {2, 3});
  appendBytesField(proto, 4, std::string(reinterpret_cast<char *>(b), 8));
  std::string path = writeFile("short.pb", proto);
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + aPath, "--input", "b=" + path});
  expectError(result, "input 'b' (file '" + path +
                          "'): has 2 values in float_data but float32 [2,3] "
                          "needs 6");
}

TEST_F(TfrtRunTest, TensorProtoWrongDtype) {
  std::string proto = tensorProto(7, {2, 3}); // INT64
  for (int i = 0; i < 6; ++i) {
    appendTag(proto, 7, 0);
    appendVarint(proto, uint64_t(i));
  }
  std::string path = writeFile("ints.pb", proto);
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + path, "--input", "b=" + bPath});
  expectError(result, "dtype int64 does not match the model's float32");
}

TEST_F(TfrtRunTest, LibPrefixIsStripped) {
  std::string copy = dir + "/libfakeadd.so";
  fs::copy_file(FAKEADD_PATH, copy);
  Result result = run({copy, "--input", aPath, "--input", bPath, "--print"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find(expectedSumLine()), std::string::npos);
}

TEST_F(TfrtRunTest, ExplicitName) {
  std::string copy = dir + "/model.so";
  fs::copy_file(FAKEADD_PATH, copy);
  Result result = run({copy, "--name", "fakeadd", "--input", aPath, "--input",
                       bPath, "--print"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find(expectedSumLine()), std::string::npos);
}

TEST_F(TfrtRunTest, Benchmark) {
  Result result = run({FAKEADD_PATH, "--input", aPath, "--input", bPath,
                       "--benchmark=7", "--warmup=2"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  std::regex line("benchmark: runs=7 median_ms=[0-9.]+ min_ms=[0-9.]+ "
                  "max_ms=[0-9.]+( mean_ms=[0-9.]+)?\n");
  EXPECT_TRUE(std::regex_match(result.out, line)) << result.out;
}

TEST_F(TfrtRunTest, Help) {
  Result result = run({"--help"});
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.out.find("usage: tfrt-run"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(TfrtRunTest, WrongShape) {
  std::string path =
      writeFile("a32.npy", npyBytes("<f4", "(3, 2)", a, sizeof(a)));
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + path, "--input", "b=" + bPath});
  expectError(result, "input 'a' (file '" + path +
                          "'): shape [3,2] does not match the model's [2,3]");
}

TEST_F(TfrtRunTest, WrongRank) {
  std::string path = writeFile("a6.npy", npyBytes("<f4", "(6,)", a, sizeof(a)));
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + path, "--input", "b=" + bPath});
  expectError(result, "shape [6] does not match the model's [2,3]");
}

TEST_F(TfrtRunTest, WrongDtype) {
  double wide[6] = {};
  std::string path =
      writeFile("a64.npy", npyBytes("<f8", "(2, 3)", wide, sizeof(wide)));
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + path, "--input", "b=" + bPath});
  expectError(result, "input 'a' (file '" + path +
                          "'): dtype float64 does not match the model's "
                          "float32");
}

TEST_F(TfrtRunTest, UnknownInputName) {
  Result result =
      run({FAKEADD_PATH, "--input", "c=" + aPath, "--input", "b=" + bPath});
  expectError(result, "unknown input name 'c'");
  EXPECT_NE(result.err.find("'a' (float32 [2,3])"), std::string::npos);
}

TEST_F(TfrtRunTest, DuplicateInput) {
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + aPath, "--input", "a=" + bPath});
  expectError(result, "input 'a' is given more than once");
}

TEST_F(TfrtRunTest, MissingInput) {
  Result result = run({FAKEADD_PATH, "--input", "a=" + aPath});
  expectError(result, "missing input 'b' (float32 [2,3])");
}

TEST_F(TfrtRunTest, TooManyInputs) {
  Result result =
      run({FAKEADD_PATH, "--input", aPath, "--input", bPath, "--input", aPath});
  expectError(result, "too many inputs");
}

TEST_F(TfrtRunTest, MissingFile) {
  std::string path = dir + "/nope.npy";
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + path, "--input", "b=" + bPath});
  expectError(result,
              "input 'a' (file '" + path + "'): No such file or directory");
}

TEST_F(TfrtRunTest, TruncatedNpy) {
  std::string bytes = npyBytes("<f4", "(2, 3)", a, sizeof(a));
  bytes.resize(bytes.size() - 4);
  std::string path = writeFile("short.npy", bytes);
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + path, "--input", "b=" + bPath});
  expectError(result, "holds 20 data bytes but float32 [2,3] needs 24");
}

TEST_F(TfrtRunTest, BigEndianNpy) {
  std::string path =
      writeFile("be.npy", npyBytes(">f4", "(2, 3)", a, sizeof(a)));
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + path, "--input", "b=" + bPath});
  expectError(result, "big-endian dtype '>f4' is not supported");
}

TEST_F(TfrtRunTest, GarbageInputFile) {
  std::string path = writeFile("junk.npy", "this is not numpy");
  Result result =
      run({FAKEADD_PATH, "--input", "a=" + path, "--input", "b=" + bPath});
  expectError(result, "not a .npy file");
}

TEST_F(TfrtRunTest, NonexistentLibrary) {
  std::string path = dir + "/missing.so";
  Result result = run({path, "--input", aPath, "--input", bPath});
  expectError(result, "cannot open model library '" + path +
                          "': No such file or directory");
}

TEST_F(TfrtRunTest, NotASharedLibrary) {
  Result result = run({aPath, "--name", "a"});
  expectError(result, "cannot load model library '" + aPath + "'");
}

TEST_F(TfrtRunTest, WrongName) {
  Result result = run(
      {FAKEADD_PATH, "--name", "other", "--input", aPath, "--input", bPath});
  expectError(result, "does not export 'other_descriptor'");
}

TEST_F(TfrtRunTest, CreateFailureIsReported) {
  Result result = run({FAKEFAIL_PATH, "--input", aPath, "--input", bPath});
  expectError(result,
              "cannot create model 'fakefail': no accelerator available");
}

TEST_F(TfrtRunTest, BadOptions) {
  expectError(run({}), "no model library given");
  expectError(run({FAKEADD_PATH, "--benchmark=0"}), "--benchmark needs");
  expectError(run({FAKEADD_PATH, "--benchmark=x"}), "--benchmark needs");
  expectError(run({FAKEADD_PATH, "--frobnicate"}), "unknown option");
  expectError(run({FAKEADD_PATH, "--input"}), "missing value after --input");
}

} // namespace
