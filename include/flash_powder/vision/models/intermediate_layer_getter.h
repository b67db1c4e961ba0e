// torchvision.models._utils.IntermediateLayerGetter: a network's children up
// to the last one asked for, run in order, returning the outputs of the
// children named in `return_layers` under their new names. What the
// segmentation models use as their backbone; its state-dict keys are the
// children's own ("conv1.weight", "layer4.2.bn3.running_var", "16.0.weight").
#pragma once

#include <map>
#include <string>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// torchvision.models._utils.IntermediateLayerGetter over the named children
/// of `model` (a Sequential pushed with torchvision's child names).
class IntermediateLayerGetter : public nn::ModuleBase {
 public:
  /// Keeps `model`'s children up to the last one named in `return_layers`
  /// (child name -> output name) and drops the rest, as torchvision does.
  /// Throws fp::Error when a name is not a child of `model`, or none is given.
  IntermediateLayerGetter(nn::Sequential model, std::map<std::string, std::string> return_layers);

  /// The children under their own names (no "layers." prefix), as torchvision's.
  void visit(nn::Visitor& visitor) override;
  /// Runs the children in order; the outputs of those in return_layers, by output name.
  std::map<std::string, Tensor> forward(TensorView input) const;
  FP_MODULE_CALL()

  /// The children kept, in order, under their names.
  nn::Sequential layers;
  /// Child name -> output name.
  std::map<std::string, std::string> return_layers;
};

}  // namespace fp::vision::models
