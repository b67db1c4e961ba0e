#include "flash_powder/core/borrow.h"

#include <string>

namespace fp::detail {
namespace {

std::string describe_views(std::int64_t shared) {
  return std::to_string(shared) + (shared == 1 ? " TensorView" : " TensorViews");
}

}  // namespace

void BorrowState::release(BorrowState* state) noexcept {
  if (state != nullptr && state->references_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete state;
  }
}

void BorrowState::borrow_shared(const char* origin) {
  const std::int64_t before = borrows_.fetch_add(1, std::memory_order_acq_rel);
  if (before >= kExclusive) {
    borrows_.fetch_sub(1, std::memory_order_acq_rel);
    throw BorrowError(std::string("fp::BorrowError: cannot take a TensorView (") + origin +
                      ") of a " + owner_ + " while a TensorMutView of it (" + last_origin_.load() +
                      ") is alive");
  }
  last_origin_.store(origin);
}

void BorrowState::return_shared() noexcept {
  borrows_.fetch_sub(1, std::memory_order_acq_rel);
}

void BorrowState::borrow_exclusive(const char* origin) {
  std::int64_t expected = 0;
  if (!borrows_.compare_exchange_strong(expected, kExclusive, std::memory_order_acq_rel)) {
    const std::string alive =
        expected >= kExclusive ? std::string("a TensorMutView") : describe_views(expected);
    const bool one = expected == 1 || expected >= kExclusive;
    throw BorrowError(std::string("fp::BorrowError: cannot take a TensorMutView (") + origin +
                      ") of a " + owner_ + " while " + alive + " of it (" + last_origin_.load() +
                      ") " + (one ? "is" : "are") + " alive");
  }
  last_origin_.store(origin);
}

void BorrowState::return_exclusive() noexcept {
  borrows_.fetch_sub(kExclusive, std::memory_order_acq_rel);
}

void BorrowState::check_mutation(const char* operation, int own_arguments) const {
  const std::int64_t now = borrows_.load(std::memory_order_acquire);
  if (now >= kExclusive) {
    throw BorrowError(std::string("fp::BorrowError: cannot call ") + operation + " on a " + owner_ +
                      " while a TensorMutView of it (" + last_origin_.load() +
                      ") is alive; write through the view or let it go first");
  }
  if (now > own_arguments) {
    const std::int64_t others = now - own_arguments;
    throw BorrowError(std::string("fp::BorrowError: cannot call ") + operation + " on a " + owner_ +
                      " while " + describe_views(others) + " of it (latest: " +
                      last_origin_.load() + ") " + (others == 1 ? "is" : "are") +
                      " alive; they would see the change. Copy with to_owned() to keep the "
                      "old values");
  }
}

}  // namespace fp::detail
