// StableIValue boxing in both directions (boxing.h).
#include "boxing.h"

#include <bit>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "schema_error.h"

namespace fp::abi::boxing {

using Kind = SchemaType::Kind;

// ---------------------------------------------------------------------------
// Freeing boxed values (inputs that never reached libtorch, unwanted results).

void free_boxed(const SchemaType& type, StableIValue value) noexcept {
  switch (type.kind) {
    case Kind::Tensor:
      if (value != 0) aoti_torch_delete_tensor_object(std::bit_cast<AtenTensorHandle>(value));
      return;
    case Kind::Str:
      if (value != 0) torch_delete_string(std::bit_cast<StringHandle>(value));
      return;
    case Kind::Generator:
      if (value != 0) late::delete_generator(std::bit_cast<AtenGeneratorHandle>(value));
      return;
    case Kind::Optional:
      if (value != 0) {
        auto* box = std::bit_cast<StableIValue*>(value);
        free_boxed(*type.element, *box);
        late::delete_stable_ivalue(box);
      }
      return;
    case Kind::List: {
      if (value == 0) return;
      auto list = std::bit_cast<StableListHandle>(value);
      std::size_t size = 0;
      if (torch_list_size(list, &size) == AOTI_TORCH_SUCCESS) {
        for (std::size_t i = 0; i < size; ++i) {
          StableIValue item = 0;
          if (torch_list_get_item(list, i, &item) == AOTI_TORCH_SUCCESS) {
            free_boxed(*type.element, item);
          }
        }
      }
      torch_delete_list(list);
      return;
    }
    default:
      return;  // plain bits own nothing
  }
}

// ---------------------------------------------------------------------------
// Boxing: Arg -> StableIValue for one schema type.

void CallContext::fail(const std::string& problem, ErrorCode code) const {
  const SchemaArgument& entry = result ? schema.returns[index] : schema.arguments[index];
  const std::string quoted_name = entry.name.empty() ? "" : " '" + entry.name + "'";
  fail_against_schema(
      code, schema.qualified_name(),
      (result ? "result " : "argument ") + std::to_string(index) + quoted_name + " " + problem,
      schema.text);
}

void CallContext::mismatch(const SchemaType& type, const Arg& arg) const {
  const SchemaType& reported_type = outer_type ? *outer_type : type;
  const Arg& reported_arg = outer_arg ? *outer_arg : arg;
  fail("expects " + reported_type.spelling + ", got " + std::string(reported_arg.type_name()));
}

namespace {

StableIValue box_tensor(RawTensor tensor, const SchemaType& type, const CallContext& context) {
  if (tensor == nullptr) context.fail("expects " + type.spelling + ", got a null tensor handle");
  AtenTensorHandle shared = nullptr;
  check(aoti_torch_new_tensor_handle(tensor, &shared), "aoti_torch_new_tensor_handle");
  return std::bit_cast<StableIValue>(shared);
}

StableIValue box_string(const std::string& text) {
  StringHandle handle = nullptr;
  check(torch_new_string_handle(text.data(), text.size(), &handle), "torch_new_string_handle");
  return std::bit_cast<StableIValue>(handle);
}

StableIValue box_device(Device device) {
  const auto index = static_cast<std::uint32_t>(static_cast<std::int32_t>(device.index));
  const auto type = static_cast<std::uint32_t>(to_code(device.type));
  return StableIValue{index} | (StableIValue{type} << 32);
}

StableIValue box_optional(const SchemaType& type, const Arg& arg, const CallContext& context) {
  if (std::holds_alternative<None>(arg.value)) return 0;
  Boxed inner(*type.element, box(*type.element, arg, context));
  StableIValue* holder = late::new_stable_ivalue();
  *holder = inner.release();
  return std::bit_cast<StableIValue>(holder);
}

/// The items of a list argument, each already an Arg of the element's kind.
std::vector<Arg> list_items(const SchemaType& type, const Arg& arg, const CallContext& context) {
  std::vector<Arg> items;
  const SchemaType& element = *type.element;
  if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&arg.value)) {
    for (auto value : *ints)
      items.push_back({value});
  } else if (const auto* doubles = std::get_if<std::vector<double>>(&arg.value)) {
    for (auto value : *doubles)
      items.push_back({value});
  } else if (const auto* bools = std::get_if<std::vector<bool>>(&arg.value)) {
    for (bool value : *bools)
      items.push_back({value});
  } else if (const auto* tensors = std::get_if<std::vector<RawTensor>>(&arg.value)) {
    for (auto* tensor : *tensors)
      items.push_back(tensor ? Arg{tensor} : Arg{None{}});
  } else if (type.fixed_size > 0 && (std::holds_alternative<std::int64_t>(arg.value) ||
                                     std::holds_alternative<double>(arg.value) ||
                                     std::holds_alternative<bool>(arg.value))) {
    // Like Python, a single number fills a fixed-size list: `int[2] stride=1`.
    items.assign(static_cast<std::size_t>(type.fixed_size), arg);
  } else {
    context.mismatch(type, arg);
  }
  // A None item is only allowed where the element type is optional.
  for (const auto& item : items) {
    if (std::holds_alternative<None>(item.value) && element.kind != Kind::Optional) {
      context.fail("expects " + type.spelling + ", got a list holding a null tensor");
    }
  }
  return items;
}

StableIValue box_list(const SchemaType& type, const Arg& arg, const CallContext& context) {
  const std::vector<Arg> items = list_items(type, arg, context);
  StableListHandle raw = nullptr;
  check(torch_new_list_reserve_size(items.size(), &raw), "torch_new_list_reserve_size");
  Boxed list(type, std::bit_cast<StableIValue>(raw));
  for (const Arg& item : items) {
    Boxed boxed(*type.element, box(*type.element, item, context));
    check(torch_list_push_back(raw, boxed.get()), "torch_list_push_back");
    boxed.release();  // the list owns it now
  }
  return list.release();
}

}  // namespace

StableIValue box(const SchemaType& type, const Arg& arg, const CallContext& context) {
  const auto& value = arg.value;
  switch (type.kind) {
    case Kind::Optional:
      return box_optional(type, arg, context.entering(type, arg));
    case Kind::List:
      return box_list(type, arg, context.entering(type, arg));
    case Kind::Tensor:
      if (auto* tensor = std::get_if<RawTensor>(&value)) return box_tensor(*tensor, type, context);
      break;
    case Kind::Int:
      if (auto* integer = std::get_if<std::int64_t>(&value)) return bits_of(*integer);
      break;
    case Kind::Float:
      if (auto* real = std::get_if<double>(&value)) return bits_of(*real);
      // Like Python, an int is accepted where a float is expected.
      if (auto* integer = std::get_if<std::int64_t>(&value)) {
        return bits_of(static_cast<double>(*integer));
      }
      break;
    case Kind::Bool:
      if (auto* flag = std::get_if<bool>(&value)) return bits_of(*flag);
      break;
    case Kind::Str:
      if (auto* text = std::get_if<std::string>(&value)) return box_string(*text);
      break;
    case Kind::ScalarType:
      if (auto* dtype = std::get_if<DType>(&value)) return bits_of(to_code(*dtype));
      break;
    case Kind::Layout:
      if (auto* layout = std::get_if<Layout>(&value)) return bits_of(to_code(*layout));
      break;
    case Kind::MemoryFormat:
      if (auto* format = std::get_if<MemoryFormat>(&value)) return bits_of(to_code(*format));
      break;
    case Kind::Device:
      if (auto* device = std::get_if<Device>(&value)) return box_device(*device);
      break;
    case Kind::Generator:
      if (auto* generator = std::get_if<RawGenerator>(&value)) {
        if (*generator == nullptr) context.fail("got a null generator handle");
        AtenGeneratorHandle shared = nullptr;
        check(late::new_generator_handle(*generator, &shared), "torch_new_generator_handle");
        return std::bit_cast<StableIValue>(shared);
      }
      break;
    case Kind::Unsupported:
      context.fail(
          "has type " + type.spelling +
              ", which libtorch's stable ABI cannot carry (a Scalar, Dimname, Storage, ...)",
          ErrorCode::Unsupported);
  }
  context.mismatch(type, arg);
}

// ---------------------------------------------------------------------------
// Unboxing results: StableIValue -> Returned (taking ownership).

namespace {

template <class Item>
std::vector<Item> unbox_items(const SchemaType& type, std::vector<Boxed>& items) {
  std::vector<Item> out;
  for (auto& item : items) {
    Returned one = unbox(*type.element, item.release());
    out.push_back(std::move(std::get<Item>(one.value)));
  }
  return out;
}

Returned unbox_list(const SchemaType& type, StableIValue value) {
  Boxed list(type, value);  // frees the list and its items if anything below throws
  auto raw = std::bit_cast<StableListHandle>(value);
  std::size_t size = 0;
  check(torch_list_size(raw, &size), "torch_list_size");
  std::vector<StableIValue> items(size);
  for (std::size_t i = 0; i < size; ++i) {
    check(torch_list_get_item(raw, i, &items[i]), "torch_list_get_item");
  }
  // The items now belong to us; the list shell is deleted without them.
  list.release();
  check(torch_delete_list(raw), "torch_delete_list");
  std::vector<Boxed> owned;
  owned.reserve(size);
  for (auto item : items)
    owned.emplace_back(*type.element, item);

  switch (type.element->kind) {
    case Kind::Tensor:
      return {unbox_items<TensorHandle>(type, owned)};
    case Kind::Int:
      return {unbox_items<std::int64_t>(type, owned)};
    case Kind::Float:
      return {unbox_items<double>(type, owned)};
    case Kind::Bool:
      return {unbox_items<bool>(type, owned)};
    default:
      throw Error(ErrorCode::Unsupported,
                  "fp::dispatch: results of type " + type.spelling + " are not supported");
  }
}

}  // namespace

Returned unbox(const SchemaType& type, StableIValue value) {
  switch (type.kind) {
    case Kind::Tensor:
      return {TensorHandle(std::bit_cast<AtenTensorHandle>(value))};
    case Kind::Int:
      return {std::bit_cast<std::int64_t>(value)};
    case Kind::Float:
      return {std::bit_cast<double>(value)};
    case Kind::Bool:
      return {(value & 0xff) != 0};
    case Kind::ScalarType:
      return {dtype_from_code(static_cast<std::int32_t>(value))};
    case Kind::Layout:
      return {layout_from_code(static_cast<std::int32_t>(value))};
    case Kind::MemoryFormat:
      return {memory_format_from_code(static_cast<std::int32_t>(value))};
    case Kind::Device:
      return {Device{device_type_from_code(static_cast<std::int8_t>(value >> 32)),
                     static_cast<std::int8_t>(static_cast<std::int32_t>(value & 0xffffffff))}};
    case Kind::Str: {
      Boxed owned(type, value);
      const char* data = nullptr;
      std::size_t length = 0;
      check(torch_string_c_str(std::bit_cast<StringHandle>(value), &data), "torch_string_c_str");
      check(torch_string_length(std::bit_cast<StringHandle>(value), &length),
            "torch_string_length");
      return {std::string(data, length)};
    }
    case Kind::Generator:
      return {GeneratorHandle(std::bit_cast<AtenGeneratorHandle>(value))};
    case Kind::Optional: {
      if (value == 0) return {None{}};
      auto* holder = std::bit_cast<StableIValue*>(value);
      const StableIValue inner = *holder;
      late::delete_stable_ivalue(holder);
      return unbox(*type.element, inner);
    }
    case Kind::List:
      return unbox_list(type, value);
    case Kind::Unsupported:
      break;
  }
  throw Error(ErrorCode::Unsupported,
              "fp::dispatch: results of type " + type.spelling + " are not supported");
}

}  // namespace fp::abi::boxing
