// Interoperability with Python's safetensors, every dtype, both ways: files
// Python writes load in C++ with the same values, files C++ writes are the
// same bytes and load in Python with the same values.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

#include "helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

using namespace st_test;

/*
#|PYTHON_GLOBAL
import os, tempfile
import safetensors.torch
from truth_safetensors import file_bytes, header_order

EVERY_DTYPE = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.uint16, torch.float16,
               torch.bfloat16, torch.int32, torch.uint32, torch.float32, torch.float64,
               torch.int64, torch.uint64, torch.complex64, torch.float8_e4m3fn,
               torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz,
               torch.float8_e8m0fnu, torch.float4_e2m1fn_x2]

def values_of(dtype):
    if dtype == torch.float4_e2m1fn_x2:
        return torch.arange(6, dtype=torch.uint8).reshape(2, 3).view(dtype)
    base = torch.arange(-3, 3) if dtype.is_signed else torch.arange(0, 6)
    return base.reshape(2, 3).to(dtype)

def every_dtype_tensors():
    return {str(d).removeprefix("torch."): values_of(d) for d in EVERY_DTYPE}

def as_float64(tensor):
    return [v for v in tensor.to(torch.float64).flatten().tolist()]
*/

std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string hex(const std::vector<std::uint8_t>& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (const std::uint8_t byte : bytes) {
    out += digits[byte >> 4];
    out += digits[byte & 15];
  }
  return out;
}

bool has_float64_values(fp::DType dtype) {
  return !fp::is_complex(dtype) && dtype != fp::DType::F4_E2M1FN_X2;
}

TEST(SafetensorsInterop, EveryDtypeMatchesPythonBothWays) {
  /*
  #|PYTHON
  tensors = every_dtype_tensors()
  data = file_bytes(tensors, metadata={"format": "pt"})
  */
  const std::vector<std::uint8_t> python_file = truth<std::vector<std::uint8_t>>("data");
  const fp::StateDict expected = every_dtype_tensors();

  // Python -> C++: the same names, in file order, dtypes, shapes and bytes.
  const fp::StateDict loaded = st::load(as_bytes(python_file));
  EXPECT_EQ(loaded.keys(), truth<std::vector<std::string>>("header_order(data)"));
  ASSERT_EQ(loaded.size(), expected.size());
  for (const auto& [name, tensor] : expected) {
    SCOPED_TRACE(name);
    const fp::Tensor& got = loaded.at(name);
    EXPECT_EQ(got.dtype(), tensor.dtype());
    EXPECT_EQ(sizes_of(got), sizes_of(tensor));
    EXPECT_EQ(raw_bytes(got), raw_bytes(tensor));
  }

  // C++ -> bytes: identical to Python's save_file, through a file and in memory.
  TempDir folder;
  st::save(expected, folder / "cpp.safetensors", {{"format", "pt"}});
  EXPECT_EQ(read_file(folder / "cpp.safetensors"), python_file);
  EXPECT_EQ(as_uint8(st::save_to_bytes(expected, {{"format", "pt"}})), python_file);
}

TEST(SafetensorsInterop, PythonValuesLoadInCppAsFloat64Alike) {
  /*
  #|PYTHON
  tensors = every_dtype_tensors()
  data = file_bytes(tensors)
  names = [n for n, t in tensors.items() if not t.dtype.is_complex and t.dtype != torch.float4_e2m1fn_x2]
  */
  const std::vector<std::uint8_t> python_file = truth<std::vector<std::uint8_t>>("data");
  const std::vector<std::string> names = truth<std::vector<std::string>>("names");
  const std::vector<std::vector<double>> values =
      truth<std::vector<std::vector<double>>>("[as_float64(tensors[n]) for n in names]");
  const fp::StateDict loaded = st::load(as_bytes(python_file));
  ASSERT_EQ(names.size(), values.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    const std::vector<double> got = loaded.at(names[i]).to_vector<double>();
    ASSERT_EQ(got.size(), values[i].size());
    for (std::size_t k = 0; k < got.size(); ++k)
      EXPECT_EQ(format_double(got[k]), format_double(values[i][k]));
  }
}

TEST(SafetensorsInterop, FilesWrittenInCppLoadInPythonWithTheSameValues) {
  TempDir folder;
  const fp::StateDict tensors = every_dtype_tensors();
  const st::Metadata metadata = {{"format", "pt"}, {"source", "flash_powder"}};
  st::save(tensors, folder / "cpp.safetensors", metadata);

  const auto report = nlohmann::json::parse(
      run_python("read_with_python.py", "'" + (folder / "cpp.safetensors").string() + "'"));
  EXPECT_EQ(report["metadata"], nlohmann::json(metadata));
  ASSERT_EQ(report["tensors"].size(), tensors.size());
  for (const auto& [name, tensor] : tensors) {
    SCOPED_TRACE(name);
    const auto& python = report["tensors"][name];
    EXPECT_EQ(python["dtype"], std::string(fp::name(tensor.dtype())));
    EXPECT_EQ(python["shape"].get<std::vector<std::int64_t>>(), sizes_of(tensor));
    EXPECT_EQ(python["bytes"], hex(raw_bytes(tensor)));
    if (has_float64_values(tensor.dtype())) {
      std::vector<std::string> values;
      for (const double value : tensor.to_vector<double>())
        values.push_back(format_double(value));
      EXPECT_EQ(python["values"].get<std::vector<std::string>>(), values);
    }
  }
}

TEST(SafetensorsInterop, MappedFilesReadPythonFilesWithoutCopying) {
  /*
  #|PYTHON
  tensors = every_dtype_tensors()
  data = file_bytes(tensors)
  */
  TempDir folder;
  write_file(folder / "python.safetensors", truth<std::vector<std::uint8_t>>("data"));
  const auto file = st::MappedFile::open(folder / "python.safetensors");
  for (const auto& [name, tensor] : every_dtype_tensors()) {
    SCOPED_TRACE(name);
    const fp::TensorView view = file.get(name);
    EXPECT_EQ(view.dtype(), tensor.dtype());
    EXPECT_EQ(sizes_of(view), sizes_of(tensor));
    EXPECT_EQ(raw_bytes(view), raw_bytes(tensor));
  }
}

}  // namespace
