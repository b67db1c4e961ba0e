// The plans for the chains optimize_for_inference found (chains.h).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "chains.h"
#include "flash_powder/nn/optimize.h"
#include "plan.h"

namespace fp::nn::detail {

/// The plan of each module that gets one, and the report.
struct Plans {
  std::vector<std::pair<ModuleBase*, std::shared_ptr<const InferencePlan>>> plans;
  OptimizeReport report;
};

/// Plans for `chains`: a layer that cannot be fused (not on the CPU, a dtype
/// or option oneDNN's kernels do not take, a BatchNorm without running
/// statistics, ...) keeps running eagerly, and so does what follows it in
/// its chain; an activation shared by several chains is fused only if it
/// can be in all of them. Changes no module.
Plans build_plans(const std::vector<Chain>& chains);

}  // namespace fp::nn::detail
