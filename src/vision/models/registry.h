// What fp::vision::models::make and segmentation::make share: a registry of
// builders by torchvision's name, looked up like torchvision.models.get_model.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/base/error.h"

namespace fp::vision::models::detail {

/// The builder registered as `name`; fp::Error naming `function` and every
/// known name otherwise.
template <class Builder>
const Builder& lookup(const std::map<std::string, Builder, std::less<>>& registry,
                      std::string_view name, std::string_view function) {
  const auto found = registry.find(name);
  if (found != registry.end()) return found->second;
  std::string known;
  for (const auto& [known_name, unused] : registry)
    known += (known.empty() ? "" : ", ") + known_name;
  throw Error(ErrorCode::BadArgument, std::string(function) + ": unknown model '" +
                                          std::string(name) + "'; known: " + known);
}

/// The registered names, sorted.
template <class Builder>
std::vector<std::string> names_of(const std::map<std::string, Builder, std::less<>>& registry) {
  std::vector<std::string> names;
  names.reserve(registry.size());
  for (const auto& [name, unused] : registry)
    names.push_back(name);
  return names;
}

}  // namespace fp::vision::models::detail
