// What fp::nn::optimize_for_inference attaches to a module (its
// detail::InferenceState, nn/module.h): the plan Module::operator() runs
// instead of forward(). Private to the nn layer.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/nn/module.h"
#include "flash_powder/nn/optimize.h"

namespace fp::nn::detail {

/// How an optimised module computes its result.
class InferencePlan {
 public:
  InferencePlan() = default;
  InferencePlan(const InferencePlan&) = delete;
  InferencePlan& operator=(const InferencePlan&) = delete;
  virtual ~InferencePlan() = default;

  /// What `module(input)` returns now.
  virtual Tensor forward(TensorView input) const = 0;
  /// Like Module::forward_in_place: overwrites `x` and returns true where it can.
  virtual bool forward_in_place(Tensor& x) const = 0;
  /// The layer folded into this one's plan, if any (a BatchNorm after a
  /// convolution): its own plan then passes its input on unchanged.
  virtual bool folded(const InferencePlan& /*other*/) const { return false; }
};

/// The friend of ModuleBase that reads and writes its InferenceState.
struct InferenceAccess {
  static const InferencePlan* plan(const ModuleBase& module) noexcept {
    return module.inference_.plan_.get();
  }
  static std::shared_ptr<const InferencePlan> shared_plan(const ModuleBase& module) noexcept {
    return module.inference_.plan_;
  }
  static void set_plan(ModuleBase& module, std::shared_ptr<const InferencePlan> plan) noexcept {
    module.inference_.plan_ = std::move(plan);
  }
  /// The options the pass ran with, on the module it was called on; else null.
  static const OptimizeOptions* root_options(const ModuleBase& module) noexcept {
    return module.inference_.options_.get();
  }
  static void set_root_options(ModuleBase& module,
                               std::shared_ptr<const OptimizeOptions> options) noexcept {
    module.inference_.options_ = std::move(options);
  }
  static void clear(ModuleBase& module) noexcept { module.inference_ = InferenceState(); }
};

/// Around load_state_dict() and to() on `module`: the constructor refuses
/// (fp::Error naming `what`) when `module` holds layers of a model
/// optimize_for_inference was called on but is not that model (the fused
/// layers would not see the change); run() optimises each optimised model
/// within `module` again, afterwards.
class Reoptimize {
 public:
  Reoptimize(ModuleBase& module, const char* what);
  void run() const;

 private:
  std::vector<std::pair<ModuleBase*, OptimizeOptions>> roots_;
};

}  // namespace fp::nn::detail
