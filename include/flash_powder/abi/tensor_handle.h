// The owner of one libtorch tensor handle, and the C shim calls on it.
//
// Every `AtenTensorHandle` flash_powder holds lives in a TensorHandle, so no
// path (exceptions included) can leak or double-free one.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "flash_powder/abi/handle_count.h"
#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/base/layout.h"

// libtorch's opaque tensor type; same declaration as in its C shim header.
struct AtenTensorOpaque;

namespace fp::abi {

/// A libtorch tensor handle as the C functions see it (not owned).
using RawTensor = AtenTensorOpaque*;

/// Owns one libtorch tensor handle (a reference to a TensorImpl).
/// Move-only, like std::unique_ptr. An empty TensorHandle holds nothing.
class TensorHandle {
 public:
  TensorHandle() = default;
  /// Takes ownership of a handle returned by libtorch.
  explicit TensorHandle(RawTensor owned) noexcept : raw_(owned) {
    if (raw_ != nullptr) count_handle(HandleKind::tensor, +1);
  }
  // A move hands the handle over without touching the live count.
  /// Takes the handle over; `other` is left empty.
  TensorHandle(TensorHandle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
  /// Frees this handle's tensor, then takes `other`'s.
  TensorHandle& operator=(TensorHandle&& other) noexcept;
  TensorHandle(const TensorHandle&) = delete;
  TensorHandle& operator=(const TensorHandle&) = delete;
  ~TensorHandle() { reset(); }

  /// The raw handle, still owned by this object (null when empty).
  RawTensor get() const noexcept { return raw_; }
  /// Gives up ownership; the caller must free the handle.
  RawTensor release() noexcept;
  /// Frees the handle (if any); the handle is empty after.
  void reset() noexcept;
  /// Whether a handle is held.
  explicit operator bool() const noexcept { return raw_ != nullptr; }

  /// A second handle to the same TensorImpl (same data, same metadata).
  TensorHandle share() const;

 private:
  RawTensor raw_ = nullptr;
};

/// A new owning handle to the same TensorImpl as `tensor` (which stays the
/// caller's). Throws fp::Error if `tensor` is null.
TensorHandle share(RawTensor tensor);

// Metadata of a tensor. Each throws fp::Error if `tensor` is null.
/// The number of dimensions. Python: `t.dim()`.
std::int64_t dim(RawTensor tensor);
/// Valid while the tensor lives and its metadata does not change.
std::span<const std::int64_t> sizes(RawTensor tensor);
/// The strides, in elements. Valid while the tensor lives and its metadata does not change.
std::span<const std::int64_t> strides(RawTensor tensor);
/// The number of elements. Python: `t.numel()`.
std::int64_t numel(RawTensor tensor);
/// The offset of the first element in its storage, in elements.
std::int64_t storage_offset(RawTensor tensor);
/// The dtype.
DType dtype(RawTensor tensor);
/// The device.
Device device(RawTensor tensor);
/// The layout (strided, sparse, ...).
Layout layout(RawTensor tensor);
/// Whether the elements lie in row-major order without gaps.
bool is_contiguous(RawTensor tensor);
/// False for a handle to an undefined tensor (`torch.Tensor()` in C++ terms).
bool is_defined(RawTensor tensor);

/// A read-only pointer to the first element; never triggers a copy of a
/// lazily cloned (copy-on-write) storage.
const void* const_data_ptr(RawTensor tensor);
/// const_data_ptr of a defined strided tensor; null for one without data
/// (undefined, empty, sparse, meta) or whose data libtorch cannot give.
/// Never throws: for telling whether two tensors share their memory.
const void* data_start(RawTensor tensor) noexcept;
/// A writable pointer to the first element; materialises a copy-on-write storage.
void* mutable_data_ptr(RawTensor tensor);

/// `torch.empty_strided(sizes, strides, dtype=, device=)`.
TensorHandle empty_strided(std::span<const std::int64_t> sizes,
                           std::span<const std::int64_t> strides, DType dtype, Device device);

/// A tensor over foreign memory; `deleter(data, context)` runs when libtorch
/// frees the last reference (nullptr: the caller keeps the memory alive).
TensorHandle from_blob(void* data, std::span<const std::int64_t> sizes,
                       std::span<const std::int64_t> strides, std::int64_t storage_offset,
                       DType dtype, Device device, void (*deleter)(void* data, void* context),
                       void* context);

/// `dst.copy_(src)`: broadcasts, converts dtype, moves across devices.
void copy_(RawTensor dst, RawTensor src);

/// `torch.sub(a, b, alpha=alpha)` through the C shim that takes alpha as a
/// double (the dispatcher cannot carry the Scalar). Integer results reject a
/// floating alpha, as in PyTorch.
/// `what` names the operation in errors.
TensorHandle subtract(RawTensor a, RawTensor b, double alpha, const char* what = "subtract");

}  // namespace fp::abi
