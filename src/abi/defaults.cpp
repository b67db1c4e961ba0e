// The defaults of a schema's arguments, parsed from their text once per
// schema (defaults.h).
#include "defaults.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "boxing.h"

namespace fp::abi {

struct SchemaDefaults {
  /// One per argument from the first with a default on: the value an
  /// omitted argument takes, or the error a call that omits it throws.
  std::vector<std::variant<Arg, std::exception_ptr>> values;
  std::size_t first = 0;
};

namespace {

using Kind = SchemaType::Kind;
using boxing::CallContext;

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
                   " that cannot be passed through the stable ABI; pass the argument explicitly",
               ErrorCode::Unsupported);
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

/// What a call that omits argument `index` boxes, or the error it throws:
/// a default of a type the stable ABI cannot carry is refused, except an
/// omitted `Scalar? x=None`, which is None on the wire like an explicit None.
std::variant<Arg, std::exception_ptr> omitted(const Schema& schema, std::size_t index) {
  const SchemaArgument& argument = schema.arguments[index];
  const CallContext context{schema, index};
  try {
    const bool omitted_none =
        argument.type.kind == Kind::Optional && argument.default_value == "None";
    if (argument.type.carries_unsupported() && !omitted_none) {
      context.fail("(" + argument.type.spelling + ", default " + *argument.default_value +
                       ") cannot be passed through libtorch's stable ABI, not even as its "
                       "default; use an overload without it",
                   ErrorCode::Unsupported);
    }
    return parse_default(argument.type, *argument.default_value, context);
  } catch (const std::exception&) {
    // Kept for the call that omits this argument: a schema may have a
    // default no call ever needs.
    return std::current_exception();
  }
}

}  // namespace

std::shared_ptr<const SchemaDefaults> parse_defaults(const Schema& schema) {
  auto defaults = std::make_shared<SchemaDefaults>();
  defaults->first = schema.required_arguments();
  for (std::size_t i = defaults->first; i < schema.arguments.size(); ++i)
    defaults->values.push_back(omitted(schema, i));
  return defaults;
}

const Arg& default_argument(const Schema& schema, std::size_t index) {
  const SchemaDefaults& defaults = *schema.defaults_;
  const auto& value = defaults.values.at(index - defaults.first);
  if (const auto* error = std::get_if<std::exception_ptr>(&value)) std::rethrow_exception(*error);
  return std::get<Arg>(value);
}

}  // namespace fp::abi
