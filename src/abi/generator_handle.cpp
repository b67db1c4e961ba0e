#include "flash_powder/abi/generator_handle.h"

#include <utility>

#include "torch_c.h"

namespace fp::abi {

GeneratorHandle& GeneratorHandle::operator=(GeneratorHandle&& other) noexcept {
  if (this != &other) {
    reset();
    raw_ = std::exchange(other.raw_, nullptr);
  }
  return *this;
}

RawGenerator GeneratorHandle::release() noexcept {
  // The handle leaves the count with its owner: it is the caller's to free now.
  if (raw_ != nullptr) count_handle(HandleKind::generator, -1);
  return std::exchange(raw_, nullptr);
}

void GeneratorHandle::reset() noexcept {
  if (raw_ != nullptr) late::delete_generator(release());
}

GeneratorHandle GeneratorHandle::share() const {
  if (raw_ == nullptr)
    throw Error(ErrorCode::BadArgument, "GeneratorHandle::share: the generator handle is null");
  RawGenerator shared = nullptr;
  check(late::new_generator_handle(raw_, &shared), "torch_new_generator_handle");
  return GeneratorHandle(shared);
}

}  // namespace fp::abi
