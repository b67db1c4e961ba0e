// fp::nn::optimize_for_inference and what goes with it (nn/optimize.h).
#include "flash_powder/nn/optimize.h"

#include <string>
#include <utility>

#include "build.h"
#include "chains.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/operators.h"
#include "plan.h"
#include "plans.h"

namespace fp::nn {
namespace {

bool under(const std::string& path, const std::string& root) {
  return root.empty() || path == root || path.starts_with(root + ".");
}

}  // namespace

OptimizeReport optimize_for_inference(ModuleBase& module, const OptimizeOptions& options) {
  // Everything that can fail (chains, folding, packing) happens before any
  // module changes.
  detail::Plans plans = detail::build_plans(detail::find_chains(module, options));
  undo_optimize_for_inference(module);
  for (auto& [target, plan] : plans.plans)
    detail::InferenceAccess::set_plan(*target, std::move(plan));
  detail::InferenceAccess::set_root_options(module,
                                            std::make_shared<const OptimizeOptions>(options));
  return std::move(plans.report);
}

void undo_optimize_for_inference(ModuleBase& module) {
  for (const auto& [path, below] : module.named_modules())
    detail::InferenceAccess::clear(*below);
}

bool is_optimized_for_inference(const ModuleBase& module) {
  for (const auto& [path, below] : module.named_modules()) {
    if (detail::InferenceAccess::plan(*below) != nullptr) return true;
  }
  return false;
}

Tensor conv_add(const Module& conv, const Module& norm, TensorView input, Tensor other, bool relu) {
  return detail::call_module(conv, [&] {
    const auto* plan = dynamic_cast<const detail::FusedPlan*>(detail::InferenceAccess::plan(conv));
    const detail::InferencePlan* norm_plan = detail::InferenceAccess::plan(norm);
    if (plan != nullptr && norm_plan != nullptr && plan->folded(*norm_plan) &&
        plan->add_into(input, other, relu))
      return std::move(other);
    Tensor out = norm(conv(input));
    out += other;
    if (relu) aten::relu_(out);
    return out;
  });
}

Tensor conv_add(const Module& conv, TensorView input, Tensor other, bool relu) {
  return detail::call_module(conv, [&] {
    const auto* plan = dynamic_cast<const detail::FusedPlan*>(detail::InferenceAccess::plan(conv));
    // With a plan, `conv(input)` is the plan's result, whatever it folds in.
    if (plan != nullptr && plan->add_into(input, other, relu)) return std::move(other);
    Tensor out = conv(input);
    out += other;
    if (relu) aten::relu_(out);
    return out;
  });
}

namespace detail {

Reoptimize::Reoptimize(ModuleBase& module, const char* what) {
  const auto modules = module.named_modules();
  std::vector<std::string> root_paths;
  for (const auto& [path, below] : modules) {
    if (const OptimizeOptions* options = InferenceAccess::root_options(*below)) {
      roots_.emplace_back(below, *options);
      root_paths.push_back(path);
    }
  }
  for (const auto& [path, below] : modules) {
    if (InferenceAccess::plan(*below) == nullptr) continue;
    bool covered = false;
    for (const auto& root : root_paths)
      covered = covered || under(path, root);
    if (covered) continue;
    throw Error(ErrorCode::BadArgument,
                "fp::nn::Module::" + std::string(what) + ": this " + module.type_name() +
                    " is part of a model fp::nn::optimize_for_inference was called on" +
                    (path.empty() ? "" : " (\"" + path + "\" runs fused)") +
                    ", whose fused layers would not see the change; call " + what +
                    " on that model (it optimises itself again afterwards), or "
                    "fp::nn::undo_optimize_for_inference on it first");
  }
}

void Reoptimize::run() const {
  for (const auto& [root, options] : roots_)
    optimize_for_inference(*root, options);
}

}  // namespace detail
}  // namespace fp::nn
