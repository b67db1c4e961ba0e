// The file work of the image layer (internal): whole-file reads and atomic
// writes (a temporary file in the same directory, renamed over the target).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace fp::image::detail {

/// The whole file; throws fp::Error naming `function` and the path.
std::vector<std::uint8_t> read_whole_file(const std::filesystem::path& path, const char* function);

/// Replaces `path` by `bytes` atomically: readers see the old file or the
/// new one, never part of it; on failure the old file is untouched.
void write_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                      const char* function);

}  // namespace fp::image::detail
