// fp::safetensors::save: byte for byte Python's save_file, atomic, and
// Python's rules about shared memory.
#include <gtest/gtest.h>
#include <sys/stat.h>

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
from truth_safetensors import file_bytes

def refuses(tensors):
    """Whether save_file refuses `tensors` for sharing memory."""
    try:
        file_bytes(tensors)
        return False
    except RuntimeError as error:
        return "share memory" in str(error)
*/

/// The view `t[begin:end]` (dim 0) sharing t's storage, like Python's slicing.
fp::TensorView slice(const fp::Tensor& t, std::int64_t begin, std::int64_t end) {
  return t.narrow(0, begin, end - begin);
}

std::vector<std::uint8_t> saved(const st::NamedTensors& tensors) {
  TempDir folder;
  st::save(tensors, folder / "t.safetensors");
  return read_file(folder / "t.safetensors");
}

std::vector<std::uint8_t> saved_with(const st::NamedTensors& tensors,
                                     const st::Metadata& metadata) {
  TempDir folder;
  st::save(tensors, folder / "t.safetensors", metadata);
  return read_file(folder / "t.safetensors");
}

TEST(SafetensorsSave, OrdersTensorsByDtypeThenNameAsPython) {
  /*
  #|PYTHON
  tensors = {
      "b": torch.tensor([1.0, 2.0]), "a": torch.tensor([3.0]), "B": torch.tensor([1.5], dtype=torch.float16),
      "_x": torch.tensor([7]), "10": torch.tensor([1], dtype=torch.uint8), "9": torch.tensor([2], dtype=torch.uint8),
      "\u00e9": torch.tensor([4.0]), "flag": torch.tensor([True, False]),
  }
  data = file_bytes(tensors)
  */
  fp::StateDict tensors;
  tensors.insert("b", fp::tensor({1.f, 2.f}));
  tensors.insert("a", fp::tensor({3.f}));
  tensors.insert("B", fp::tensor({1.5f}, fp::DType::F16));
  tensors.insert("_x", fp::tensor({std::int64_t{7}}));
  tensors.insert("10", fp::tensor({std::uint8_t{1}}));
  tensors.insert("9", fp::tensor({std::uint8_t{2}}));
  tensors.insert("\xc3\xa9", fp::tensor({4.f}));
  tensors.insert("flag", fp::tensor({true, false}));
  EXPECT_EQ(saved(tensors), truth<std::vector<std::uint8_t>>("data"));
}

TEST(SafetensorsSave, WritesMetadataAsPython) {
  /*
  #|PYTHON
  w = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
  none = file_bytes({"w": w})
  empty = file_bytes({"w": w}, metadata={})
  one = file_bytes({"w": w}, metadata={"format": "pt"})
  */
  const fp::Tensor w = fp::tensor({{1.f, 2.f}, {3.f, 4.f}});
  TempDir folder;
  st::save({{"w", w}}, folder / "none.safetensors");
  st::save({{"w", w}}, folder / "empty.safetensors", st::Metadata{});
  st::save({{"w", w}}, folder / "one.safetensors", {{"format", "pt"}});
  EXPECT_EQ(read_file(folder / "none.safetensors"), truth<std::vector<std::uint8_t>>("none"));
  EXPECT_EQ(read_file(folder / "empty.safetensors"), truth<std::vector<std::uint8_t>>("empty"));
  EXPECT_EQ(read_file(folder / "one.safetensors"), truth<std::vector<std::uint8_t>>("one"));
}

TEST(SafetensorsSave, WritesManyMetadataKeysInOneOfPythonsOrders) {
  /*
  #|PYTHON
  import json
  metadata = {"z": "1", "a": "2", "m": "\u00e9", "format": "pt"}
  data = bytes(file_bytes({"w": torch.ones(3)}, metadata=metadata))
  # Python writes a dict's keys in a random order (a Rust HashMap); flash_powder
  # sorts them. Python's file with its metadata keys sorted:
  length = int.from_bytes(data[:8], "little")
  header = json.loads(data[8:8 + length])
  header["__metadata__"] = dict(sorted(header["__metadata__"].items()))
  text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
  sorted_python = list(data[:8] + text + b" " * (length - len(text)) + data[8 + length:])
  */
  const fp::Tensor ones = fp::tensor({1.f, 1.f, 1.f});
  const st::Metadata metadata = {{"z", "1"}, {"a", "2"}, {"m", "\xc3\xa9"}, {"format", "pt"}};
  EXPECT_EQ(saved_with({{"w", ones}}, metadata), truth<std::vector<std::uint8_t>>("sorted_python"));
}

TEST(SafetensorsSave, WritesEmptyScalarAndZeroSizeTensorsAsPython) {
  /*
  #|PYTHON
  nothing = file_bytes({})
  odd = file_bytes({"s": torch.tensor(2.5, dtype=torch.float64), "z": torch.zeros(0, 3), "e": torch.zeros(0, dtype=torch.int8)})
  */
  fp::StateDict odd;
  odd.insert("s", fp::tensor(2.5));
  odd.insert("z", fp::Tensor(fp::abi::empty_strided(std::vector<std::int64_t>{0, 3},
                                                    std::vector<std::int64_t>{3, 1}, fp::DType::F32,
                                                    fp::Device::cpu())));
  odd.insert("e", fp::Tensor(fp::abi::empty_strided(std::vector<std::int64_t>{0},
                                                    std::vector<std::int64_t>{1}, fp::DType::I8,
                                                    fp::Device::cpu())));
  EXPECT_EQ(saved(fp::StateDict{}),
            (std::vector<std::uint8_t>{8, 0, 0, 0, 0, 0, 0, 0, 123, 125, 32, 32, 32, 32, 32,
                                       32}));  // #PYTHON nothing
  EXPECT_EQ(saved(odd), truth<std::vector<std::uint8_t>>("odd"));
}

TEST(SafetensorsSave, PacksNonContiguousTensors) {
  /*
  #|PYTHON
  base = torch.arange(6.0)
  strided = base.as_strided([2, 3], [1, 2])
  data = file_bytes({"t": strided.contiguous()})   # Python itself refuses non-contiguous tensors
  */
  const std::vector<float> base = {0.f, 1.f, 2.f, 3.f, 4.f, 5.f};
  const fp::TensorView strided = fp::from_blob(std::span<const float>(base), {2, 3}, {1, 2});
  ASSERT_FALSE(strided.is_contiguous());
  EXPECT_EQ(saved({{"t", strided}}), truth<std::vector<std::uint8_t>>("data"));
}

TEST(SafetensorsSave, WritesTheValuesOfLazilyConjugatedViews) {
  /*
  #|PYTHON
  c = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64)
  data = file_bytes({"c": c.conj().resolve_conj()})
  */
  fp::Tensor with_imag = fp::dispatch<fp::Tensor>("aten::complex", "", fp::tensor({1.f, 3.f}),
                                                  fp::tensor({2.f, -4.f}));
  auto handle = fp::dispatch<fp::abi::TensorHandle>("aten::conj", "", with_imag);
  const fp::TensorView conjugated =
      fp::detail::TensorAccess::view(std::move(handle), nullptr, "test conj");
  ASSERT_TRUE(fp::dispatch<bool>("aten::is_conj", "", conjugated));
  EXPECT_EQ(saved({{"c", conjugated}}), truth<std::vector<std::uint8_t>>("data"));
}

// --- shared memory, as Python -----------------------------------------------------------

TEST(SafetensorsSave, RefusesTwoNamesForOneTensorAsPython) {
  /*
  #|PYTHON
  t = torch.ones(4)
  python_refuses = refuses({"a": t, "b": t})
  */
  const fp::Tensor t = fp::tensor({1.f, 1.f, 1.f, 1.f});
  TempDir folder;
  const bool python_refuses = true;  // #PYTHON python_refuses
  EXPECT_TRUE(python_refuses);
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::safetensors: save: some tensors share memory, which Python's save_file refuses too "
      "(they would be stored twice and load as separate tensors): [{\"a\", \"b\"}]",
      st::save({{"a", t}, {"b", t}}, folder / "t.safetensors"));
  EXPECT_TRUE(folder.files().empty());
}

TEST(SafetensorsSave, RefusesOverlappingViewsButNotDisjointOnesAsPython) {
  /*
  #|PYTHON
  t = torch.arange(6.0)
  overlapping = refuses({"a": t[0:4], "b": t[2:6], "c": torch.ones(1)})
  disjoint = refuses({"a": t[0:2], "b": t[2:6]})
  data = file_bytes({"a": t[0:2], "b": t[2:6]})
  */
  const fp::Tensor t = fp::tensor({0.f, 1.f, 2.f, 3.f, 4.f, 5.f});
  const fp::Tensor one = fp::tensor({1.f});
  const bool python_refuses_overlapping = true;  // #PYTHON overlapping
  const bool python_refuses_disjoint = false;    // #PYTHON disjoint
  EXPECT_TRUE(python_refuses_overlapping);
  EXPECT_FALSE(python_refuses_disjoint);
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "share memory, which Python's save_file refuses too (they would be stored twice and load as "
      "separate tensors): [{\"a\", \"b\"}]",
      st::save_to_bytes({{"a", slice(t, 0, 4)}, {"b", slice(t, 2, 6)}, {"c", one}}));
  EXPECT_EQ(saved({{"a", slice(t, 0, 2)}, {"b", slice(t, 2, 6)}}),
            truth<std::vector<std::uint8_t>>("data"));
}

TEST(SafetensorsSave, SavesCopiesOfOneTensorAsTheIndependentValuesTheyAre) {
  /*
  #|PYTHON
  t = torch.tensor([1.0, 2.0])
  data = file_bytes({"a": t, "b": t.clone()})
  */
  // fp::Tensor copies share memory copy-on-write until one is written; they
  // are independent values, so nothing is tied.
  const fp::Tensor t = fp::tensor({1.f, 2.f});
  fp::StateDict tensors;
  tensors.insert("a", t);
  tensors.insert("b", t);
  EXPECT_EQ(saved(tensors), truth<std::vector<std::uint8_t>>("data"));
}

// --- atomic replacement ----------------------------------------------------------------------

TEST(SafetensorsSave, AFailedSaveLeavesTheOldFileAndNoTemporaryFile) {
  TempDir folder;
  const auto path = folder / "model.safetensors";
  const fp::Tensor w = fp::tensor({1.f, 2.f});
  const fp::Tensor a = fp::tensor({3.f});
  st::save({{"w", w}}, path);
  const std::vector<std::uint8_t> before = read_file(path);
  // A meta tensor has no values to write: the save fails while writing data,
  // after the header went to the temporary file.
  const fp::Tensor meta(fp::abi::empty_strided(std::vector<std::int64_t>{1000},
                                               std::vector<std::int64_t>{1}, fp::DType::F32,
                                               fp::Device::meta()));
  EXPECT_THROW(st::save({{"a", a}, {"z", meta}}, path), fp::Error);
  EXPECT_EQ(read_file(path), before);
  EXPECT_EQ(folder.files(), (std::vector<std::string>{"model.safetensors"}));
}

TEST(SafetensorsSave, CreatesFilesWithTheUsualPermissions) {
  TempDir folder;
  const mode_t mask = ::umask(0);
  ::umask(mask);
  const fp::Tensor w = fp::tensor({1.f});
  st::save({{"w", w}}, folder / "t.safetensors");
  struct stat status {};
  ASSERT_EQ(::stat((folder / "t.safetensors").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0666 & ~mask);
}

// --- bad input ---------------------------------------------------------------------------------

TEST(SafetensorsSave, RejectsWhatSafetensorsCannotHold) {
  TempDir folder;
  const fp::Tensor one = fp::tensor({1.f});
  const fp::Tensor two = fp::tensor({2.f});
  const auto path = folder / "t.safetensors";
  const fp::Tensor c128 =
      fp::dispatch<fp::Tensor>("aten::_to_copy", "", fp::tensor({1.0}), fp::DType::C128);
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "fp::safetensors: save: tensor \"c\": safetensors has no dtype for torch.complex128",
      st::save({{"c", c128}}, path));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "tensor \"w\": the name appears twice",
                  st::save(std::vector<st::NamedTensor>{{"w", one}, {"w", two}}, path));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "tensor \"__metadata__\": the name is reserved for the file's metadata",
                  st::save({{"__metadata__", one}}, path));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "tensor \"\xff\": the name is not valid UTF-8",
                  st::save({{"\xff", one}}, path));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "tensor \"u\": the tensor is undefined",
                  st::save({{"u", fp::TensorView()}}, path));
  const std::uint8_t packed[] = {1};
  const fp::Tensor f4 = fp::detail::tensor_from_bytes(packed, {}, fp::DType::F4_E2M1FN_X2);
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"f\": a 0-dim float4_e2m1fn_x2 tensor has no last dimension to hold its two values",
      st::save({{"f", f4}}, path));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Io,
      "fp::safetensors: " + (folder / "no" / "t.safetensors").string() +
          ": cannot create a temporary file in its directory: No such file or directory",
      st::save({{"w", one}}, folder / "no" / "t.safetensors"));
  EXPECT_TRUE(folder.files().empty());
}

TEST(SafetensorsSave, RejectsSparseTensors) {
  const fp::Tensor sparse = fp::dispatch<fp::Tensor>("aten::to_sparse", "", fp::tensor({0.f, 1.f}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "tensor \"s\": a torch.sparse_coo tensor cannot be saved; make it dense (strided) first",
      st::save_to_bytes({{"s", sparse}}));
}

}  // namespace
