// What the library does when the system fails it: a full disk, a read-only
// folder, a failing flush or rename while saving (the previous file stays
// whole, nothing is left behind, and an fp::Error with ErrorCode::Io says
// why), and a file changed by another program while it is being opened.
// The failures come from support/fault_injection.h, linked into this program.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/image/image.h>
#include <flash_powder/safetensors/safetensors.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "safetensors/helpers.h"
#include "support/expect_error.h"
#include "support/fault_injection.h"

namespace {

namespace faults = fp_test::faults;
using faults::Call;
using st_test::read_file;
using st_test::TempDir;

/// A state dict of about 1.5 MB: more than one write() of the saver's 1 MiB buffer.
fp::StateDict large_weights() {
  fp::StateDict weights;
  weights.insert("big", fp::arange(0.0, 300'000.0).to(fp::DType::F32));
  weights.insert("small", fp::ones({4, 4}));
  return weights;
}

class SaveFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    const fp::Tensor previous = fp::tensor({1.f, 2.f, 3.f});
    fp::safetensors::save({{"previous", previous}}, path_);
    before_ = read_file(path_);
  }
  void TearDown() override { faults::clear_hook(); }

  /// Saving under `fault` fails with `message` (ErrorCode::Io) and returns
  /// how many calls the fault failed; afterwards (the fault gone) the
  /// previous file is intact and the folder holds nothing else.
  int expect_failed_save_leaves_previous(faults::Fault fault, const std::string& message) {
    fault.path_part = folder_.path().string();
    int failures = 0;
    {
      const faults::Injected injected(fault);
      EXPECT_FP_ERROR(fp::ErrorCode::Io, "fp::safetensors: " + path_.string() + ": " + message,
                      fp::safetensors::save(large_weights(), path_));
      failures = injected.failures();
    }
    EXPECT_EQ(read_file(path_), before_);
    EXPECT_EQ(folder_.files(), (std::vector<std::string>{"model.safetensors"}));
    const auto reloaded = fp::safetensors::load(path_);
    EXPECT_EQ(reloaded.at("previous").to_vector<float>(), (std::vector<float>{1.f, 2.f, 3.f}));
    return failures;
  }

  TempDir folder_;
  std::filesystem::path path_ = folder_ / "model.safetensors";
  std::vector<std::uint8_t> before_;
};

TEST_F(SaveFaults, AFullDiskLeavesThePreviousFile) {
  // The disk fills after 100 kB: the first write is cut short, the next fails.
  EXPECT_EQ(expect_failed_save_leaves_previous(
                {.call = Call::Write, .error = ENOSPC, .after_bytes = 100'000},
                "cannot write the temporary file: No space left on device"),
            1);
}

TEST_F(SaveFaults, ADiskFullAtTheFlushLeavesThePreviousFile) {
  // Some file systems (NFS, delayed allocation) report a full disk only when
  // the data is flushed.
  EXPECT_EQ(expect_failed_save_leaves_previous({.call = Call::Fsync, .error = ENOSPC},
                                               "cannot flush the file: No space left on device"),
            1);
}

TEST_F(SaveFaults, AFailedCloseLeavesThePreviousFile) {
  EXPECT_EQ(expect_failed_save_leaves_previous({.call = Call::Close, .error = EIO},
                                               "cannot close the file: Input/output error"),
            1);
}

TEST_F(SaveFaults, AReadOnlyFolderLeavesThePreviousFile) {
  // A read-only mount (or a folder without write permission, which root
  // ignores): no temporary file can be made next to the target.
  EXPECT_EQ(expect_failed_save_leaves_previous(
                {.call = Call::Open, .error = EROFS},
                "cannot create a temporary file in its directory: Read-only file system"),
            1);
}

TEST_F(SaveFaults, AFailedRenameLeavesThePreviousFile) {
  EXPECT_EQ(expect_failed_save_leaves_previous(
                {.call = Call::Rename, .error = EACCES},
                "cannot rename the temporary file over it: Permission denied"),
            1);
}

TEST_F(SaveFaults, SavesAgainOnceTheDiskHasRoom) {
  {
    const faults::Injected full(
        {.call = Call::Write, .path_part = folder_.path().string(), .error = ENOSPC});
    EXPECT_FP_ERROR(fp::ErrorCode::Io, "No space left on device",
                    fp::safetensors::save(large_weights(), path_));
  }
  fp::safetensors::save(large_weights(), path_);
  const auto saved = fp::safetensors::load(path_);
  EXPECT_EQ(saved.at("big").numel(), 300'000);
  EXPECT_EQ(saved.at("big").to_vector<float>()[299'999], 299'999.f);
}

// --- a file changed while it is being opened ------------------------------------------------

TEST(MappedFileFaults, RefusesAFileWrittenWhileItIsBeingOpened) {
  TempDir folder;
  const auto path = folder / "growing.safetensors";
  const fp::Tensor w = fp::tensor({1.f, 2.f});
  fp::safetensors::save({{"w", w}}, path);
  // Another program appends to the file between open()'s look at its size
  // and the mapping: what was mapped and checked is not the file any more.
  faults::before_next(Call::Mmap, path.string(), [&] {
    std::ofstream(path, std::ios::binary | std::ios::app) << "more bytes";
  });
  EXPECT_FP_ERROR(fp::ErrorCode::Io,
                  path.string() +
                      ": the file changed while it was being opened (its size went from 72 to 82 "
                      "bytes): another program is writing it",
                  fp::safetensors::MappedFile::open(path));
  faults::clear_hook();
  // Once the writer is done, the file is judged as it is.
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "bytes left over at the end",
                  fp::safetensors::MappedFile::open(path));
}

TEST(MappedFileFaults, ReportsAFailedMapping) {
  TempDir folder;
  const auto path = folder / "f.safetensors";
  const fp::Tensor w = fp::tensor({1.f, 2.f});
  fp::safetensors::save({{"w", w}}, path);
  const faults::Injected no_memory(
      {.call = Call::Mmap, .path_part = path.string(), .error = ENOMEM});
  EXPECT_FP_ERROR(fp::ErrorCode::Io,
                  path.string() + ": cannot map the file: Cannot allocate memory",
                  fp::safetensors::MappedFile::open(path));
  // The copying mode maps nothing of the file.
  EXPECT_EQ(fp::safetensors::MappedFile::open(path, {.access = fp::safetensors::FileAccess::Copy})
                .get("w")
                .to_vector<float>(),
            (std::vector<float>{1.f, 2.f}));
}

// --- fp::image's writers: the same promise ----------------------------------------------------

TEST(ImageWriteFaults, AFullDiskOrAFailedFlushLeavesThePreviousImage) {
  TempDir folder;
  const auto path = folder / "picture.png";
  const fp::Tensor previous = fp::zeros({3, 8, 8}, fp::DType::U8);
  fp::image::write_png(previous, path);
  const auto before = read_file(path);
  const fp::Tensor next = fp::full({3, 64, 64}, 200, fp::DType::U8);
  {
    const faults::Injected full({.call = Call::Write,
                                 .path_part = folder.path().string(),
                                 .error = ENOSPC,
                                 .after_bytes = 10});
    EXPECT_FP_ERROR(fp::ErrorCode::Io, "No space left on device", fp::image::write_png(next, path));
    EXPECT_FP_ERROR(fp::ErrorCode::Io, "No space left on device",
                    fp::image::write_jpeg(next, path));
  }
  {
    const faults::Injected full(
        {.call = Call::Fsync, .path_part = folder.path().string(), .error = ENOSPC});
    EXPECT_FP_ERROR(fp::ErrorCode::Io, "No space left on device", fp::image::write_png(next, path));
  }
  {
    const faults::Injected refused(
        {.call = Call::Rename, .path_part = folder.path().string(), .error = EROFS});
    EXPECT_FP_ERROR(fp::ErrorCode::Io, "Read-only file system", fp::image::write_png(next, path));
  }
  EXPECT_EQ(read_file(path), before);
  EXPECT_EQ(folder.files(), (std::vector<std::string>{"picture.png"}));
  fp::image::write_png(next, path);
  EXPECT_TRUE(fp::image::read_image(path).is_equal(next));
}

// The injector itself: a fault it cannot deliver would make the tests above
// pass without testing anything.
TEST(FaultInjection, FailsOnlyTheArmedCallOnTheArmedPath) {
  TempDir folder;
  const auto path = folder / "plain.bin";
  {
    const faults::Injected full(
        {.call = Call::Write, .path_part = path.string(), .error = ENOSPC, .after_bytes = 3});
    const int descriptor = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(descriptor, 0);
    EXPECT_EQ(::write(descriptor, "abcdef", 6), 3);  // cut short at 3 bytes
    errno = 0;
    EXPECT_EQ(::write(descriptor, "abcdef", 6), -1);
    EXPECT_EQ(errno, ENOSPC);
    EXPECT_EQ(::fsync(descriptor), 0);  // not armed
    ::close(descriptor);
    EXPECT_EQ(full.failures(), 1);
  }
  const int descriptor = ::open(path.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(descriptor, 0);
  EXPECT_EQ(::write(descriptor, "gh", 2), 2);  // disarmed
  ::close(descriptor);
  const auto bytes = read_file(path);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "abcgh");
}

}  // namespace
