// fp::safetensors::MappedFile: zero-copy views of a mapped file that keep
// the mapping alive. Run under valgrind by the test suite (valgrind.test_safetensors).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

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

/// How many mappings of `path` this process has (Linux: /proc/self/maps).
int mappings_of(const std::filesystem::path& path) {
  std::ifstream maps("/proc/self/maps");
  const std::string wanted = std::filesystem::canonical(path).string();
  int count = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.size() >= wanted.size() &&
        line.compare(line.size() - wanted.size(), wanted.size(), wanted) == 0) {
      ++count;
    }
  }
  return count;
}

/// True when `address` lies in a mapping of `path`.
bool inside_mapping_of(const void* address, const std::filesystem::path& path) {
  std::ifstream maps("/proc/self/maps");
  const std::string wanted = std::filesystem::canonical(path).string();
  const auto where = reinterpret_cast<std::uintptr_t>(address);
  for (std::string line; std::getline(maps, line);) {
    if (line.find(wanted) == std::string::npos) continue;
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream(line) >> std::hex >> begin >> dash >> end;
    if (where >= begin && where < end) return true;
  }
  return false;
}

TEST(SafetensorsMappedFile, GivesViewsOfTheMappedBytes) {
  /*
  #|PYTHON
  w = torch.randn(2, 3)
  ids = torch.arange(5, dtype=torch.int32)
  data = file_bytes({"w": w, "ids": ids}, metadata={"format": "pt"})
  */
  TempDir folder;
  write_file(folder / "f.safetensors", truth<std::vector<std::uint8_t>>("data"));
  const auto file = st::MappedFile::open(folder / "f.safetensors");
  EXPECT_EQ(file.keys(), (std::vector<std::string>{"w", "ids"}));  // #PYTHON header_order(data)
  EXPECT_EQ(file.size(), 2u);
  EXPECT_TRUE(file.contains("w"));
  EXPECT_FALSE(file.contains("x"));
  ASSERT_TRUE(file.metadata().has_value());
  EXPECT_EQ(*file.metadata(), (st::Metadata{{"format", "pt"}}));
  EXPECT_EQ(file.header().tensors.size(), 2u);

  const fp::TensorView w = file.get("w");
  EXPECT_EQ(w.dtype(), fp::DType::F32);
  EXPECT_EQ(sizes_of(w), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(w.to_vector<float>(), truth<std::vector<float>>("w.flatten().tolist()"));
  EXPECT_EQ(file.get("ids").to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{0, 1, 2, 3, 4}));  // #PYTHON ids.tolist()

  // No copy: the data lies inside the mapping, and two views share it.
  EXPECT_TRUE(inside_mapping_of(fp::abi::const_data_ptr(w.raw()), folder / "f.safetensors"));
  EXPECT_EQ(fp::abi::const_data_ptr(file.get("w").raw()), fp::abi::const_data_ptr(w.raw()));
}

TEST(SafetensorsMappedFile, AViewOutlivesTheMappedFileAndKeepsTheMappingAlive) {
  /*
  #|PYTHON
  w = torch.linspace(-1, 1, 8)
  data = file_bytes({"w": w})
  */
  TempDir folder;
  const auto path = folder / "f.safetensors";
  write_file(path, truth<std::vector<std::uint8_t>>("data"));
  fp::TensorView view;
  {
    const auto file = st::MappedFile::open(path);
    view = file.get("w");
    EXPECT_EQ(mappings_of(path), 1);
  }
  // The MappedFile is gone; the view still reads the mapped bytes (valgrind
  // checks the reads), and its copies do too.
  EXPECT_EQ(mappings_of(path), 1);
  EXPECT_EQ(view.to_vector<float>(), truth<std::vector<float>>("w.tolist()"));
  fp::TensorView copy = view;
  const fp::Tensor owned{view};
  view = fp::TensorView();
  EXPECT_EQ(mappings_of(path), 1);
  EXPECT_EQ(copy.to_vector<float>(), owned.to_vector<float>());
  copy = fp::TensorView();
  // The last view is gone: so is the mapping. The owned copy stays.
  EXPECT_EQ(mappings_of(path), 0);
  EXPECT_EQ(owned.to_vector<float>(), truth<std::vector<float>>("w.tolist()"));
}

TEST(SafetensorsMappedFile, ViewsSurviveTheFileBeingReplacedBySave) {
  TempDir folder;
  const auto path = folder / "f.safetensors";
  const fp::Tensor old_values = fp::tensor({1.f, 2.f});
  const fp::Tensor new_values = fp::tensor({7.f, 8.f, 9.f});
  st::save({{"w", old_values}}, path);
  const auto file = st::MappedFile::open(path);
  const fp::TensorView before = file.get("w");
  st::save({{"w", new_values}}, path);  // renamed over the mapped file
  EXPECT_EQ(before.to_vector<float>(), (std::vector<float>{1.f, 2.f}));
  EXPECT_EQ(st::MappedFile::open(path).get("w").to_vector<float>(),
            (std::vector<float>{7.f, 8.f, 9.f}));
}

TEST(SafetensorsMappedFile, CopiesToADeviceStraightFromTheMapping) {
  /*
  #|PYTHON
  a = torch.randn(4, 4).to(torch.bfloat16)
  b = torch.arange(3, dtype=torch.uint8)
  data = file_bytes({"a": a, "b": b})
  */
  TempDir folder;
  write_file(folder / "f.safetensors", truth<std::vector<std::uint8_t>>("data"));
  const auto file = st::MappedFile::open(folder / "f.safetensors");
  fp::StateDict on_cpu = file.to(fp::Device::cpu());
  EXPECT_EQ(on_cpu.keys(), file.keys());
  EXPECT_EQ(on_cpu.at("a").to_vector<float>(),
            truth<std::vector<float>>("a.float().flatten().tolist()"));
  EXPECT_FALSE(
      inside_mapping_of(fp::abi::const_data_ptr(on_cpu.at("a").raw()), folder / "f.safetensors"));
  on_cpu.at("b").data_mut<std::uint8_t>()[0] = 42;  // owned and writable
  EXPECT_EQ(file.get("b").to_vector<std::uint8_t>()[0], 0);

  if (!fp::cuda_is_available()) {
    EXPECT_THROW(file.to(fp::Device::cuda(0)), fp::Error);  // libtorch's message, as an fp::Error
    GTEST_SKIP() << "no CUDA device here";
  }
  const fp::StateDict on_gpu = file.to(fp::Device::cuda(0));
  EXPECT_TRUE(on_gpu.at("a").device().is_cuda());
  EXPECT_EQ(on_gpu.at("a").to_vector<float>(), on_cpu.at("a").to_vector<float>());
}

/// What Module::load_state_dict does: copies each tensor of the reader into
/// the preallocated tensor of the same name.
void load_into(fp::StateDict& target, const fp::StateDictReader& reader) {
  for (const std::string& key : reader.keys()) {
    const std::optional<fp::TensorView> source = reader.find(key);
    ASSERT_TRUE(source.has_value());
    fp::abi::copy_(target.at(key).raw(), source->raw());
  }
}

TEST(SafetensorsMappedFile, IsAStateDictReader) {
  /*
  #|PYTHON
  weight = torch.randn(3, 2)
  bias = torch.randn(3)
  data = file_bytes({"layer.weight": weight, "layer.bias": bias})
  */
  TempDir folder;
  write_file(folder / "f.safetensors", truth<std::vector<std::uint8_t>>("data"));
  const auto file = st::MappedFile::open(folder / "f.safetensors");
  const fp::StateDictReader& reader = file;
  EXPECT_FALSE(reader.find("missing").has_value());

  fp::StateDict model;
  model.insert("layer.weight", fp::Tensor(fp::abi::empty_strided(
                                   std::vector<std::int64_t>{3, 2}, std::vector<std::int64_t>{2, 1},
                                   fp::DType::F32, fp::Device::cpu())));
  model.insert("layer.bias", fp::Tensor(fp::abi::empty_strided(std::vector<std::int64_t>{3},
                                                               std::vector<std::int64_t>{1},
                                                               fp::DType::F32, fp::Device::cpu())));
  load_into(model, reader);
  EXPECT_EQ(model.at("layer.weight").to_vector<float>(),
            truth<std::vector<float>>("weight.flatten().tolist()"));
  EXPECT_EQ(model.at("layer.bias").to_vector<float>(), truth<std::vector<float>>("bias.tolist()"));

  // A loaded StateDict is a reader too.
  fp::StateDict again;
  again.insert("layer.weight", fp::Tensor(fp::abi::empty_strided(
                                   std::vector<std::int64_t>{3, 2}, std::vector<std::int64_t>{2, 1},
                                   fp::DType::F32, fp::Device::cpu())));
  again.insert("layer.bias", fp::Tensor(fp::abi::empty_strided(std::vector<std::int64_t>{3},
                                                               std::vector<std::int64_t>{1},
                                                               fp::DType::F32, fp::Device::cpu())));
  load_into(again, st::load(folder / "f.safetensors"));
  EXPECT_EQ(again.at("layer.bias").to_vector<float>(), model.at("layer.bias").to_vector<float>());
}

TEST(SafetensorsMappedFile, CopiesTensorsStoredMisaligned) {
  // I8 at data offset 0, F32 at data offset 1: a float view there would be
  // misaligned, so that one tensor is copied.
  const std::string header = R"({"i":{"dtype":"I8","shape":[1],"data_offsets":[0,1]},)"
                             R"("f":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}})";
  std::vector<std::uint8_t> bytes(8 + header.size() + 5);
  const std::uint64_t length = header.size();
  std::memcpy(bytes.data(), &length, 8);
  std::memcpy(bytes.data() + 8, header.data(), header.size());
  const float value = -2.5f;
  bytes[8 + header.size()] = 3;
  std::memcpy(bytes.data() + 8 + header.size() + 1, &value, 4);
  TempDir folder;
  write_file(folder / "odd.safetensors", bytes);
  const auto file = st::MappedFile::open(folder / "odd.safetensors");
  const fp::TensorView f = file.get("f");
  EXPECT_EQ(f.item<float>(), -2.5f);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(fp::abi::const_data_ptr(f.raw())) % 4, 0u);
  EXPECT_EQ(file.get("i").item<std::int8_t>(), 3);
}

TEST(SafetensorsMappedFile, ReportsBadFilesAndKeys) {
  TempDir folder;
  const auto missing = folder / "missing.safetensors";
  EXPECT_FP_ERROR(
      fp::ErrorCode::Io,
      "fp::safetensors: " + missing.string() + ": cannot open the file: No such file or directory",
      st::MappedFile::open(missing));
  write_file(folder / "empty.safetensors", {});
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "empty.safetensors: the file has 0 bytes, too few for the 8-byte header length",
                  st::MappedFile::open(folder / "empty.safetensors"));
  write_file(folder / "junk.safetensors", {2, 0, 0, 0, 0, 0, 0, 0, '[', ']'});
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "junk.safetensors: the header is not a JSON object",
                  st::MappedFile::open(folder / "junk.safetensors"));

  const fp::Tensor one = fp::tensor({1.f});
  st::save({{"w", one}}, folder / "ok.safetensors");
  const auto file = st::MappedFile::open(folder / "ok.safetensors");
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "ok.safetensors: no tensor called \"nope\"",
                  file.get("nope"));
  EXPECT_FALSE(file.metadata().has_value());
}

// --- faults: what open() detects, and the copying mode ------------------------------------

TEST(SafetensorsMappedFile, RefusesAFileTruncatedOrStillBeingWrittenAtOpen) {
  /*
  #|PYTHON
  w = torch.arange(6, dtype=torch.float32)
  data = file_bytes({"w": w})
  */
  TempDir folder;
  const auto whole = truth<std::vector<std::uint8_t>>("data");
  const auto cut = std::vector<std::uint8_t>(whole.begin(), whole.end() - 4);
  auto longer = whole;
  longer.push_back(0);
  write_file(folder / "cut.safetensors", cut);
  write_file(folder / "longer.safetensors", longer);
  for (const auto access : {st::FileAccess::Map, st::FileAccess::Copy}) {
    SCOPED_TRACE(access == st::FileAccess::Map ? "Map" : "Copy");
    EXPECT_FP_ERROR(
        fp::ErrorCode::Format,
        "cut.safetensors: tensor \"w\": data_offsets [0, 24] reach past the end of the data (20 "
        "bytes)",
        st::MappedFile::open(folder / "cut.safetensors", {.access = access}));
    EXPECT_FP_ERROR(fp::ErrorCode::Format,
                    "longer.safetensors: the tensors cover 24 bytes of data but the file has 25: "
                    "bytes left over at the end",
                    st::MappedFile::open(folder / "longer.safetensors", {.access = access}));
  }
}

TEST(SafetensorsMappedFile, RefusesWhatIsNotARegularFile) {
  TempDir folder;
  ASSERT_EQ(::mkfifo((folder / "pipe").c_str(), 0600), 0);
  // Opening a FIFO for reading waits for a writer: give it one, which never writes.
  const int writer = ::open((folder / "pipe").c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(writer, 0);
  for (const auto access : {st::FileAccess::Map, st::FileAccess::Copy}) {
    EXPECT_FP_ERROR(fp::ErrorCode::Io, "pipe: not a regular file",
                    st::MappedFile::open(folder / "pipe", {.access = access}));
    EXPECT_FP_ERROR(fp::ErrorCode::Io, folder.path().string() + ": not a regular file",
                    st::MappedFile::open(folder.path(), {.access = access}));
  }
  ::close(writer);
}

TEST(SafetensorsMappedFile, CopyModeGivesTheSameTensorsFromMemoryOfItsOwn) {
  /*
  #|PYTHON
  w = torch.randn(3, 4)
  h = torch.randn(5).to(torch.float16)
  ids = torch.arange(7, dtype=torch.int64)
  data = file_bytes({"w": w, "h": h, "ids": ids}, metadata={"step": "7"})
  */
  TempDir folder;
  const auto path = folder / "f.safetensors";
  write_file(path, truth<std::vector<std::uint8_t>>("data"));
  const auto file = st::MappedFile::open(path, {.access = st::FileAccess::Copy});
  EXPECT_EQ(file.keys(),
            (std::vector<std::string>{"ids", "w", "h"}));  // #PYTHON header_order(data)
  ASSERT_TRUE(file.metadata().has_value());
  EXPECT_EQ(*file.metadata(), (st::Metadata{{"step", "7"}}));
  const fp::TensorView w = file.get("w");
  EXPECT_EQ(w.to_vector<float>(), truth<std::vector<float>>("w.flatten().tolist()"));
  EXPECT_EQ(file.get("h").to_vector<float>(), truth<std::vector<float>>("h.float().tolist()"));
  EXPECT_EQ(file.get("ids").to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6}));  // #PYTHON ids.tolist()
  // No mapping of the file: the bytes are the MappedFile's own, shared by its views.
  EXPECT_EQ(mappings_of(path), 0);
  EXPECT_FALSE(inside_mapping_of(fp::abi::const_data_ptr(w.raw()), path));
  EXPECT_EQ(fp::abi::const_data_ptr(file.get("w").raw()), fp::abi::const_data_ptr(w.raw()));
  // Equal to the mapped file's tensors, and a state-dict reader like it.
  const auto mapped = st::MappedFile::open(path);
  for (const std::string& key : mapped.keys())
    EXPECT_EQ(raw_bytes(file.get(key)), raw_bytes(mapped.get(key))) << key;
  const fp::StateDictReader& reader = file;
  EXPECT_TRUE(reader.find("w").has_value());
}

TEST(SafetensorsMappedFile, CopyModeViewsSurviveTheFileBeingTruncatedRewrittenOrDeleted) {
  /*
  #|PYTHON
  w = torch.linspace(-3, 3, 4096)
  data = file_bytes({"w": w})
  */
  TempDir folder;
  const auto path = folder / "f.safetensors";
  write_file(path, truth<std::vector<std::uint8_t>>("data"));
  const auto expected = truth<std::vector<float>>("w.tolist()");
  fp::TensorView view;
  {
    const auto file = st::MappedFile::open(path, {.access = st::FileAccess::Copy});
    view = file.get("w");
    // Another program truncates the file in place (what Python's save_file
    // does before writing): with FileAccess::Map, reading `view` now would
    // raise SIGBUS.
    std::filesystem::resize_file(path, 0);
    EXPECT_EQ(view.to_vector<float>(), expected);
    EXPECT_EQ(file.get("w").to_vector<float>(), expected);
    // ... writes other bytes into it, and deletes it.
    write_file(path, std::vector<std::uint8_t>(20000, 0xff));
    EXPECT_EQ(view.to_vector<float>(), expected);
    std::filesystem::remove(path);
    EXPECT_EQ(file.get("w").to_vector<float>(), expected);
  }
  // The MappedFile is gone; its copy lives as long as a view of it.
  EXPECT_EQ(view.to_vector<float>(), expected);
}

TEST(SafetensorsMappedFile, CopyModeReportsBadFilesAsMapModeDoes) {
  TempDir folder;
  const auto missing = folder / "missing.safetensors";
  EXPECT_FP_ERROR(
      fp::ErrorCode::Io,
      "fp::safetensors: " + missing.string() + ": cannot open the file: No such file or directory",
      st::MappedFile::open(missing, {.access = st::FileAccess::Copy}));
  write_file(folder / "empty.safetensors", {});
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "empty.safetensors: the file has 0 bytes, too few for the 8-byte header length",
      st::MappedFile::open(folder / "empty.safetensors", {.access = st::FileAccess::Copy}));
  write_file(folder / "junk.safetensors", {2, 0, 0, 0, 0, 0, 0, 0, '[', ']'});
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format, "junk.safetensors: the header is not a JSON object",
      st::MappedFile::open(folder / "junk.safetensors", {.access = st::FileAccess::Copy}));
  const fp::Tensor one = fp::tensor({1.f});
  st::save({{"w", one}}, folder / "ok.safetensors");
  const auto file =
      st::MappedFile::open(folder / "ok.safetensors", {.access = st::FileAccess::Copy});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "ok.safetensors: no tensor called \"nope\"",
                  file.get("nope"));
}

TEST(SafetensorsMappedFile, OpensFilesWithDtypesTorchLacksButCannotViewThem) {
  const std::string header = R"({"w":{"dtype":"F6_E3M2","shape":[4],"data_offsets":[0,3]}}     )";
  std::vector<std::uint8_t> bytes(8 + header.size() + 3);
  const std::uint64_t length = header.size();
  std::memcpy(bytes.data(), &length, 8);
  std::memcpy(bytes.data() + 8, header.data(), header.size());
  TempDir folder;
  write_file(folder / "f6.safetensors", bytes);
  const auto file = st::MappedFile::open(folder / "f6.safetensors");
  EXPECT_EQ(file.keys(), (std::vector<std::string>{"w"}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "f6.safetensors: tensor \"w\": torch has no dtype for the safetensors dtype F6_E3M2",
      file.get("w"));
}

}  // namespace
