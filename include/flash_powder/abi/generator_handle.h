// The owner of one libtorch generator handle (a torch.Generator).
#pragma once

#include <utility>

#include "flash_powder/abi/handle_count.h"

// libtorch's opaque generator type; same declaration as in its C shim header.
struct AtenGeneratorOpaque;

namespace fp::abi {

/// A libtorch generator handle as the C functions see it (not owned).
using RawGenerator = AtenGeneratorOpaque*;

/// Owns one generator handle. Generators cross the stable ABI from torch 2.13
/// on; libtorch offers no way to create one, so handles only arrive from ops
/// and from the callers of custom ops.
class GeneratorHandle {
 public:
  GeneratorHandle() = default;
  /// Takes ownership of `owned` (null: an empty handle).
  explicit GeneratorHandle(RawGenerator owned) noexcept : raw_(owned) {
    if (raw_ != nullptr) count_handle(HandleKind::generator, +1);
  }
  // A move hands the handle over without touching the live count.
  /// Takes the handle over; `other` is left empty.
  GeneratorHandle(GeneratorHandle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
  /// Frees this handle's generator, then takes `other`'s.
  GeneratorHandle& operator=(GeneratorHandle&& other) noexcept;
  GeneratorHandle(const GeneratorHandle&) = delete;
  GeneratorHandle& operator=(const GeneratorHandle&) = delete;
  ~GeneratorHandle() { reset(); }

  /// The raw handle, still owned by this object (null when empty).
  RawGenerator get() const noexcept { return raw_; }
  /// Gives up ownership: the caller frees the returned handle.
  RawGenerator release() noexcept;
  /// Frees the generator (if any); the handle is empty after.
  void reset() noexcept;
  /// Whether a generator is held.
  explicit operator bool() const noexcept { return raw_ != nullptr; }

  /// A second handle sharing the same random state (torch 2.13+).
  GeneratorHandle share() const;

 private:
  RawGenerator raw_ = nullptr;
};

}  // namespace fp::abi
