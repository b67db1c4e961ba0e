#include "build.h"

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <typeinfo>
#include <unordered_map>

#include "activations.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/aten/mkldnn.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"
#include "fold.h"
#include "plans.h"

namespace fp::nn::detail {
namespace {

/// The weight and bias of a chain's first layer.
struct HeadTensors {
  const Tensor* weight;
  const Tensor* bias;
};

HeadTensors head_tensors(const ModuleBase& head) {
  if (const auto* linear = dynamic_cast<const Linear*>(&head))
    return {&linear->weight, &linear->bias};
  if (const auto* conv = dynamic_cast<const ConvNd<1>*>(&head)) return {&conv->weight, &conv->bias};
  if (const auto* conv = dynamic_cast<const ConvNd<2>*>(&head)) return {&conv->weight, &conv->bias};
  if (const auto* conv = dynamic_cast<const ConvNd<3>*>(&head)) return {&conv->weight, &conv->bias};
  if (const auto* conv = dynamic_cast<const ConvTransposeNd<1>*>(&head))
    return {&conv->weight, &conv->bias};
  const auto& conv = dynamic_cast<const ConvTransposeNd<2>&>(head);
  return {&conv.weight, &conv.bias};
}

/// Why the layer cannot be optimised, or "" when it can.
std::string head_problem(const ModuleBase& head) {
  const Tensor& weight = *head_tensors(head).weight;
  if (!weight.device().is_cpu())
    return "on " + weight.device().str() + " (optimize_for_inference changes CPU layers only)";
  if (weight.layout() != Layout::Strided) return "its weight is not a strided tensor";
  if (weight.dtype() != DType::F32 && weight.dtype() != DType::F64)
    return std::string(name(weight.dtype())) +
           " (optimize_for_inference changes float32 and float64 layers)";
  return "";
}

/// The spatial dimensions of a convolution (0 for a linear layer).
std::size_t spatial_dims(const ModuleBase& head) {
  if (dynamic_cast<const ConvNd<1>*>(&head) != nullptr) return 1;
  if (dynamic_cast<const ConvNd<2>*>(&head) != nullptr) return 2;
  if (dynamic_cast<const ConvNd<3>*>(&head) != nullptr) return 3;
  return 0;
}

std::int64_t out_channels(const ModuleBase& head) {
  if (const auto* conv = dynamic_cast<const ConvNd<1>*>(&head)) return conv->out_channels;
  if (const auto* conv = dynamic_cast<const ConvNd<2>*>(&head)) return conv->out_channels;
  return dynamic_cast<const ConvNd<3>&>(head).out_channels;
}

/// Why `norm` cannot be folded into the convolution `head`, or "".
std::string norm_problem(const ModuleBase& head, const BatchNorm& norm) {
  const std::string expected = "BatchNorm" + std::to_string(spatial_dims(head)) + "d";
  if (norm.type_name() != expected)
    return "a " + norm.type_name() + " after a " + head.type_name() + " takes other inputs";
  if (!norm.running_mean.is_defined() || !norm.running_var.is_defined())
    return "it has no running statistics (track_running_stats=false), so it normalises with "
           "each batch's own";
  if (norm.num_features != out_channels(head))
    return "its " + std::to_string(norm.num_features) + " features are not the " +
           std::to_string(out_channels(head)) + " channels of " + head.type_name();
  const Tensor& weight = *head_tensors(head).weight;
  for (const Tensor* tensor : {&norm.running_mean, &norm.running_var, &norm.weight, &norm.bias}) {
    if (!tensor->is_defined()) continue;
    if (tensor->device() != weight.device() || tensor->dtype() != weight.dtype())
      return "its tensors are not on the device and of the dtype of " + head.type_name() + "'s";
  }
  return "";
}

/// A convolution's padding as numbers oneDNN's kernel takes (the same on
/// both sides), or nullopt ("same" padding that is not symmetric).
template <std::size_t N>
std::optional<std::vector<std::int64_t>> symmetric_padding(const ConvNd<N>& conv) {
  const auto& padding = conv.options.padding;
  if (!padding.is_mode()) return padding.numbers().vec();
  std::vector<std::int64_t> numbers(N, 0);
  if (padding.mode() == "valid") return numbers;
  for (std::size_t d = 0; d < N; ++d) {
    const std::int64_t total = conv.options.dilation[d] * (conv.kernel_size[d] - 1);
    if (total % 2 != 0) return std::nullopt;
    numbers[d] = total / 2;
  }
  return numbers;
}

/// oneDNN's kernel for a 2-d or 3-d float32 convolution with zero padding
/// (its weight packed into oneDNN's layout on the first input: FusedPlan);
/// nullopt for any other.
template <std::size_t N>
std::optional<FusedKernel> convolution_kernel(const ConvNd<N>& conv, const Tensor& weight,
                                              const Tensor& bias) {
  if constexpr (N < 2) {
    return std::nullopt;
  } else {
    const auto padding = symmetric_padding(conv);
    if (!aten::mkldnn::available() || weight.dtype() != DType::F32 ||
        conv.options.padding_mode != "zeros" || !padding)
      return std::nullopt;
    const std::vector<std::int64_t> stride = conv.options.stride.vec();
    const std::vector<std::int64_t> dilation = conv.options.dilation.vec();
    return FusedKernel{.kind = FusedKernel::Kind::Convolution,
                       .weight = weight.contiguous(),
                       .bias = bias,
                       .padding = *padding,
                       .stride = stride,
                       .dilation = dilation,
                       .groups = conv.options.groups,
                       .out_channels = conv.out_channels,
                       .kernel_size = conv.kernel_size.vec(),
                       .rank = static_cast<std::int64_t>(N + 2)};
  }
}

/// oneDNN's kernel for a float32 2-d transposed convolution (as Inductor
/// packs it: not depthwise, output_padding below stride); nullopt else.
std::optional<FusedKernel> transposed_kernel(const ConvTranspose2d& conv) {
  const auto& options = conv.options;
  const bool depthwise = options.groups > 1 && options.groups == conv.in_channels;
  bool big_output_padding = false;
  for (std::size_t d = 0; d < 2; ++d)
    big_output_padding = big_output_padding || options.output_padding[d] >= options.stride[d];
  if (!aten::mkldnn::available() || conv.weight.dtype() != DType::F32 || depthwise ||
      big_output_padding)
    return std::nullopt;
  return FusedKernel{.kind = FusedKernel::Kind::TransposedConvolution,
                     .weight = conv.weight.contiguous(),
                     .bias = conv.bias,
                     .padding = options.padding.vec(),
                     .output_padding = options.output_padding.vec(),
                     .stride = options.stride.vec(),
                     .dilation = options.dilation.vec(),
                     .groups = options.groups,
                     .out_channels = conv.out_channels,
                     .kernel_size = conv.kernel_size.vec(),
                     .rank = 4};
}

std::optional<FusedKernel> linear_kernel(const Linear& linear) {
  if (!aten::mkldnn::available() || linear.weight.dtype() != DType::F32) return std::nullopt;
  return FusedKernel{
      .kind = FusedKernel::Kind::Linear, .weight = linear.weight.contiguous(), .bias = linear.bias};
}

/// What a chain becomes: the kernel, how to make the layer for the eager
/// path (with the folded weights), and what the report says.
struct HeadPlan {
  std::optional<FusedKernel> kernel;
  EagerFactory eager;
  bool folds_norm = false;
};

/// A factory of copies of `module` (copy-on-write: no memory of their own).
template <class Layer>
EagerFactory copies_of(const ModuleBase& module) {
  auto copy = std::make_shared<const Layer>(static_cast<const Layer&>(module));
  return [copy]() -> std::unique_ptr<Module> { return std::make_unique<Layer>(*copy); };
}

/// The convolution `head` with `norm` (if any) folded in. The kernel packs
/// the folded weight and the folded copy goes; the eager path folds again
/// if an input ever takes it, so that the folded weights do not stay in
/// memory beside the packed ones and the module's own.
template <std::size_t N, class Layer>
HeadPlan convolution_plan(const ModuleBase& head, const BatchNorm* norm) {
  auto layer = std::make_shared<const Layer>(static_cast<const Layer&>(head));
  std::optional<NormToFold> to_fold;
  if (norm != nullptr) to_fold.emplace(*norm);
  auto folded = [layer, to_fold]() -> std::unique_ptr<Layer> {
    auto copy = std::make_unique<Layer>(*layer);
    if (to_fold)
      std::tie(copy->weight, copy->bias) = fold_batch_norm(copy->weight, copy->bias, *to_fold);
    return copy;
  };
  const std::unique_ptr<Layer> now = folded();
  return {.kernel = convolution_kernel<N>(*now, now->weight, now->bias),
          .eager = [folded]() -> std::unique_ptr<Module> { return folded(); },
          .folds_norm = norm != nullptr};
}

HeadPlan head_plan(const ModuleBase& head, const BatchNorm* norm) {
  const std::type_info& type = typeid(head);
  if (type == typeid(Conv1d)) return convolution_plan<1, Conv1d>(head, norm);
  if (type == typeid(Conv2d)) return convolution_plan<2, Conv2d>(head, norm);
  if (type == typeid(Conv3d)) return convolution_plan<3, Conv3d>(head, norm);
  if (type == typeid(ConvTranspose2d)) {
    return {.kernel = transposed_kernel(static_cast<const ConvTranspose2d&>(head)),
            .eager = copies_of<ConvTranspose2d>(head)};
  }
  if (type == typeid(Linear)) {
    return {.kernel = linear_kernel(static_cast<const Linear&>(head)),
            .eager = copies_of<Linear>(head)};
  }
  return {.eager = copies_of<ConvTranspose1d>(head)};  // no kernel: stays eager
}

std::string chain_paths(const Chain& chain, bool with_norm, bool with_activation) {
  std::string paths = chain.head.path.empty() ? "(the module itself)" : chain.head.path;
  if (with_norm && chain.norm) paths += " + " + chain.norm->path;
  if (with_activation && chain.activation) paths += " + " + chain.activation->path;
  return paths;
}

std::string fused_line(const Chain& chain, const HeadPlan& plan, bool with_activation) {
  std::string line =
      chain_paths(chain, plan.folds_norm, with_activation) + ": " + chain.head.module->type_name();
  if (plan.folds_norm) line += ", " + chain.norm->module->type_name() + " folded in";
  const bool activation = with_activation && chain.activation;
  if (plan.kernel) {
    if (activation) line += ", " + chain.activation->module->type_name() + " fused";
    line += plan.kernel->kind == FusedKernel::Kind::Convolution ? " (oneDNN, pre-packed weight)"
                                                                : " (oneDNN)";
  } else {
    if (activation) line += ", then " + chain.activation->module->type_name();
    line += " (ATen's kernels: no oneDNN kernel for it here)";
  }
  return line;
}

/// What becomes of one chain: its head's plan (none when the head stays
/// eager, with the reason in the report), the BatchNorm folded in, and
/// whether the activation is fused.
struct Decision {
  std::optional<HeadPlan> plan;
  const BatchNorm* norm = nullptr;
  bool with_activation = false;
};

/// The plan of `chain`'s head, or nullopt with the reason added to `report`.
std::optional<HeadPlan> decide_head(const Chain& chain, const BatchNorm*& norm,
                                    OptimizeReport& report) {
  const std::string head_path = chain_paths(chain, false, false);
  const std::string head_problem_text = head_problem(*chain.head.module);
  if (!head_problem_text.empty()) {
    report.unchanged.push_back(head_path + ": " + chain.head.module->type_name() + ": " +
                               head_problem_text);
    return std::nullopt;
  }
  if (chain.norm) {
    const auto& candidate = static_cast<const BatchNorm&>(*chain.norm->module);
    const std::string problem = norm_problem(*chain.head.module, candidate);
    if (problem.empty()) {
      norm = &candidate;
    } else {
      report.unchanged.push_back(chain.norm->path + ": " + candidate.type_name() +
                                 ": not folded into " + head_path + ": " + problem);
    }
  }
  HeadPlan plan = head_plan(*chain.head.module, norm);
  if (!plan.kernel && !plan.folds_norm) {
    report.unchanged.push_back(head_path + ": " + chain.head.module->type_name() +
                               ": oneDNN has no kernel for it here (" +
                               (aten::mkldnn::available() ? "its kind, dtype or options"
                                                          : "the loaded torch has no oneDNN") +
                               ") and nothing is folded into it");
    return std::nullopt;
  }
  return plan;
}

std::vector<Decision> decide(const std::vector<Chain>& chains, OptimizeReport& report) {
  std::vector<Decision> decisions;
  std::unordered_map<const ModuleBase*, bool> activation_fusable;
  for (const Chain& chain : chains) {
    Decision decision;
    decision.plan = decide_head(chain, decision.norm, report);
    // The activation follows the BatchNorm: fused only if that is folded.
    decision.with_activation =
        chain.activation && decision.plan && (!chain.norm || decision.norm != nullptr);
    if (chain.activation) {
      auto [entry, added] = activation_fusable.try_emplace(chain.activation->module, true);
      entry->second = entry->second && decision.with_activation;
    }
    decisions.push_back(std::move(decision));
  }
  // An activation several chains share passes its input on in all of them,
  // or in none: it cannot tell which chain called it.
  for (std::size_t i = 0; i < chains.size(); ++i) {
    if (chains[i].activation && !activation_fusable.at(chains[i].activation->module))
      decisions[i].with_activation = false;
  }
  return decisions;
}

}  // namespace

Plans build_plans(const std::vector<Chain>& chains) {
  Plans result;
  std::vector<Decision> decisions = decide(chains, result.report);
  for (std::size_t i = 0; i < chains.size(); ++i) {
    const Chain& chain = chains[i];
    Decision& decision = decisions[i];
    if (!decision.plan) continue;
    HeadPlan& plan = *decision.plan;
    std::optional<FusedActivation> activation;
    if (decision.with_activation) activation = fused_activation(*chain.activation->module);
    result.report.fused.push_back(fused_line(chain, plan, decision.with_activation));
    aten::mkldnn::PostOp post;
    std::unique_ptr<Module> eager_activation;
    if (activation) {
      post = activation->post;
      eager_activation = std::move(activation->eager);
    }
    auto head = std::make_shared<const FusedPlan>(std::move(plan.kernel), std::move(post),
                                                  std::move(plan.eager),
                                                  std::move(eager_activation), plan.folds_norm);
    result.plans.emplace_back(chain.head.module, head);
    if (decision.norm != nullptr)
      result.plans.emplace_back(chain.norm->module, std::make_shared<const PassThroughPlan>(head));
    if (decision.with_activation)
      result.plans.emplace_back(chain.activation->module,
                                std::make_shared<const PassThroughPlan>(head));
  }
  return result;
}

}  // namespace fp::nn::detail
