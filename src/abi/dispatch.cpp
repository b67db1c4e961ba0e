// fp::abi::call: fp::dispatch's route, an OpCall fed with the Args it captured.
#include "flash_powder/abi/dispatch.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <variant>

#include "flash_powder/abi/schema.h"
#include "op_call.h"
#include "schema_error.h"
#include "string_free_routes.h"

namespace fp::abi {
namespace {

/// The string-free routes: a few, registered at load time, read by every
/// fp::dispatch call of an op with a `str` argument; slots are filled once
/// and never moved, so readers take no lock.
class StringFreeRoutes {
 public:
  bool add(std::size_t builtin_index, StringFreeRoute route) noexcept {
    const std::size_t slot = count_.fetch_add(1, std::memory_order_relaxed);
    if (slot >= capacity) return false;  // more than the ops with routes: a bug, seen in tests
    indices_[slot] = builtin_index;
    routes_[slot].store(route, std::memory_order_release);
    return true;
  }
  StringFreeRoute find(std::size_t builtin_index) const noexcept {
    const std::size_t filled = std::min(count_.load(std::memory_order_acquire), capacity);
    for (std::size_t slot = 0; slot < filled; ++slot) {
      const StringFreeRoute route = routes_[slot].load(std::memory_order_acquire);
      if (route != nullptr && indices_[slot] == builtin_index) return route;
    }
    return nullptr;
  }

 private:
  static constexpr std::size_t capacity = 16;
  std::atomic<std::size_t> count_{0};
  std::array<std::size_t, capacity> indices_{};
  std::array<std::atomic<StringFreeRoute>, capacity> routes_{};
};

StringFreeRoutes& string_free_routes() {
  static StringFreeRoutes routes;
  return routes;
}

void check_call_shape(const Schema& schema, std::span<const Arg> args) {
  const auto fail = [&](const std::string& problem, ErrorCode code = ErrorCode::BadArgument) {
    fail_against_schema(code, schema.qualified_name(), problem, schema.text);
  };
  if (args.size() > schema.arguments.size()) [[unlikely]] {
    fail("takes at most " + std::to_string(schema.arguments.size()) + " arguments, got " +
         std::to_string(args.size()));
  }
  if (args.size() < schema.required_arguments()) [[unlikely]] {
    const auto& missing = schema.arguments[args.size()];
    fail("missing argument " + std::to_string(args.size()) + " '" + missing.name + "' (" +
         missing.type.spelling + "); " + std::to_string(schema.required_arguments()) +
         " arguments have no default, got " + std::to_string(args.size()));
  }
  if (!schema.returns_problem().empty()) [[unlikely]] {
    fail(schema.returns_problem(), ErrorCode::Unsupported);
  }
}

/// The guard of the argument whose memory a Tensor result is, though the
/// schema does not say it aliases one (a composite op may hand an input
/// back: `atleast_1d`, `type_as`); `found` tells whether there is one.
/// fp::dispatch then treats the result as an annotated alias, so a Tensor
/// result is a lazy copy and a TensorView one borrows, as from the typed
/// wrappers.
void mark_unannotated_alias(Returned& result, std::span<const Arg> args) {
  const auto* handle = std::get_if<TensorHandle>(&result.value);
  if (result.aliases_argument || handle == nullptr) return;
  const void* data = data_start(handle->get());
  if (data == nullptr) return;
  for (const Arg& arg : args) {
    const auto* tensor = std::get_if<RawTensor>(&arg.value);
    if (tensor == nullptr || data_start(*tensor) != data) continue;
    result.aliases_argument = true;
    result.alias_guard = arg.viewed_guard != nullptr ? arg.viewed_guard : arg.owner_guard;
    return;
  }
}

}  // namespace

Results call(std::string_view op, std::string_view overload, std::span<const Arg> args) {
  return call(find_schema(op, overload), args);
}

bool set_string_free_route(std::size_t builtin_index, StringFreeRoute route) noexcept {
  return string_free_routes().add(builtin_index, route);
}

StringFreeRoute string_free_route(std::size_t builtin_index) noexcept {
  return string_free_routes().find(builtin_index);
}

Results call(const Schema& schema, std::span<const Arg> args) {
  if (const auto index = schema.builtin_index()) {
    if (const StringFreeRoute route = string_free_route(*index)) {
      if (auto values = route(args))
        return {std::move(*values), schema.qualified_name(), schema.text};
    }
  }
  // Room for most calls on the C++ stack; OpCall takes more from the heap.
  std::array<BoxedValue, 16> stack;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::array<Lending, 16> lendings;
  OpCall op(schema, stack, lendings);
  op.check_release();  // before the arguments: their problems matter only if the op exists
  check_call_shape(schema, args);
  for (const Arg& arg : args)
    op.value(arg);
  op.run();
  Results results{{}, schema.qualified_name(), schema.text};
  for (std::size_t i = 0; i < op.result_count(); ++i) {
    results.values.push_back(op.take(i));
    mark_unannotated_alias(results.values.back(), args);
  }
  return results;
}

}  // namespace fp::abi
