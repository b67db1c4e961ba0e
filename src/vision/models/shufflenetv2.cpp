// torchvision/models/shufflenetv2.py, layer for layer.
#include "flash_powder/vision/models/shufflenetv2.h"

#include <string>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/functional/vision.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/normalization.h"

namespace fp::vision::models {
namespace {

/// ShuffleNetV2's 1x1 convolution (no bias), BatchNorm and, when asked, ReLU.
nn::Sequential pointwise(std::int64_t in, std::int64_t out, bool relu) {
  nn::Sequential layers(nn::Conv2d(in, out, 1, {.bias = false}), nn::BatchNorm2d(out));
  if (relu) layers.push(nn::ReLU());
  return layers;
}

/// InvertedResidual.depthwise_conv: a 3x3 convolution per channel.
nn::Conv2d depthwise(std::int64_t channels, std::int64_t stride) {
  return nn::Conv2d(channels, channels, 3,
                    {.stride = stride, .padding = 1, .groups = channels, .bias = false});
}

/// torchvision's checks of InvertedResidual's arguments, with its messages.
std::int64_t checked_stride(std::int64_t inp, std::int64_t oup, std::int64_t stride) {
  if (stride < 1 || stride > 3)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::ShuffleUnit: illegal stride value " + std::to_string(stride));
  if (stride == 1 && inp != oup / 2 * 2)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::ShuffleUnit: Invalid combination of stride 1, inp " +
                    std::to_string(inp) + " and oup " + std::to_string(oup) +
                    " values. If stride == 1 then inp should be equal to oup // 2 << 1.");
  return stride;
}

}  // namespace

ShuffleUnit::ShuffleUnit(std::int64_t inp, std::int64_t oup, std::int64_t stride)
    : stride(checked_stride(inp, oup, stride)) {
  const std::int64_t branch_features = oup / 2;
  if (stride > 1) {
    branch1.push(depthwise(inp, stride)).push(nn::BatchNorm2d(inp));
    branch1.extend(pointwise(inp, branch_features, true));
  }
  const std::int64_t in2 = stride > 1 ? inp : branch_features;
  branch2 = pointwise(in2, branch_features, true);
  branch2.push(depthwise(branch_features, stride)).push(nn::BatchNorm2d(branch_features));
  branch2.extend(pointwise(branch_features, branch_features, true));
}

void ShuffleUnit::visit(nn::Visitor& visitor) {
  if (branch1.size() > 0) visitor.child("branch1", branch1);
  visitor.child("branch2", branch2);
}

Tensor ShuffleUnit::forward(TensorView input) const {
  Tensor out;
  if (stride == 1) {
    const std::vector<TensorView> halves = aten::chunk(input, 2, 1);
    out = aten::cat({halves[0], branch2(halves[1])}, 1);
  } else {
    out = aten::cat({branch1(input), branch2(input)}, 1);
  }
  // torchvision's channel_shuffle(out, 2): view, transpose, contiguous, view
  // (a copy that moves values, so any route gives the same bits).
  return functional::channel_shuffle(out, 2);
}

ShuffleNetV2::ShuffleNetV2(std::array<std::int64_t, 3> stages_repeats,
                           std::array<std::int64_t, 5> stages_out_channels,
                           const ShuffleNetV2Options& options)
    : conv1(nn::Conv2d(3, stages_out_channels[0], 3, {.stride = 2, .padding = 1, .bias = false}),
            nn::BatchNorm2d(stages_out_channels[0]), nn::ReLU()),
      maxpool(3, {.stride = 2, .padding = 1}),
      conv5(pointwise(stages_out_channels[3], stages_out_channels[4], true)),
      fc(stages_out_channels[4], options.num_classes) {
  std::int64_t input_channels = stages_out_channels[0];
  nn::Sequential* stages[] = {&stage2, &stage3, &stage4};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::int64_t output_channels = stages_out_channels[i + 1];
    stages[i]->push(ShuffleUnit(input_channels, output_channels, 2));
    for (std::int64_t repeat = 1; repeat < stages_repeats[i]; ++repeat)
      stages[i]->push(ShuffleUnit(output_channels, output_channels, 1));
    input_channels = output_channels;
  }
}

void ShuffleNetV2::visit(nn::Visitor& visitor) {
  visitor.child("conv1", conv1);
  visitor.child("maxpool", maxpool);
  visitor.child("stage2", stage2);
  visitor.child("stage3", stage3);
  visitor.child("stage4", stage4);
  visitor.child("conv5", conv5);
  visitor.child("fc", fc);
}

Tensor ShuffleNetV2::forward(TensorView input) const {
  Tensor x = maxpool(conv1(input));
  for (const nn::Sequential* stage : {&stage2, &stage3, &stage4})
    x = (*stage)(x);
  x = conv5(x);
  return fc(aten::mean_dim(x, std::vector<std::int64_t>{2, 3}));  // globalpool
}

ShuffleNetV2 shufflenet_v2_x0_5(const ShuffleNetV2Options& options) {
  return ShuffleNetV2({4, 8, 4}, {24, 48, 96, 192, 1024}, options);
}
ShuffleNetV2 shufflenet_v2_x1_0(const ShuffleNetV2Options& options) {
  return ShuffleNetV2({4, 8, 4}, {24, 116, 232, 464, 1024}, options);
}
ShuffleNetV2 shufflenet_v2_x1_5(const ShuffleNetV2Options& options) {
  return ShuffleNetV2({4, 8, 4}, {24, 176, 352, 704, 1024}, options);
}
ShuffleNetV2 shufflenet_v2_x2_0(const ShuffleNetV2Options& options) {
  return ShuffleNetV2({4, 8, 4}, {24, 244, 488, 976, 2048}, options);
}

}  // namespace fp::vision::models
