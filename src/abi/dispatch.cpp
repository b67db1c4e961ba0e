// fp::abi::call: fp::dispatch's route, an OpCall fed with the Args it captured.
#include "flash_powder/abi/dispatch.h"

#include <array>
#include <string>

#include "flash_powder/abi/op_call.h"
#include "flash_powder/abi/schema.h"

namespace fp::abi {
namespace {

void check_call_shape(const Schema& schema, std::span<const Arg> args) {
  const auto fail = [&](const std::string& problem, ErrorCode code = ErrorCode::BadArgument) {
    throw Error(code, schema.qualified_name() + ": " + problem + "; the schema is " + schema.text);
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

}  // namespace

Results call(std::string_view op, std::string_view overload, std::span<const Arg> args) {
  return call(find_schema(op, overload), args);
}

Results call(const Schema& schema, std::span<const Arg> args) {
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
  for (std::size_t i = 0; i < op.result_count(); ++i)
    results.values.push_back(op.take(i));
  return results;
}

}  // namespace fp::abi
