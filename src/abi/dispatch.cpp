// fp::abi::call: checks a call against its schema, boxes the arguments into
// StableIValues, runs torch_call_dispatcher and unboxes the results.
//
// Ownership on the wire (torch_call_dispatcher's rules): every boxed input (tensor handle,
// list, string, optional box) is consumed by libtorch once the call starts, and
// every returned handle belongs to the caller. Until libtorch takes them, the
// boxed values are owned by a BoxedStack here, so an exception never leaks one.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "boxing.h"
#include "flash_powder/abi/dispatch.h"
#include "flash_powder/abi/runtime.h"
#include "flash_powder/abi/schema.h"
#include "flash_powder/abi/testing.h"
#include "torch_c.h"

namespace fp::abi {
namespace {

using Kind = SchemaType::Kind;
using boxing::box;
using boxing::CallContext;
using boxing::free_boxed;
using boxing::unbox;

// ---------------------------------------------------------------------------
// Defaults: the schema's default text -> Arg.

std::string unquote(std::string_view text, const CallContext& context) {
  if (text.size() < 2 || (text.front() != '\'' && text.front() != '"') ||
      text.back() != text.front()) {
    context.fail("has a string default flash_powder cannot read: " + std::string(text));
  }
  std::string out;
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    if (text[i] == '\\' && i + 2 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

DType dtype_named(std::string_view name, const CallContext& context) {
  // The short names TorchScript schemas use for dtypes.
  if (name == "long") return DType::I64;
  if (name == "int") return DType::I32;
  if (name == "float") return DType::F32;
  if (name == "double") return DType::F64;
  if (name == "half") return DType::F16;
  if (name == "bool") return DType::Bool;
  for (DType dtype : all_dtypes) {
    if (fp::name(dtype) == name) return dtype;
  }
  context.fail("has a dtype default flash_powder does not know: " + std::string(name));
}

Arg parse_scalar_default(const SchemaType& type, std::string_view text,
                         const CallContext& context) {
  const std::string copy(text);
  switch (type.kind) {
    case Kind::Int:
      // at::Reduction's names appear as defaults: `int reduction=Mean`.
      if (text == "Mean") return {std::int64_t{1}};
      if (text == "Sum") return {std::int64_t{2}};
      return {std::int64_t{std::stoll(copy)}};
    case Kind::Float:
      return {std::strtod(copy.c_str(), nullptr)};
    case Kind::Bool:
      return {text == "True"};
    case Kind::Str:
      return {unquote(text, context)};
    case Kind::ScalarType:
      return {dtype_named(text, context)};
    case Kind::MemoryFormat:
      if (text == "contiguous_format") return {MemoryFormat::Contiguous};
      if (text == "preserve_format") return {MemoryFormat::Preserve};
      if (text == "channels_last") return {MemoryFormat::ChannelsLast};
      if (text == "channels_last_3d") return {MemoryFormat::ChannelsLast3d};
      break;
    case Kind::Layout:
      if (text == "strided") return {Layout::Strided};
      break;
    case Kind::Device:
      return {Device::parse(unquote(text, context))};
    default:
      break;
  }
  context.fail("has a default (" + std::string(text) + ") of type " + type.spelling +
               " that cannot be passed through the stable ABI; pass the argument explicitly");
}

std::vector<std::string_view> split_list(std::string_view text) {
  std::vector<std::string_view> items;
  text = text.substr(1, text.size() - 2);  // drop [ ]
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    if (!item.empty()) items.push_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

Arg parse_default(const SchemaType& type, std::string_view text, const CallContext& context) {
  if (text == "None") {
    if (type.kind != Kind::Optional) context.fail("has default None but is not optional");
    return {None{}};
  }
  if (type.kind == Kind::Optional) return parse_default(*type.element, text, context);
  if (type.kind != Kind::List) return parse_scalar_default(type, text, context);

  const SchemaType& element = *type.element;
  std::vector<Arg> items;
  if (text.front() == '[') {
    for (auto item : split_list(text))
      items.push_back(parse_scalar_default(element, item, context));
  } else {
    // A single value fills the list: `int[2] dilation=1` means [1, 1].
    const auto count = static_cast<std::size_t>(std::max<std::int64_t>(type.fixed_size, 1));
    items.assign(count, parse_scalar_default(element, text, context));
  }
  switch (element.kind) {
    case Kind::Int: {
      std::vector<std::int64_t> values;
      values.reserve(items.size());
      for (const auto& item : items)
        values.push_back(std::get<std::int64_t>(item.value));
      return {std::move(values)};
    }
    case Kind::Float: {
      std::vector<double> values;
      values.reserve(items.size());
      for (const auto& item : items)
        values.push_back(std::get<double>(item.value));
      return {std::move(values)};
    }
    case Kind::Bool: {
      std::vector<bool> values;
      values.reserve(items.size());
      for (const auto& item : items)
        values.push_back(std::get<bool>(item.value));
      return {std::move(values)};
    }
    default:
      if (items.empty()) return {std::vector<RawTensor>{}};
      context.fail("has a list default flash_powder cannot build: " + std::string(text));
  }
}

// ---------------------------------------------------------------------------

void check_call_shape(const Schema& schema, std::span<const Arg> args) {
  const auto fail = [&](const std::string& problem) {
    throw Error(schema.qualified_name() + ": " + problem + "; the schema is " + schema.text);
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
    fail(schema.returns_problem());
  }
}

/// The StableIValues of one call: the boxed arguments until libtorch takes
/// them, then the results it leaves in their place. Small calls keep them on
/// the C++ stack; an exception frees whatever is still owned here.
class BoxedStack {
 public:
  BoxedStack(const Schema& schema, std::size_t size) : schema_(schema) {
    if (size > inline_.size()) {
      heap_.assign(size, 0);
      values_ = heap_.data();
    }
  }
  BoxedStack(const BoxedStack&) = delete;
  BoxedStack& operator=(const BoxedStack&) = delete;
  ~BoxedStack() {
    for (std::size_t i = 0; i < boxed_; ++i)
      free_boxed(schema_.arguments[i].type, values_[i]);
  }

  /// Appends the next argument (owned here from now on).
  void push(StableIValue value) { values_[boxed_++] = value; }
  StableIValue* data() { return values_; }
  /// libtorch has taken the arguments.
  void release() { boxed_ = 0; }

  /// The results libtorch left on the stack. Each is owned from here on: if
  /// converting one fails, those not yet converted are freed.
  Results take_results() {
    const auto& returns = schema_.returns;
    Results results{{}, schema_.qualified_name(), schema_.text};
    for (std::size_t i = 0; i < returns.size(); ++i) {
      try {
        results.values.push_back(unbox(returns[i].type, values_[i]));
      } catch (...) {
        for (std::size_t j = i + 1; j < returns.size(); ++j)
          free_boxed(returns[j].type, values_[j]);
        throw;
      }
      results.values.back().aliases_argument = !returns[i].type.alias.empty();
    }
    return results;
  }

 private:
  static constexpr std::size_t inline_size = 16;
  const Schema& schema_;
  // Filled by push() before anything reads it.
  std::array<StableIValue, inline_size> inline_;
  std::vector<StableIValue> heap_;
  StableIValue* values_ = inline_.data();
  std::size_t boxed_ = 0;  // how many leading values are boxed arguments owned here
};

/// Arguments the schema writes to (`Tensor(a!)`) must have been lent for
/// writing, and their owners must have no other live views (the borrow rules).
void check_writes(const Schema& schema, std::span<const Arg> args) {
  if (!schema.writes_arguments()) return;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const SchemaArgument& argument = schema.arguments[i];
    if (!argument.type.is_mutable() || std::holds_alternative<None>(args[i].value)) continue;
    const CallContext context{schema, i};
    if (!args[i].writable) {
      context.fail("is written to (" + argument.type.spelling +
                   "); pass a non-const fp::Tensor or an fp::TensorMutView, not a const "
                   "reference, a TensorView or a temporary");
    }
    const WriteGuard* guard = args[i].owner_guard;
    if (guard == nullptr) continue;
    int own_arguments = 0;
    for (const Arg& other : args)
      own_arguments += other.viewed_guard == guard;
    guard->check_write(schema.qualified_name().c_str(), own_arguments);
  }
}

bool schema_was_not_found(const std::string& message) {
  return message.find("Could not find schema") != std::string::npos;
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
  throw Error(schema.qualified_name() + " " + needs + "; this process loaded torch " +
              loaded.str());
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

Results call(std::string_view op, std::string_view overload, std::span<const Arg> args) {
  return call(find_schema(op, overload), args);
}

Results call(const Schema& schema, std::span<const Arg> args) {
  check_available(schema);
  check_call_shape(schema, args);
  check_writes(schema, args);

  const std::size_t argument_count = schema.arguments.size();
  BoxedStack stack(schema, std::max(argument_count, schema.returns.size()));
  for (std::size_t i = 0; i < argument_count; ++i) {
    const SchemaArgument& argument = schema.arguments[i];
    const CallContext context{schema, i};
    if (i < args.size()) {
      stack.push(box(argument.type, args[i], context));
      continue;
    }
    // An omitted `Scalar? x=None` is None on the wire, like an explicit None;
    // any other default of a type the stable ABI cannot carry is refused.
    const bool omitted_none =
        argument.type.kind == SchemaType::Kind::Optional && argument.default_value == "None";
    if (argument.type.carries_unsupported() && !omitted_none) {
      context.fail("(" + argument.type.spelling + ", default " + *argument.default_value +
                   ") cannot be passed through libtorch's stable ABI, not even as its default; "
                   "use an overload without it");
    }
    const Arg value = parse_default(argument.type, *argument.default_value, context);
    stack.push(box(argument.type, value, context));
  }

  const auto status = torch_call_dispatcher(schema.op_name().c_str(), schema.overload.c_str(),
                                            stack.data(), builtin_schema_abi_version());
  if (status != AOTI_TORCH_SUCCESS) {
    const std::string message = last_torch_error();
    // libtorch consumes the stack once it has found the op; only when the
    // loaded torch lacks the op is it still ours to free.
    if (!schema_was_not_found(message)) stack.release();
    throw Error(schema.qualified_name() + ": " + message);
  }
  stack.release();
  return stack.take_results();
}

}  // namespace fp::abi
