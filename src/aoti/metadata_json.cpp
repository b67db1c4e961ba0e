#include "metadata_json.h"

#include <nlohmann/json.hpp>

#include "flash_powder/base/error.h"
#include "messages.h"

namespace fp::aoti::detail {
namespace {

using Json = nlohmann::json;

Json parse_json(const std::string& text, const std::string& source, const char* what) {
  // No exceptions from the parser: a discarded value marks malformed text.
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded())
    throw Error(ErrorCode::Format,
                message_prefix(source) + "the " + what + " file is not valid JSON");
  return json;
}

}  // namespace

std::map<std::string, std::string> parse_metadata(const std::string& text,
                                                  const std::string& source) {
  const Json json = parse_json(text, source, "metadata");
  if (!json.is_object())
    throw Error(ErrorCode::Format,
                message_prefix(source) + "the metadata file is not a JSON object");
  std::map<std::string, std::string> metadata;
  for (const auto& [key, value] : json.items()) {
    if (!value.is_string())
      throw Error(ErrorCode::Format,
                  message_prefix(source) + "metadata " + in_quotes(key) + " is not a string");
    metadata.emplace(key, value.get<std::string>());
  }
  return metadata;
}

std::vector<std::string> parse_proxy_ops(const std::string& text, const std::string& source) {
  const Json json = parse_json(text, source, "proxy executor (extern kernel nodes)");
  std::vector<std::string> ops;
  if (!json.is_object() || !json.contains("nodes") || !json["nodes"].is_array()) return ops;
  for (const auto& node : json["nodes"]) {
    const Json* target = nullptr;
    if (node.is_object() && node.contains("node") && node["node"].is_object() &&
        node["node"].contains("target"))
      target = &node["node"]["target"];
    ops.push_back(target != nullptr && target->is_string() ? target->get<std::string>()
                                                           : "<unnamed op>");
  }
  return ops;
}

}  // namespace fp::aoti::detail
