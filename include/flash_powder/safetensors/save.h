// Saving tensors as a safetensors file.
// Python: `safetensors.torch.save_file(tensors, path, metadata)` and
// `safetensors.torch.save(tensors, metadata)`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/core/state_dict.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/safetensors/format.h"

namespace fp::safetensors {

/// A tensor and the name to save it under.
using NamedTensor = std::pair<std::string, TensorView>;

/// What save() takes: a StateDict, or named views as a vector, a span or a
/// braced list: `save({{"weight", w}, {"bias", b}}, path)`.
class NamedTensors {
 public:
  // Implicit on purpose: any collection of named tensors saves.
  // NOLINTBEGIN(google-explicit-constructor)
  /// Every entry of a state dict, in its order.
  NamedTensors(const StateDict& tensors);
  /// Named views, in order.
  NamedTensors(std::span<const NamedTensor> tensors);
  /// Named views, in order.
  NamedTensors(const std::vector<NamedTensor>& tensors);
  /// `{{"weight", w}, {"bias", b}}`.
  NamedTensors(std::initializer_list<NamedTensor> tensors);
  // NOLINTEND(google-explicit-constructor)
  // It may point into its own storage: not copyable.
  NamedTensors(const NamedTensors&) = delete;
  NamedTensors& operator=(const NamedTensors&) = delete;

  /// The named tensors, in order.
  std::span<const NamedTensor> entries() const { return entries_; }

 private:
  std::vector<NamedTensor> views_;  // for the forms that are not already a span
  std::span<const NamedTensor> entries_;
};

/// Writes `tensors` to `path` in the safetensors format, byte for byte as
/// Python's `save_file(tensors, path)` does: tensors sorted by dtype (widest
/// first) then name, header padded with spaces to a multiple of 8.
///
/// The file is replaced atomically: the bytes go to a temporary file next to
/// `path`, renamed over it at the end, so a failed save leaves `path` as it
/// was (and a file mapped by a MappedFile stays valid).
///
/// Tensors on other devices are copied to the CPU, non-contiguous ones are
/// packed (Python refuses those; call .contiguous() there), lazily
/// conjugated or negated views are written with their values.
///
/// Like Python, save() refuses tensors that share memory, with an fp::Error
/// listing them: views of one storage whose bytes overlap (two names for one
/// tensor, overlapping slices) would be stored twice and load as separate
/// tensors. Views of one storage that do not overlap are saved, as in Python.
/// Copies of one fp::Tensor are independent values (copy-on-write until one
/// is written) and are saved normally. Memory shared by distinct storages
/// (two from_blob views of one user buffer) is not detected.
///
/// Throws fp::Error naming the tensor for a dtype safetensors lacks
/// (complex32, complex128), a repeated or non-UTF-8 name, the name
/// "__metadata__", an undefined or sparse tensor; naming `path` when it
/// cannot be written. A symbolic link at `path` is replaced, not followed.
void save(const NamedTensors& tensors, const std::filesystem::path& path);

/// The same with `__metadata__` (Python's `metadata=`). An empty map writes
/// an empty `__metadata__`, as Python does for `metadata={}`. Python writes
/// the keys of a dict in no fixed order; here they are sorted, so with two or
/// more keys the bytes equal one of the orders Python may produce.
void save(const NamedTensors& tensors, const std::filesystem::path& path, const Metadata& metadata);

/// The file's bytes in memory. Python: `safetensors.torch.save(tensors)`.
std::vector<std::byte> save_to_bytes(const NamedTensors& tensors);
/// The same with `__metadata__`.
std::vector<std::byte> save_to_bytes(const NamedTensors& tensors, const Metadata& metadata);

}  // namespace fp::safetensors
