// fp::nn::optimize_for_inference: a module's CPU inference rewritten the way
// torch.export + AOTInductor with freezing (torch._inductor.config.freezing,
// tools/export_aoti.py's default) rewrites it, without leaving C++. Named
// after torch.jit.optimize_for_inference.
//
//     auto net = fp::vision::models::resnet50();
//     net.load_state_dict(fp::safetensors::MappedFile::open("resnet50.safetensors"));
//     fp::nn::optimize_for_inference(net);
//     fp::Tensor logits = net(batch);     // oneDNN's fused kernels
//
// On the CPU, for float32 layers, it
//   - folds each BatchNorm into the convolution before it, with the
//     arithmetic of Inductor's freezing passes (BatchNorm decomposed, then
//     binary folding: w' = (w * invstd) * gamma, b' = ((b - mean) * invstd)
//     * gamma + beta, invstd = 1 / sqrt(var + eps), each step one ATen op in
//     float32);
//   - pre-packs 2-d and 3-d convolution weights into oneDNN's layout and runs
//     the convolutions through `mkldnn::_convolution_pointwise` with the
//     activation after them fused (ReLU, ReLU6, LeakyReLU, GELU, SiLU,
//     Sigmoid, Tanh, Hardswish), 2-d transposed convolutions through
//     `mkldnn::_convolution_transpose_pointwise` and linear layers through
//     `mkldnn::_linear_pointwise` (fp::aten::mkldnn, aten/mkldnn.h);
//   - lets a residual block add its shortcut (and apply ReLU) inside its last
//     convolution: conv_add() below.
// Where the same kernels run, the results equal a frozen AOTInductor package
// of the same model bit for bit (tests/nn/test_optimize.cpp): the folded
// weights are the package's, and oneDNN computes the fused activations
// itself. Against eager PyTorch (and the module before the pass) they differ
// by rounding: the folded weights round differently, and so do oneDNN's
// SiLU, GELU, Sigmoid, Tanh and Hardswish and its convolution on
// channels-last data; on fp::vision's models that is at most 1e-6 to 2e-6
// of the largest logit (tests/vision/test_models.cpp prints it). Convolution results come in channels-last
// memory format (their values and sizes are the same).
//
// What it fuses: runs of modules in an nn::Sequential (convolution,
// BatchNorm, activation; linear, activation), the chains a module names in
// fusable_chains() (fp::vision's models do), and those given in
// OptimizeOptions::chains. Every other convolution and linear layer on the
// CPU still runs through oneDNN; everything else runs unchanged, and so does
// every layer on another device or of another dtype. The report says what
// became of each.
//
// What it changes: `module(x)` of the layers concerned (a folded BatchNorm
// and a fused activation pass their input on, since the layer before did
// their work); forward() called directly stays eager. Parameters, buffers
// and state_dict() stay the module's own (the packed weights are kept beside
// them: the pass costs about one more copy of the weights it packs; the
// folded weights in plain layout are made again, once, only if an input
// the fused kernel does not take (another dtype, device or rank) reaches
// the layer). load_state_dict() and to() on the module the pass was called on
// optimise it again afterwards (on the CPU; elsewhere nothing is fused); on a
// part of it they throw fp::Error saying so, as the fused layers could not
// see the change. Changing parameters by hand, or the model's structure
// (taking modules out of a Sequential, assigning a new layer), needs another
// call. A copy of an optimised module is not optimised (a copy of part of it
// could split a fused chain). Optimising is not thread-safe, running is.
#pragma once

#include <string>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/module.h"

namespace fp::nn {

/// The keyword arguments of optimize_for_inference.
struct OptimizeOptions {
  /// Chains of modules, by dotted path from the module optimised, that its
  /// forward applies one after another to one tensor (and nowhere else),
  /// like the lists torch.ao.quantization.fuse_modules takes:
  /// `{{"conv1", "bn1", "relu"}, {"layer1.0.conv2", "layer1.0.bn2"}}`. A
  /// chain is a convolution, then optionally its BatchNorm, then optionally
  /// an activation; or a linear layer and optionally an activation. For
  /// modules you cannot give a fusable_chains() of their own.
  std::vector<std::vector<std::string>> chains{};
};

/// What optimize_for_inference did, one line per layer or chain, with the
/// modules' dotted paths: for logs, and to see what was left alone.
struct OptimizeReport {
  /// "layer1.0.conv1 + layer1.0.bn1 + layer1.0.relu: Conv2d with BatchNorm2d
  /// folded in and ReLU fused (oneDNN, pre-packed weight)".
  std::vector<std::string> fused;
  /// "fc: Linear: float64 (oneDNN's fused kernels are used for float32)".
  std::vector<std::string> unchanged;
};

/// Rewrites `module`'s CPU inference in place (see the top of this file) and
/// says what it did. Calling it again first undoes the previous call. Throws
/// fp::Error for a chain (fusable_chains(), OptimizeOptions::chains) that
/// names no module, is not a convolution/linear layer followed by what may
/// follow it, or shares a layer with another chain; then nothing is changed.
OptimizeReport optimize_for_inference(ModuleBase& module, const OptimizeOptions& options = {});

/// Makes every module below `module` (and itself) run its eager forward()
/// again, dropping the packed weights.
void undo_optimize_for_inference(ModuleBase& module);

/// Whether `module` or any module below it runs an optimised plan.
bool is_optimized_for_inference(const ModuleBase& module);

/// The end of a residual block: `norm(conv(input)) + other`, then ReLU if
/// `relu`, the value Python's `out = bn(conv(x)); out += identity;
/// out = relu(out)` gives. When optimize_for_inference fused `conv` with
/// `norm` folded in (a chain of the two), one oneDNN convolution adds
/// `other` and applies ReLU as it writes its output into `other`'s memory
/// (`mkldnn::_convolution_pointwise_.binary`, as a frozen Inductor model
/// does); otherwise the same ops as the expression run, eagerly. `other` is
/// the caller's to give away (a copy is made if it shares its memory); its
/// sizes must be the result's.
Tensor conv_add(const Module& conv, const Module& norm, TensorView input, Tensor other,
                bool relu = false);
/// The same without a normalisation layer: `conv(input) + other` (then ReLU).
Tensor conv_add(const Module& conv, TensorView input, Tensor other, bool relu = false);

}  // namespace fp::nn
