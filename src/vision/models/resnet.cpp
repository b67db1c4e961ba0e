// torchvision/models/resnet.py, layer for layer.
#include "flash_powder/vision/models/resnet.h"

#include <string>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/nn/optimize.h"
#include "flash_powder/vision/ops/frozen_batch_norm.h"
#include "vision/models/backbone_parts.h"

namespace fp::vision::models {
namespace {

nn::Conv2d conv3x3(std::int64_t in_planes, std::int64_t out_planes, std::int64_t stride = 1,
                   std::int64_t groups = 1, std::int64_t dilation = 1) {
  return nn::Conv2d(in_planes, out_planes, 3,
                    {.stride = stride,
                     .padding = dilation,
                     .dilation = dilation,
                     .groups = groups,
                     .bias = false});
}

nn::Conv2d conv1x1(std::int64_t in_planes, std::int64_t out_planes, std::int64_t stride = 1) {
  return nn::Conv2d(in_planes, out_planes, 1, {.stride = stride, .bias = false});
}

/// `bn(x)`, with FrozenBatchNorm2d's arithmetic when `norm` says so.
Tensor normalize(const nn::BatchNorm2d& bn, const ResNetNorm& norm, TensorView x) {
  if (!norm.frozen) return bn(x);
  return ops::frozen_batch_norm(x, bn.weight, bn.bias, bn.running_mean, bn.running_var, norm.eps);
}

/// `bn(conv(x))` through torchvision's `nn.ReLU(inplace=True)`: ReLU in
/// place on the result (no new tensor the size of it; the same kernel, so
/// the same values), or nothing when optimize_for_inference fused it.
Tensor conv_bn_relu(const nn::Conv2d& conv, const nn::BatchNorm2d& bn, const nn::ReLU& relu,
                    TensorView x, const ResNetNorm& norm) {
  Tensor out = normalize(bn, norm, conv(x));
  relu.call_in_place(out);
  return out;
}

/// The block's last convolution and BatchNorm, plus its shortcut, through
/// ReLU (Python: `out = bn(conv(x)); out += identity; relu(out)`): one
/// oneDNN convolution once optimised (nn::conv_add).
Tensor add_shortcut(const nn::Conv2d& conv, const nn::BatchNorm2d& bn, TensorView x,
                    const nn::Sequential& downsample, TensorView input, const ResNetNorm& norm,
                    const nn::ReLU& relu) {
  Tensor identity = downsample.size() == 0 ? input.to_owned() : downsample(input);
  if (!norm.frozen) return nn::conv_add(conv, bn, x, std::move(identity), /*relu=*/true);
  Tensor out = normalize(bn, norm, conv(x));
  out.add_(identity);
  relu.call_in_place(out);
  return out;
}

/// The norm settings of `options`; fp::Error for a norm a ResNet cannot have.
ResNetNorm norm_of(const ResNetOptions& options) {
  if (options.norm_layer != ops::NormLayer::BatchNorm2d &&
      options.norm_layer != ops::NormLayer::FrozenBatchNorm2d)
    throw Error(
        ErrorCode::BadArgument,
        "fp::vision::models::ResNet: norm_layer should be BatchNorm2d or FrozenBatchNorm2d");
  return {.frozen = options.norm_layer == ops::NormLayer::FrozenBatchNorm2d,
          .eps = options.norm_eps};
}

/// A BatchNorm2d of `channels` with `norm`'s eps, without num_batches_tracked
/// when frozen (FrozenBatchNorm2d's keys).
nn::BatchNorm2d make_norm(std::int64_t channels, const ResNetNorm& norm) {
  nn::BatchNorm2d bn(channels, {.eps = norm.eps});
  if (norm.frozen) bn.num_batches_tracked = Tensor();
  return bn;
}

/// The chains optimize_for_inference may fuse: none with FrozenBatchNorm2d's
/// arithmetic, which folding would not keep.
std::vector<std::vector<std::string>> chains_unless_frozen(
    const ResNetNorm& norm, std::vector<std::vector<std::string>> chains) {
  if (norm.frozen) return {};
  return chains;
}

std::int64_t expansion_of(ResNetBlock block) {
  return block == ResNetBlock::Basic ? BasicBlock::expansion : Bottleneck::expansion;
}

/// ResNet._make_layer: `blocks` blocks, the first with the stride and, when
/// the shape changes, a 1x1 convolution on the shortcut. A dilated stage
/// (`dilate`) multiplies the network's `dilation` by the stride instead of
/// striding; its first block keeps the dilation before, as torchvision's.
nn::Sequential make_stage(ResNetBlock block, std::int64_t& inplanes, std::int64_t& dilation,
                          std::int64_t planes, std::int64_t blocks, std::int64_t stride,
                          bool dilate, const ResNetOptions& options) {
  const std::int64_t previous_dilation = dilation;
  if (dilate) {
    dilation *= stride;
    stride = 1;
  }
  const std::int64_t out_planes = planes * expansion_of(block);
  nn::Sequential stage;
  nn::Sequential downsample;
  if (stride != 1 || inplanes != out_planes) {
    downsample.push(conv1x1(inplanes, out_planes, stride));
    const ResNetNorm norm = norm_of(options);
    if (norm.frozen)
      downsample.push(ops::FrozenBatchNorm2d(out_planes, norm.eps));
    else
      downsample.push(make_norm(out_planes, norm));
  }
  auto push_block = [&](std::int64_t in, std::int64_t block_stride, std::int64_t block_dilation,
                        nn::Sequential shortcut) {
    if (block == ResNetBlock::Basic)
      stage.push(BasicBlock(in, planes, block_stride, std::move(shortcut), options.groups,
                            options.width_per_group, block_dilation, norm_of(options)));
    else
      stage.push(Bottleneck(in, planes, block_stride, std::move(shortcut), options.groups,
                            options.width_per_group, block_dilation, norm_of(options)));
  };
  push_block(inplanes, stride, previous_dilation, std::move(downsample));
  inplanes = out_planes;
  for (std::int64_t i = 1; i < blocks; ++i)
    push_block(inplanes, 1, dilation, nn::Sequential());
  return stage;
}

/// torchvision's `_ovewrite_named_param`: a builder's fixed keyword, which a
/// caller may repeat but not change (`unchanged` is the option's default).
void overwrite(std::int64_t& option, std::int64_t value, std::int64_t unchanged, const char* name,
               const char* builder) {
  if (option != unchanged && option != value)
    throw Error(ErrorCode::BadArgument, std::string("fp::vision::models::") + builder + ": " +
                                            name + " is " + std::to_string(value) + ", not " +
                                            std::to_string(option));
  option = value;
}

/// A ResNeXt or Wide ResNet: the options with their groups and width set.
ResNet grouped(std::array<std::int64_t, 4> blocks, std::int64_t groups, std::int64_t width,
               ResNetOptions options, const char* builder) {
  overwrite(options.groups, groups, 1, "groups", builder);
  overwrite(options.width_per_group, width, 64, "width_per_group", builder);
  return ResNet(ResNetBlock::Bottleneck, blocks, options);
}

}  // namespace

BasicBlock::BasicBlock(std::int64_t inplanes, std::int64_t planes, std::int64_t stride,
                       nn::Sequential downsample, std::int64_t groups, std::int64_t base_width,
                       std::int64_t dilation, ResNetNorm norm)
    : conv1(conv3x3(inplanes, planes, stride)),
      bn1(make_norm(planes, norm)),
      conv2(conv3x3(planes, planes)),
      bn2(make_norm(planes, norm)),
      downsample(std::move(downsample)),
      norm(norm) {
  if (groups != 1 || base_width != 64)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::BasicBlock only supports groups=1 and base_width=64, not " +
                    std::to_string(groups) + " and " + std::to_string(base_width));
  if (dilation > 1)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::BasicBlock: Dilation > 1 not supported in BasicBlock (got " +
                    std::to_string(dilation) + "); replace_stride_with_dilation needs Bottleneck");
}

void BasicBlock::visit(nn::Visitor& visitor) {
  visitor.child("conv1", conv1);
  visitor.child("bn1", bn1);
  visitor.child("relu", relu);
  visitor.child("conv2", conv2);
  visitor.child("bn2", bn2);
  if (downsample.size() > 0) visitor.child("downsample", downsample);
}

std::vector<std::vector<std::string>> BasicBlock::fusable_chains() const {
  return chains_unless_frozen(norm, {{"conv1", "bn1", "relu"}, {"conv2", "bn2"}});
}

// The forwards below free each intermediate result as soon as the next one
// exists, like Python's `out = ...` chain: a temporary of a nested call
// lives to the end of the whole statement, and tensors kept alive that long
// make the allocator hand out memory that is not in the caches.

Tensor BasicBlock::forward(TensorView input) const {
  const Tensor out = conv_bn_relu(conv1, bn1, relu, input, norm);
  return add_shortcut(conv2, bn2, out, downsample, input, norm, relu);
}

namespace {

/// Bottleneck's inner width: Python's `int(planes * (base_width / 64.0)) * groups`.
std::int64_t bottleneck_width(std::int64_t planes, std::int64_t groups, std::int64_t base_width) {
  if (groups < 1 || base_width < 1)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::Bottleneck: groups and width_per_group should be positive, "
                "not " +
                    std::to_string(groups) + " and " + std::to_string(base_width));
  return static_cast<std::int64_t>(static_cast<double>(planes) *
                                   (static_cast<double>(base_width) / 64.0)) *
         groups;
}

}  // namespace

Bottleneck::Bottleneck(std::int64_t inplanes, std::int64_t planes, std::int64_t stride,
                       nn::Sequential downsample, std::int64_t groups, std::int64_t base_width,
                       std::int64_t dilation, ResNetNorm norm)
    : conv1(conv1x1(inplanes, bottleneck_width(planes, groups, base_width))),
      bn1(make_norm(conv1.out_channels, norm)),
      conv2(conv3x3(conv1.out_channels, conv1.out_channels, stride, groups, dilation)),
      bn2(make_norm(conv1.out_channels, norm)),
      conv3(conv1x1(conv1.out_channels, planes * expansion)),
      bn3(make_norm(planes * expansion, norm)),
      downsample(std::move(downsample)),
      norm(norm) {}

void Bottleneck::visit(nn::Visitor& visitor) {
  visitor.child("conv1", conv1);
  visitor.child("bn1", bn1);
  visitor.child("conv2", conv2);
  visitor.child("bn2", bn2);
  visitor.child("conv3", conv3);
  visitor.child("bn3", bn3);
  visitor.child("relu", relu);
  if (downsample.size() > 0) visitor.child("downsample", downsample);
}

std::vector<std::vector<std::string>> Bottleneck::fusable_chains() const {
  return chains_unless_frozen(
      norm, {{"conv1", "bn1", "relu"}, {"conv2", "bn2", "relu"}, {"conv3", "bn3"}});
}

Tensor Bottleneck::forward(TensorView input) const {
  Tensor out = conv_bn_relu(conv1, bn1, relu, input, norm);
  out = conv_bn_relu(conv2, bn2, relu, out, norm);
  return add_shortcut(conv3, bn3, out, downsample, input, norm, relu);
}

ResNet::ResNet(ResNetBlock block, std::array<std::int64_t, 4> blocks, const ResNetOptions& options)
    : conv1(3, 64, 7, {.stride = 2, .padding = 3, .bias = false}),
      bn1(make_norm(64, norm_of(options))),
      maxpool(3, {.stride = 2, .padding = 1}),
      fc(512 * expansion_of(block), options.num_classes),
      norm(norm_of(options)) {
  std::int64_t inplanes = 64;
  std::int64_t dilation = 1;
  const auto& dilate = options.replace_stride_with_dilation;
  layer1 = make_stage(block, inplanes, dilation, 64, blocks[0], 1, false, options);
  layer2 = make_stage(block, inplanes, dilation, 128, blocks[1], 2, dilate[0], options);
  layer3 = make_stage(block, inplanes, dilation, 256, blocks[2], 2, dilate[1], options);
  layer4 = make_stage(block, inplanes, dilation, 512, blocks[3], 2, dilate[2], options);
}

void ResNet::visit(nn::Visitor& visitor) {
  visitor.child("conv1", conv1);
  visitor.child("bn1", bn1);
  visitor.child("relu", relu);
  visitor.child("maxpool", maxpool);
  visitor.child("layer1", layer1);
  visitor.child("layer2", layer2);
  visitor.child("layer3", layer3);
  visitor.child("layer4", layer4);
  visitor.child("avgpool", avgpool);
  visitor.child("fc", fc);
}

std::vector<std::vector<std::string>> ResNet::fusable_chains() const {
  return chains_unless_frozen(norm, {{"conv1", "bn1", "relu"}});
}

Tensor ResNet::forward(TensorView input) const {
  Tensor x = maxpool(conv_bn_relu(conv1, bn1, relu, input, norm));
  for (const nn::Sequential* layer : {&layer1, &layer2, &layer3, &layer4})
    x = (*layer)(x);
  return fc(avgpool(x).flatten(1));
}

ResNet resnet18(const ResNetOptions& options) {
  return ResNet(ResNetBlock::Basic, {2, 2, 2, 2}, options);
}
ResNet resnet34(const ResNetOptions& options) {
  return ResNet(ResNetBlock::Basic, {3, 4, 6, 3}, options);
}
ResNet resnet50(const ResNetOptions& options) {
  return ResNet(ResNetBlock::Bottleneck, {3, 4, 6, 3}, options);
}
ResNet resnet101(const ResNetOptions& options) {
  return ResNet(ResNetBlock::Bottleneck, {3, 4, 23, 3}, options);
}
ResNet resnet152(const ResNetOptions& options) {
  return ResNet(ResNetBlock::Bottleneck, {3, 8, 36, 3}, options);
}
ResNet resnext50_32x4d(const ResNetOptions& options) {
  return grouped({3, 4, 6, 3}, 32, 4, options, "resnext50_32x4d");
}
ResNet resnext101_32x8d(const ResNetOptions& options) {
  return grouped({3, 4, 23, 3}, 32, 8, options, "resnext101_32x8d");
}
ResNet resnext101_64x4d(const ResNetOptions& options) {
  return grouped({3, 4, 23, 3}, 64, 4, options, "resnext101_64x4d");
}
ResNet wide_resnet50_2(const ResNetOptions& options) {
  return grouped({3, 4, 6, 3}, 1, std::int64_t{64} * 2, options, "wide_resnet50_2");
}
ResNet wide_resnet101_2(const ResNetOptions& options) {
  return grouped({3, 4, 23, 3}, 1, std::int64_t{64} * 2, options, "wide_resnet101_2");
}

namespace detail {

nn::Sequential resnet_trunk(ResNet net) {
  nn::Sequential children;
  children.push("conv1", std::move(net.conv1));
  if (net.norm.frozen) {
    ops::FrozenBatchNorm2d frozen(net.bn1.num_features, net.norm.eps);
    frozen.weight = std::move(net.bn1.weight);
    frozen.bias = std::move(net.bn1.bias);
    frozen.running_mean = std::move(net.bn1.running_mean);
    frozen.running_var = std::move(net.bn1.running_var);
    children.push("bn1", std::move(frozen));
  } else {
    children.push("bn1", std::move(net.bn1));
  }
  children.push("relu", std::move(net.relu))
      .push("maxpool", std::move(net.maxpool))
      .push("layer1", std::move(net.layer1))
      .push("layer2", std::move(net.layer2))
      .push("layer3", std::move(net.layer3))
      .push("layer4", std::move(net.layer4));
  return children;
}

}  // namespace detail
}  // namespace fp::vision::models
