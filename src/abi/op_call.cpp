// fp::abi::OpCall (op_call.h): boxes a call's arguments as they come, checks
// the call against its schema, runs torch_call_dispatcher and hands out the
// results.
//
// Ownership on the wire (torch_call_dispatcher's rules): every boxed input
// (tensor handle, list, string, optional box) is consumed by libtorch once the
// call starts, and every returned handle belongs to the caller. Until libtorch
// takes them, the boxed values are owned by the OpCall, and so are the results
// until they are taken, so an exception never leaks one.
#include "op_call.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "boxing.h"
#include "defaults.h"
#include "flash_powder/abi/runtime.h"
#include "flash_powder/abi/schema.h"
#include "no_grad.h"
#include "schema_error.h"
#include "testing.h"
#include "torch_c.h"

namespace fp::abi {
static_assert(std::is_same_v<BoxedValue, StableIValue>);

namespace {

using Kind = SchemaType::Kind;
using boxing::bits_of;
using boxing::box;
using boxing::CallContext;
using boxing::free_boxed;
using boxing::unbox;

/// The alias set of an annotation: "a" of "a!", "a -> *" and "a".
std::string_view alias_set(std::string_view alias) {
  const auto end = alias.find_first_of("!- ");
  return alias.substr(0, end);
}

// ---------------------------------------------------------------------------
// Releases: an op the loaded torch lacks is refused before anything is boxed,
// with a message that says why. libtorch itself would only say that it found
// no schema, and before 2.13 only on stderr: then not even the boxed stack
// could be freed, as nothing tells that libtorch never took it.

/// The loaded torch as the release check sees it, read once: every call
/// compares with it.
TorchVersion& loaded_torch_for_checks() {
  static TorchVersion loaded = torch_version();
  return loaded;
}

/// "2.12": releases add and remove ops, their patch releases do not.
std::string release_name(const TorchVersion& version) {
  return std::to_string(version.major) + "." + std::to_string(version.minor);
}

[[noreturn]] void refuse_unavailable(const Schema& schema, const TorchVersion& loaded) {
  const Availability& availability = schema.availability;
  const std::string needs = loaded < availability.since
                                ? "needs torch " + release_name(availability.since) + " or later"
                                : "was removed in torch " + release_name(*availability.removed_in);
  throw Error(ErrorCode::UnsupportedByTorch, schema.qualified_name() + " " + needs +
                                                 "; this process loaded torch " + loaded.str());
}

void check_available(const Schema& schema) {
  const TorchVersion& loaded = loaded_torch_for_checks();
  if (!schema.availability.includes(loaded)) [[unlikely]] {
    refuse_unavailable(schema, loaded);
  }
}

}  // namespace

void testing::pretend_loaded_torch(std::optional<TorchVersion> version) {
  loaded_torch_for_checks() = version.value_or(torch_version());
}

// ---------------------------------------------------------------------------
// OpCall

void OpCall::grow() {
  const std::size_t needed = std::max(schema_->arguments.size(), schema_->returns.size());
  if (stack_.size() < needed) {
    heap_stack_.assign(needed, 0);
    stack_ = heap_stack_;
  }
  if (lendings_.size() < schema_->arguments.size()) {
    heap_lendings_.assign(schema_->arguments.size(), Lending{});
    lendings_ = heap_lendings_;
  }
}

void OpCall::check_release() const {
  check_available(*schema_);
}

void OpCall::free_owned() noexcept {
  for (std::size_t i = 0; i < boxed_; ++i)
    free_boxed(schema_->arguments[i].type, stack_[i]);
  for (std::size_t i = 0; i < result_count_; ++i) {
    if (stack_[i] != 0) free_boxed(schema_->returns[i].type, std::exchange(stack_[i], 0));
  }
  results_owned_ = 0;
}

void OpCall::fail(std::string_view problem, ErrorCode code) const {
  fail_against_schema(code, schema_->qualified_name(), problem, schema_->text);
}

void OpCall::fail_too_many() const {
  fail("takes at most " + std::to_string(schema_->arguments.size()) + " arguments, got more");
}

void OpCall::tensor(RawTensor tensor, const Lending& lending) {
  const SchemaType& type = next_type();
  if (type.kind != Kind::Tensor || tensor == nullptr) {
    Arg arg{tensor};
    arg.writable = lending.writable;
    arg.owner_guard = lending.owner_guard;
    arg.viewed_guard = lending.viewed_guard;
    value(arg);
    return;
  }
  AtenTensorHandle shared = nullptr;
  check(aoti_torch_new_tensor_handle(tensor, &shared), "aoti_torch_new_tensor_handle");
  push(std::bit_cast<StableIValue>(shared), lending);
}

void OpCall::dtype(DType value) {
  if (next_type().kind != Kind::ScalarType) return this->value(Arg{value});
  push(bits_of(to_code(value)), {});
}

void OpCall::value(const Arg& arg) {
  const SchemaType& type = next_type();
  const StableIValue boxed = box(type, arg, CallContext{*schema_, boxed_});
  push(boxed, {arg.writable, arg.owner_guard, arg.viewed_guard});
}

void OpCall::box_defaults() {
  if (!schema_->returns_problem().empty()) fail(schema_->returns_problem(), ErrorCode::Unsupported);
  const std::size_t required = schema_->required_arguments();
  if (boxed_ < required) [[unlikely]] {
    const auto& missing = schema_->arguments[boxed_];
    fail("missing argument " + std::to_string(boxed_) + " '" + missing.name + "' (" +
         missing.type.spelling + "); " + std::to_string(required) +
         " arguments have no default, got " + std::to_string(boxed_));
  }
  while (boxed_ < schema_->arguments.size()) {
    value(default_argument(*schema_, boxed_));
  }
}

/// Arguments the schema writes to (`Tensor(a!)`) must have been lent for
/// writing, and their owners must have no other live views (the borrow rules).
void OpCall::check_writes() const {
  const std::span<const Lending> lendings = lendings_.first(boxed_);
  for (std::size_t i = 0; i < lendings.size(); ++i) {
    const SchemaArgument& argument = schema_->arguments[i];
    // None (an omitted `Tensor(a!)?`) is not written.
    if (!argument.type.is_mutable() || stack_[i] == 0) continue;
    const CallContext context{*schema_, i};
    if (!lendings[i].writable) {
      context.fail("is written to (" + argument.type.spelling +
                   "); pass a non-const fp::Tensor or an fp::TensorMutView, not a const "
                   "reference, a TensorView or a temporary");
    }
    const WriteGuard* guard = lendings[i].owner_guard;
    if (guard == nullptr) continue;
    int own_arguments = 0;
    for (const Lending& other : lendings)
      own_arguments += other.viewed_guard == guard;
    guard->check_write(schema_->qualified_name().c_str(), own_arguments);
  }
}

void OpCall::dispatch() {
  check_available(*schema_);
  static const std::uint64_t schema_version = builtin_schema_abi_version();
  const NoGradScope no_grad;
  const auto status = torch_call_dispatcher(schema_->op_name().c_str(), schema_->overload.c_str(),
                                            stack_.data(), schema_version);
  if (status != AOTI_TORCH_SUCCESS) {
    // libtorch consumes the stack once it has found the op, and says no more
    // than that the call failed. An op it lacks is refused before anything
    // is boxed: a builtin op by its releases (refuse_unavailable), a custom
    // op whose fp::library::Library is gone by the registry. So the stack is
    // libtorch's now, whatever its message says. (A schema registered with
    // register_schema for an op libtorch never had leaves this one call's
    // boxed arguments unfreed: nothing libtorch answers tells them apart.)
    boxed_ = 0;
    throw Error(ErrorCode::TorchError, schema_->qualified_name() + ": " + last_torch_error());
  }
  boxed_ = 0;
  result_count_ = schema_->returns.size();
  // Counted as owned even where a result is all zero bits (an undefined
  // tensor, the int 0): freeing those does nothing.
  results_owned_ = result_count_;
}

const WriteGuard* OpCall::guard_of_alias(std::string_view set) const noexcept {
  for (std::size_t j = 0; j < schema_->arguments.size() && j < lendings_.size(); ++j) {
    if (alias_set(schema_->arguments[j].type.alias) != set) continue;
    const Lending& lending = lendings_[j];
    return lending.viewed_guard != nullptr ? lending.viewed_guard : lending.owner_guard;
  }
  return nullptr;
}

void OpCall::fail_result(std::size_t i, std::string_view got, std::string_view wanted) const {
  if (i >= result_count_) {
    fail("returned " + std::to_string(result_count_) + " values, expected " +
         std::to_string(i + 1));
  }
  fail("returned " + std::string(got) + " as result " + std::to_string(i) + ", expected " +
       std::string(wanted));
}

void OpCall::fail_not_tensor(std::size_t i) const {
  fail_result(i, i < result_count_ ? schema_->returns[i].type.spelling : "", "Tensor");
}

Returned OpCall::take(std::size_t i) {
  if (i >= result_count_) [[unlikely]] {
    fail_result(i, "", "a value");
  }
  const SchemaType& type = schema_->returns[i].type;
  --results_owned_;
  Returned result = unbox(type, std::exchange(stack_[i], 0));
  result.aliases_argument = !type.alias.empty();
  if (result.aliases_argument) result.alias_guard = guard_of_alias(alias_set(type.alias));
  return result;
}

}  // namespace fp::abi
