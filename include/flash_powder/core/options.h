// fp::TensorOptions: the dtype, device, layout and pinning of a new tensor,
// like torch's `dtype=`, `device=`, `layout=` and `pin_memory=` keywords.
#pragma once

#include <optional>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/base/layout.h"

namespace fp {

/// What a factory makes. Converts implicitly from a DType, a Device or a
/// Layout alone, so `fp::zeros({2}, fp::DType::I64)` and
/// `fp::zeros({2}, fp::Device::cuda())` read like Python; chain for more:
/// `fp::TensorOptions(fp::DType::F16).device(fp::Device::cuda(1))`.
/// Unset fields take the factory's default (float32 and the CPU for most,
/// the source tensor's for the `*_like` factories).
class TensorOptions {
 public:
  TensorOptions() = default;
  // Implicit on purpose: like Python's dtype= and device=.
  // NOLINTBEGIN(google-explicit-constructor)
  /// Only the dtype: `fp::zeros({2}, fp::DType::I64)`.
  TensorOptions(DType dtype) : dtype_(dtype) {}
  /// Only the device: `fp::zeros({2}, fp::Device::cuda())`.
  TensorOptions(Device device) : device_(device) {}
  /// Only the layout.
  TensorOptions(Layout layout) : layout_(layout) {}
  // NOLINTEND(google-explicit-constructor)
  /// A dtype and a device.
  TensorOptions(DType dtype, Device device) : dtype_(dtype), device_(device) {}

  /// The dtype, if set.
  std::optional<DType> dtype() const { return dtype_; }
  /// The device, if set.
  std::optional<Device> device() const { return device_; }
  /// The layout, if set.
  std::optional<Layout> layout() const { return layout_; }
  /// Whether page-locked host memory is asked for.
  bool pinned_memory() const { return pinned_memory_; }

  /// Copies with one field changed.
  TensorOptions dtype(DType dtype) const { return with(&TensorOptions::dtype_, dtype); }
  /// A copy with another device.
  TensorOptions device(Device device) const { return with(&TensorOptions::device_, device); }
  /// A copy with another layout.
  TensorOptions layout(Layout layout) const { return with(&TensorOptions::layout_, layout); }
  /// Page-locked host memory, for fast copies to a GPU. Python: pin_memory=True.
  TensorOptions pinned_memory(bool pinned) const {
    return with(&TensorOptions::pinned_memory_, pinned);
  }

  /// The dtype, or `fallback` when unset.
  DType dtype_or(DType fallback) const { return dtype_.value_or(fallback); }
  /// The device, or `fallback` when unset.
  Device device_or(Device fallback) const { return device_.value_or(fallback); }

  /// Equal when every field is.
  friend bool operator==(const TensorOptions&, const TensorOptions&) = default;

 private:
  template <class Field, class Value>
  TensorOptions with(Field TensorOptions::*field, Value value) const {
    TensorOptions copy = *this;
    copy.*field = value;
    return copy;
  }

  std::optional<DType> dtype_;
  std::optional<Device> device_;
  std::optional<Layout> layout_;
  bool pinned_memory_ = false;
};

}  // namespace fp
