#include "flash_powder/abi/generator_handle.h"

#include "torch_c.h"

namespace fp::abi {

GeneratorHandle& GeneratorHandle::operator=(GeneratorHandle&& other) noexcept {
  if (this != &other) {
    reset();
    raw_ = other.release();
  }
  return *this;
}

RawGenerator GeneratorHandle::release() noexcept {
  RawGenerator raw = raw_;
  raw_ = nullptr;
  return raw;
}

void GeneratorHandle::reset() noexcept {
  if (raw_ != nullptr) late::delete_generator(release());
}

GeneratorHandle GeneratorHandle::share() const {
  if (raw_ == nullptr) throw Error("GeneratorHandle::share: the generator handle is null");
  RawGenerator shared = nullptr;
  check(late::new_generator_handle(raw_, &shared), "torch_new_generator_handle");
  return GeneratorHandle(shared);
}

}  // namespace fp::abi
