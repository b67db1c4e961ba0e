// fp::abi::OpCall: one call of an op through libtorch's dispatcher, its
// arguments boxed into StableIValues as they are given and its results
// unboxed one at a time as they are taken.
//
// This is the route every dispatched op takes: the generated fp::aten::*
// wrappers give their typed arguments straight to it (a tensor becomes a
// handle, an int its bits: no Arg in between), and fp::dispatch gives it the
// Args it captured. Either way the checks are the same (fp::abi::call's
// documentation lists them) and an exception frees whatever was boxed.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "flash_powder/abi/ivalue.h"
#include "flash_powder/abi/schema.h"
#include "flash_powder/abi/tensor_handle.h"

namespace fp::abi {

/// A StableIValue: 64 bits whose meaning the schema gives (a tensor handle,
/// an int's bits, ...).
using BoxedValue = std::uint64_t;

/// How a tensor argument was lent (the borrow facts of an Arg), which a call
/// of an op that writes its arguments checks.
struct Lending {
  bool writable = false;
  const WriteGuard* owner_guard = nullptr;
  const WriteGuard* viewed_guard = nullptr;
};

/// One call of `schema`. Give the arguments in the schema's order (trailing
/// ones with defaults may be left out), run(), then take the results.
class OpCall {
 public:
  /// `stack` and `lendings` are the caller's room for the boxed values (one
  /// per argument or result, whichever is more) and for the arguments'
  /// lendings; a call that needs more keeps its own on the heap.
  OpCall(const Schema& schema, std::span<BoxedValue> stack, std::span<Lending> lendings)
      : schema_(&schema), stack_(stack), lendings_(lendings) {
    if (std::min(stack.size(), lendings.size()) < schema.stack_size()) [[unlikely]]
      grow();
  }
  OpCall(const OpCall&) = delete;
  OpCall& operator=(const OpCall&) = delete;
  /// Frees the arguments libtorch did not take and the results not taken.
  ~OpCall() {
    if (boxed_ != 0 || results_owned_ != 0) free_owned();
  }

  /// Throws fp::Error when the loaded torch lacks the op ("needs torch 2.12
  /// or later; ..."); run() checks it too.
  void check_release() const;

  /// Whether the op writes an argument: only then do the arguments' lendings matter.
  bool checks_lendings() const noexcept { return schema_->writes_arguments(); }

  // --- arguments, each boxed for the schema type it meets ---
  /// A tensor (`Tensor`, or `Tensor?` with a value); libtorch gets a new handle to it.
  void tensor(RawTensor tensor, const Lending& lending);
  void integer(std::int64_t value) {
    if (!next_is(SchemaKind::Int)) [[unlikely]]
      return this->value(Arg{value});
    push(std::bit_cast<BoxedValue>(value), {});
  }
  void real(double value) {
    if (!next_is(SchemaKind::Float)) [[unlikely]]
      return this->value(Arg{value});
    push(std::bit_cast<BoxedValue>(value), {});
  }
  void boolean(bool value) {
    if (!next_is(SchemaKind::Bool)) [[unlikely]]
      return this->value(Arg{value});
    push(BoxedValue{value}, {});
  }
  void dtype(DType value);
  /// None, for an optional argument.
  void none() {
    if (!next_is(SchemaKind::Optional)) [[unlikely]]
      return value(Arg{None{}});
    push(0, {});
  }
  /// Any argument (lists, strings, optionals with a value, ...).
  void value(const Arg& arg);

  /// Fills in the omitted arguments' defaults, checks the borrow rules of
  /// the arguments the op writes, and calls it; throws fp::Error with
  /// libtorch's message if it fails. An op the loaded torch lacks is refused
  /// before it reaches libtorch ("needs torch 2.12 or later; ...").
  void run() {
    if (boxed_ < schema_->arguments.size() || !schema_->returns_problem().empty()) [[unlikely]] {
      box_defaults();
    }
    if (schema_->writes_arguments()) check_writes();
    dispatch();
  }

  // --- results, once run() has returned ---
  std::size_t result_count() const noexcept { return result_count_; }
  /// Result `i` as a tensor handle; throws fp::Error unless the schema
  /// returns a Tensor there.
  TensorHandle take_tensor(std::size_t i) {
    if (i >= result_count_ || schema_->returns[i].type.kind != SchemaKind::Tensor) [[unlikely]] {
      fail_not_tensor(i);
    }
    --results_owned_;
    return TensorHandle(std::bit_cast<RawTensor>(std::exchange(stack_[i], 0)));
  }
  /// Result `i`, whatever its type.
  Returned take(std::size_t i);
  /// Throws fp::Error("<op>: <problem>; the schema is <schema>").
  [[noreturn]] void fail(std::string_view problem, ErrorCode code = ErrorCode::BadArgument) const;

 private:
  using SchemaKind = SchemaType::Kind;
  /// The schema type of the next argument; throws when there is none.
  const SchemaType& next_type() const {
    if (boxed_ >= schema_->arguments.size()) [[unlikely]]
      fail_too_many();
    return schema_->arguments[boxed_].type;
  }
  bool next_is(SchemaKind kind) const { return next_type().kind == kind; }
  /// Stores an argument boxed for next_type() (owned here from now on).
  void push(BoxedValue boxed, const Lending& lending) noexcept {
    lendings_[boxed_] = lending;
    stack_[boxed_++] = boxed;
  }
  [[noreturn]] void fail_too_many() const;
  /// Refuses a call whose results cannot be carried, and boxes the defaults
  /// of the arguments left out.
  void box_defaults();
  void check_writes() const;
  /// Calls torch_call_dispatcher.
  void dispatch();
  void free_owned() noexcept;
  /// The guard of the argument whose alias set is `set` (its owner's, or the
  /// owner's of the view it is), or null.
  const WriteGuard* guard_of_alias(std::string_view set) const noexcept;
  [[noreturn]] void fail_result(std::size_t i, std::string_view got, std::string_view wanted) const;
  [[noreturn]] void fail_not_tensor(std::size_t i) const;
  /// Moves the stack and lendings to the heap when the caller's room is too small.
  void grow();

  const Schema* schema_;
  std::span<BoxedValue> stack_;
  std::span<Lending> lendings_;
  std::vector<BoxedValue> heap_stack_;
  std::vector<Lending> heap_lendings_;
  std::size_t boxed_ = 0;          // leading stack values that are arguments owned here
  std::size_t result_count_ = 0;   // leading stack values that are results (0 until run())
  std::size_t results_owned_ = 0;  // those not taken yet
};

}  // namespace fp::abi
