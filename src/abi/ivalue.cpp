#include "flash_powder/abi/ivalue.h"

#include <string>
#include <type_traits>
#include <variant>

#include "flash_powder/abi/schema_types.h"
#include "schema_error.h"

namespace fp::abi {
namespace {

/// The schema type name of a value Arg or Returned holds: "int", "Tensor",
/// "float[]" (the plain types' names from schema_types.h).
template <class T>
std::string_view schema_name_of() {
  if constexpr (std::is_same_v<T, None>) {
    return "None";
  } else if constexpr (std::is_same_v<T, RawTensor> || std::is_same_v<T, TensorHandle>) {
    return "Tensor";
  } else if constexpr (std::is_same_v<T, GeneratorHandle>) {
    return SchemaValue<RawGenerator>::name;
  } else if constexpr (PlainSchemaValue<T>) {
    return SchemaValue<T>::name;
  } else {
    static const std::string list = std::string(schema_name_of<typename T::value_type>()) + "[]";
    return list;
  }
}

template <class Variant>
std::string_view schema_name_of_value(const Variant& value) {
  return std::visit(
      [](const auto& held) { return schema_name_of<std::remove_cvref_t<decltype(held)>>(); },
      value);
}

}  // namespace

std::string_view Arg::type_name() const {
  return schema_name_of_value(value);
}

std::string_view Returned::type_name() const {
  return schema_name_of_value(value);
}

void Results::fail(std::string_view problem) const {
  fail_against_schema(ErrorCode::BadArgument, op, problem, schema);
}

}  // namespace fp::abi
