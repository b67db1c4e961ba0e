// What fp::vision::models::make and segmentation::make share: a registry of
// builders by torchvision's name, looked up like torchvision.models.get_model.
#pragma once

#include <functional>
#include <map>
#include <memory>
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

/// A registry's builder of `Base`s from a builder function returning a
/// `Model` (derived from `Base`) for the family's `Options`.
template <class Base, class Model, class Options>
std::function<std::unique_ptr<Base>(const Options&)> boxed_builder(Model (*build)(const Options&)) {
  return [build](const Options& options) -> std::unique_ptr<Base> {
    return std::make_unique<Model>(build(options));
  };
}

}  // namespace fp::vision::models::detail
