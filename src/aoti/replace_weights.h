// Swapping a loaded model's weights for new ones from a state dict.
#pragma once

#include <string>
#include <vector>

#include "flash_powder/aoti/package.h"
#include "flash_powder/core/state_dict.h"
#include "model_interface.h"

namespace fp::aoti::detail {

/// Copies `weights` (keyed by the constants' original FQNs) into the
/// container's inactive constant buffer, refolds constants if the model has
/// folded ones, then makes that buffer active. The swap waits for running
/// calls (the container's own lock), so calls see the old or the new
/// weights, never a mix. Throws fp::Error naming every missing key and the
/// first mismatch in dtype, size or device before anything is copied.
void replace_weights(const ModelInterface& api, ContainerHandle container,
                     const std::vector<ConstantInfo>& constants, const StateDictReader& weights,
                     Device device, const std::string& source);

}  // namespace fp::aoti::detail
