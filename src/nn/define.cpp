#include "flash_powder/nn/define.h"

#include <string>

namespace fp::nn::detail {
namespace {

bool is_identifier(std::string_view name) {
  const auto letter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (name.empty() || !letter(name.front())) return false;
  for (const char c : name) {
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

}  // namespace

std::vector<std::string_view> member_names(const ModuleBase& owner, std::string_view list,
                                           std::size_t count) {
  std::vector<std::string_view> names;
  if (!trimmed(list).empty()) {
    for (std::size_t start = 0;;) {
      const std::size_t comma = list.find(',', start);
      names.push_back(trimmed(list.substr(start, comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  for (const std::string_view name : names) {
    if (!is_identifier(name) || names.size() != count) {
      throw Error(ErrorCode::BadArgument,
                  "fp::nn: " + owner.type_name() +
                      "::visit: FP_MODULE and FP_VISIT_MEMBERS take the names of members, not \"" +
                      std::string(list) + "\"");
    }
  }
  return names;
}

}  // namespace fp::nn::detail
