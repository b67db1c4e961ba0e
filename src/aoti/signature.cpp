// extra/flash_powder.json, the signature tools/export_aoti.py writes:
//   {"format": 1, "torch_version": "2.13.0+cpu",
//    "inputs": [{"name": "x", "dtype": "float32", "device": "cpu",
//                "sizes": [{"symbol": "s17", "min": 1, "max": 64}, 4]}]}
#include <nlohmann/json.hpp>

#include "flash_powder/base/error.h"
#include "messages.h"
#include "package_reader.h"

namespace fp::aoti::detail {
namespace {

using Json = nlohmann::json;

class SignatureParser {
 public:
  explicit SignatureParser(const std::string& source) : source_(source) {}

  Signature parse(const Json& json) const {
    if (!json.is_object() || json.value("format", Json()) != Json(1))
      fail("it is not a format-1 signature object; re-export with tools/export_aoti.py");
    Signature signature;
    signature.torch_version = string_field(json, "torch_version");
    const Json& inputs = field(json, "inputs");
    if (!inputs.is_array()) fail("\"inputs\" is not a list");
    for (const Json& input : inputs)
      signature.inputs.push_back(input_spec(input));
    return signature;
  }

 private:
  InputSpec input_spec(const Json& json) const {
    InputSpec spec;
    spec.name = string_field(json, "name");
    spec.dtype = dtype(string_field(json, "dtype"));
    try {
      spec.device = Device::parse(string_field(json, "device"));
    } catch (const Error& error) {
      fail("input " + in_quotes(spec.name) + ": " + error.what());
    }
    const Json& sizes = field(json, "sizes");
    if (!sizes.is_array()) fail("input " + in_quotes(spec.name) + ": \"sizes\" is not a list");
    for (const Json& size : sizes)
      spec.sizes.push_back(dim(size, spec.name));
    return spec;
  }

  DimSpec dim(const Json& json, const std::string& input) const {
    if (json.is_number_integer() && json.get<std::int64_t>() >= 0) {
      const auto size = json.get<std::int64_t>();
      return {size, size, ""};
    }
    if (!json.is_object()) fail("input " + in_quotes(input) + ": a size is not a count or range");
    DimSpec spec{integer(json, "min"), integer(json, "max"), string_field(json, "symbol")};
    if (spec.symbol.empty() || spec.min < 0 || spec.max < spec.min)
      fail("input " + in_quotes(input) + ": a dynamic size has an empty symbol or bad range");
    return spec;
  }

  DType dtype(const std::string& name) const {
    for (DType candidate : all_dtypes)
      if (fp::name(candidate) == name) return candidate;
    fail("unknown dtype " + in_quotes(name));
  }

  const Json& field(const Json& json, const char* key) const {
    if (!json.is_object() || !json.contains(key)) fail(std::string("no \"") + key + "\"");
    return json[key];
  }
  std::string string_field(const Json& json, const char* key) const {
    const Json& value = field(json, key);
    if (!value.is_string()) fail(std::string("\"") + key + "\" is not a string");
    return value.get<std::string>();
  }
  std::int64_t integer(const Json& json, const char* key) const {
    const Json& value = field(json, key);
    // torch.export writes int_oo (unbounded) as a very large number or null.
    if (value.is_null()) return INT64_MAX;
    if (!value.is_number_integer()) fail(std::string("\"") + key + "\" is not an integer");
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > INT64_MAX) return INT64_MAX;
    return value.get<std::int64_t>();
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorCode::Format, message_prefix(source_) + "extra/flash_powder.json: " + what);
  }

  const std::string& source_;
};

}  // namespace

Signature parse_signature(const std::string& text, const std::string& source) {
  const Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded())
    throw Error(ErrorCode::Format,
                message_prefix(source) + "extra/flash_powder.json is not valid JSON");
  return SignatureParser(source).parse(json);
}

}  // namespace fp::aoti::detail
