// StableIValue boxing in both directions, shared by the two sides of
// libtorch's boxed calling convention: fp::dispatch (calling an op: box the
// arguments, unbox the results) and registered kernels (called by libtorch:
// unbox the arguments, box the results). Private to the abi layer.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "flash_powder/abi/handle_count.h"
#include "flash_powder/abi/ivalue.h"
#include "flash_powder/abi/schema.h"
#include "torch_c.h"

namespace fp::abi::boxing {

/// A plain value's bits as a StableIValue (an int, a double, a dtype code).
template <class T>
StableIValue bits_of(T value) {
  StableIValue result = 0;
  static_assert(sizeof(T) <= sizeof(StableIValue));
  std::memcpy(&result, &value, sizeof(T));
  return result;
}

/// Frees whatever `value` owns, read as `type` (handles, lists, strings,
/// optional boxes); plain bits own nothing.
void free_boxed(const SchemaType& type, StableIValue value) noexcept;

/// One boxed value and the type that says how to free it.
class Boxed {
 public:
  Boxed(const SchemaType& type, StableIValue value) : type_(&type), value_(value) { count(+1); }
  Boxed(Boxed&& other) noexcept : type_(other.type_), value_(std::exchange(other.value_, 0)) {}
  Boxed& operator=(Boxed&&) = delete;
  ~Boxed() {
    count(-1);
    free_boxed(*type_, value_);
  }

  StableIValue release() {
    count(-1);
    return std::exchange(value_, 0);
  }
  StableIValue get() const { return value_; }

 private:
  /// Tensors and generators are counted by their own owners; a list handle
  /// is counted while a Boxed holds it.
  void count(int delta) const noexcept {
    if (type_->kind == SchemaType::Kind::List && value_ != 0) {
      count_handle(HandleKind::list, delta);
    }
  }

  const SchemaType* type_;
  StableIValue value_;
};

/// Which argument (or result) of which schema is being boxed, for messages.
struct CallContext {
  const Schema& schema;
  std::size_t index;
  // Inside an optional or a list, mismatches are reported for the whole
  // argument ("expects int[], got float[]"), not for the item.
  const SchemaType* outer_type = nullptr;
  const Arg* outer_arg = nullptr;
  /// Boxing a kernel's result rather than a call's argument.
  bool result = false;

  CallContext entering(const SchemaType& type, const Arg& arg) const {
    if (outer_type != nullptr) return *this;
    return {schema, index, &type, &arg, result};
  }

  [[noreturn]] void fail(const std::string& problem, ErrorCode code = ErrorCode::BadArgument) const;
  [[noreturn]] void mismatch(const SchemaType& type, const Arg& arg) const;
};

/// Arg -> StableIValue for one schema type; the caller owns the result
/// (wrap it in a Boxed). Throws fp::Error (via `context`) on a mismatch.
StableIValue box(const SchemaType& type, const Arg& arg, const CallContext& context);

/// StableIValue -> Returned, taking ownership of whatever `value` owns; on an
/// exception nothing leaks.
Returned unbox(const SchemaType& type, StableIValue value);

}  // namespace fp::abi::boxing
