// The debug borrow checker: what C++ cannot check at compile time about views.
//
// A Tensor (or a TensorMutView) is an *owner*; the TensorViews and
// TensorMutViews taken from it are *borrows*. The rules are Rust's:
//   - many TensorViews, or one TensorMutView, may be alive at a time, not both;
//   - an owner is not mutated while any borrow of it is alive.
// A view always holds its own libtorch handle, so breaking a rule never causes
// a use-after-free; it causes a view to see data change under it, which is
// the aliasing flash_powder promises away. With FP_BORROW_CHECK on (tests,
// debug builds) each violation throws fp::BorrowError naming both parties;
// with it off, all of this compiles to nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "flash_powder/abi/error.h"
#include "flash_powder/abi/ivalue.h"
#include "flash_powder/config.h"

namespace fp {

/// Thrown (in builds with FP_BORROW_CHECK) when a borrow rule is broken.
class BorrowError : public Error {
 public:
  /// An error with ErrorCode::Borrow and `message`.
  explicit BorrowError(const std::string& message) : Error(ErrorCode::Borrow, message) {}
};

namespace detail {

/// What an owner shares with the views borrowed from it. Reference counted:
/// the owner and each view hold one reference, so views may outlive the owner.
/// fp::dispatch asks it, as the owner's abi::WriteGuard, before an op writes.
class BorrowState final : public abi::WriteGuard {
 public:
  /// `owner` names the owner in messages: "Tensor" or "TensorMutView".
  explicit BorrowState(const char* owner) : owner_(owner) {}

  void retain() noexcept { references_.fetch_add(1, std::memory_order_relaxed); }
  /// Drops one reference; deletes the state with the last one.
  static void release(BorrowState* state) noexcept;

  /// Registers a TensorView made by `origin` (e.g. "i()"); throws while a
  /// TensorMutView is alive.
  void borrow_shared(const char* origin);
  void return_shared() noexcept;
  /// Registers a TensorMutView made by `origin`; throws while any view is alive.
  void borrow_exclusive(const char* origin);
  void return_exclusive() noexcept;
  /// Throws if `operation` (e.g. "add_()") may not mutate the owner now.
  /// `own_arguments` views among the live ones are arguments of the operation
  /// itself (as in `t.add_(t)`), which libtorch handles, so they are allowed.
  void check_mutation(const char* operation, int own_arguments = 0) const;
  void check_write(const char* operation, int own_arguments) const override {
    check_mutation(operation, own_arguments);
  }

 private:
  // One word: the count of TensorViews, plus kExclusive while a
  // TensorMutView lives, so both rules are checked with one atomic operation.
  static constexpr std::int64_t kExclusive = std::int64_t{1} << 40;

  std::atomic<std::int64_t> borrows_{0};
  std::atomic<int> references_{1};
  const char* owner_;
  // The origin of the most recent borrow, for messages; a plain string literal.
  std::atomic<const char*> last_origin_{"a view"};
};

}  // namespace detail
}  // namespace fp
