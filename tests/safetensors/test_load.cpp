// fp::safetensors::load: owned tensors from a file or from bytes.
#include <gtest/gtest.h>

#include <cstring>

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

*/

/// A file: the 8-byte length, `header`, then `data`.
std::vector<std::uint8_t> framed(std::string_view header, std::vector<std::uint8_t> data = {}) {
  std::vector<std::uint8_t> file(8 + header.size());
  const std::uint64_t length = header.size();
  std::memcpy(file.data(), &length, 8);
  std::memcpy(file.data() + 8, header.data(), header.size());
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

TEST(SafetensorsLoad, ReadsAPythonFileIntoOwnedTensors) {
  /*
  #|PYTHON
  w = torch.randn(3, 4)
  b = torch.arange(3, dtype=torch.int64)
  data = file_bytes({"weight": w, "bias": b, "empty": torch.zeros(0, 2), "scalar": torch.tensor(0.25)})
  */
  TempDir folder;
  write_file(folder / "python.safetensors", truth<std::vector<std::uint8_t>>("data"));
  fp::StateDict loaded = st::load(folder / "python.safetensors");
  // Header order: the writer sorts by dtype (widest first), then name.
  EXPECT_EQ(loaded.keys(), (std::vector<std::string>{"bias", "empty", "scalar",
                                                     "weight"}));  // #PYTHON header_order(data)
  EXPECT_EQ(loaded.at("weight").to_vector<float>(),
            truth<std::vector<float>>("w.flatten().tolist()"));
  EXPECT_EQ(sizes_of(loaded.at("weight")),
            (std::vector<std::int64_t>{3, 4}));  // #PYTHON list(w.shape)
  EXPECT_EQ(loaded.at("bias").to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 1, 2}));  // #PYTHON b.tolist()
  EXPECT_EQ(sizes_of(loaded.at("empty")), (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(loaded.at("scalar").dim(), 0);
  EXPECT_EQ(loaded.at("scalar").item<float>(), 0.25f);

  // Owned: writing to a loaded tensor changes neither the file nor a second load.
  loaded.at("weight").data_mut<float>()[0] = 100.f;
  EXPECT_NE(st::load(folder / "python.safetensors").at("weight").to_vector<float>()[0], 100.f);
}

TEST(SafetensorsLoad, ReadsBytesInMemory) {
  /*
  #|PYTHON
  x = torch.arange(6, dtype=torch.float16).reshape(2, 3) / 4
  data = file_bytes({"x": x}, metadata={"format": "pt"})
  */
  std::vector<std::uint8_t> bytes = truth<std::vector<std::uint8_t>>("data");
  const fp::StateDict loaded = st::load(as_bytes(bytes));
  std::fill(bytes.begin(), bytes.end(), 0);  // the tensors do not point into the bytes
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded.at("x").dtype(), fp::DType::F16);
  EXPECT_EQ(loaded.at("x").to_vector<float>(), truth<std::vector<float>>("x.flatten().tolist()"));
}

TEST(SafetensorsLoad, KeepsTheHeaderOrderOfHandWrittenFiles) {
  const auto bytes = framed(R"({"z":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},)"
                            R"("a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
                            {7, 9});
  const fp::StateDict loaded = st::load(as_bytes(bytes));
  EXPECT_EQ(loaded.keys(), (std::vector<std::string>{"z", "a"}));
  EXPECT_EQ(loaded.at("z").item<std::uint8_t>(), 9);
  EXPECT_EQ(loaded.at("a").item<std::uint8_t>(), 7);
}

TEST(SafetensorsLoad, ReadsMisalignedTensors) {
  // An I8 then an F32 at data offset 1: not aligned for float, read anyway.
  const float value = 1.5f;
  std::vector<std::uint8_t> data(5);
  data[0] = 0xFF;
  std::memcpy(data.data() + 1, &value, 4);
  const auto bytes = framed(R"({"i":{"dtype":"I8","shape":[1],"data_offsets":[0,1]},)"
                            R"("f":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}})",
                            data);
  TempDir folder;
  write_file(folder / "odd.safetensors", bytes);
  EXPECT_EQ(st::load(folder / "odd.safetensors").at("f").item<float>(), 1.5f);
  EXPECT_EQ(st::load(as_bytes(bytes)).at("i").item<std::int8_t>(), -1);
}

TEST(SafetensorsLoad, ReadsFloat4WithTheLastDimensionHalved) {
  /*
  #|PYTHON
  packed = torch.tensor([[0x21, 0x43], [0x65, 0x87]], dtype=torch.uint8).view(torch.float4_e2m1fn_x2)
  data = file_bytes({"f4": packed})
  */
  const std::vector<std::uint8_t> bytes = truth<std::vector<std::uint8_t>>("data");
  const fp::StateDict loaded = st::load(as_bytes(bytes));
  EXPECT_EQ(st::parse(as_bytes(bytes)).tensors[0].shape, (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(loaded.at("f4").dtype(), fp::DType::F4_E2M1FN_X2);
  EXPECT_EQ(sizes_of(loaded.at("f4")),
            (std::vector<std::int64_t>{2, 2}));  // #PYTHON list(packed.shape)
  EXPECT_EQ(raw_bytes(loaded.at("f4")), (std::vector<std::uint8_t>{0x21, 0x43, 0x65, 0x87}));
}

TEST(SafetensorsLoad, RejectsDtypesTorchLacksNamingThem) {
  const auto f6 =
      framed(R"({"w":{"dtype":"F6_E2M3","shape":[4],"data_offsets":[0,3]}})", {1, 2, 3});
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "fp::safetensors: bytes: tensor \"w\": torch has no dtype for the safetensors dtype F6_E2M3",
      st::load(as_bytes(f6)));
  const auto f4 = framed(R"({"w":{"dtype":"F4","shape":[2,3],"data_offsets":[0,3]}})", {1, 2, 3});
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": F4 shape [2, 3] needs an even last dimension to become torch.float4_e2m1fn_x2",
      st::load(as_bytes(f4)));
}

TEST(SafetensorsLoad, RejectsFilesThatCannotBeRead) {
  TempDir folder;
  EXPECT_FP_ERROR(fp::ErrorCode::Io,
                  "fp::safetensors: " + (folder / "missing.safetensors").string() +
                      ": cannot open the file: No such file or directory",
                  st::load(folder / "missing.safetensors"));
  EXPECT_FP_ERROR(fp::ErrorCode::Io, folder.path().string() + ": not a regular file",
                  st::load(folder.path()));
  write_file(folder / "short.safetensors", {1, 0, 0});
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "short.safetensors: the file has 3 bytes, too few for the 8-byte header length",
                  st::load(folder / "short.safetensors"));
}

TEST(SafetensorsLoad, RejectsATruncatedFileNamingTheTensor) {
  /*
  #|PYTHON
  data = file_bytes({"w": torch.ones(4)})
  */
  std::vector<std::uint8_t> bytes = truth<std::vector<std::uint8_t>>("data");
  bytes.pop_back();
  TempDir folder;
  write_file(folder / "cut.safetensors", bytes);
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "cut.safetensors: tensor \"w\": data_offsets [0, 16] reach past the end of the data (15 "
      "bytes)",
      st::load(folder / "cut.safetensors"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::safetensors: bytes: tensor \"w\": data_offsets [0, 16] reach past the end",
                  st::load(as_bytes(bytes)));
}

}  // namespace
