// torchvision/models/_utils.py's IntermediateLayerGetter.
#include "flash_powder/vision/models/intermediate_layer_getter.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "flash_powder/base/error.h"

namespace fp::vision::models {
namespace {

/// The children of `model` up to the last one in `return_layers`, under their names.
nn::Sequential children_up_to_last(nn::Sequential model,
                                   const std::map<std::string, std::string>& return_layers) {
  const std::vector<std::string> names = model.keys();
  std::int64_t last = -1;
  for (const auto& [name, unused] : return_layers) {
    const auto found = std::find(names.begin(), names.end(), name);
    if (found == names.end())
      throw Error(ErrorCode::BadArgument,
                  "fp::vision::models::IntermediateLayerGetter: return_layers are not present in "
                  "model: no child '" +
                      name + "'");
    last = std::max(last, static_cast<std::int64_t>(found - names.begin()));
  }
  if (last < 0)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::IntermediateLayerGetter: return_layers is empty");
  // take() renumbers what stays, so the names are read first.
  nn::Sequential kept;
  for (std::int64_t i = 0; i <= last; ++i)
    kept.push(names[static_cast<std::size_t>(i)], model.take(0));
  return kept;
}

}  // namespace

IntermediateLayerGetter::IntermediateLayerGetter(nn::Sequential model,
                                                 std::map<std::string, std::string> return_layers)
    : layers(children_up_to_last(std::move(model), return_layers)),
      return_layers(std::move(return_layers)) {}

void IntermediateLayerGetter::visit(nn::Visitor& visitor) {
  layers.visit(visitor);
}

std::map<std::string, Tensor> IntermediateLayerGetter::forward(TensorView input) const {
  std::map<std::string, Tensor> out;
  const std::vector<std::string> names = layers.keys();
  Tensor x = layers[0](input);
  for (std::size_t i = 0;; ++i) {
    if (const auto found = return_layers.find(names[i]); found != return_layers.end())
      out.insert_or_assign(found->second, x);
    if (i + 1 == names.size()) break;
    x = layers[static_cast<std::int64_t>(i + 1)](x);
  }
  return out;
}

}  // namespace fp::vision::models
