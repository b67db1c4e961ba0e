// torchvision/models/inception.py, layer for layer.
#include "flash_powder/vision/models/inception.h"

#include "flash_powder/aten/aten.h"
#include "flash_powder/functional/pooling.h"
#include "vision/models/utils.h"

namespace fp::vision::models {
namespace {

/// `F.avg_pool2d(x, kernel_size=3, stride=1, padding=1)`, the pool branches' pool.
Tensor pool3x3(TensorView input) {
  return functional::avg_pool2d(input, 3, {.stride = 1, .padding = 1});
}

/// `F.max_pool2d(x, kernel_size=3, stride=2)`, the grid reductions' pool.
Tensor reduce3x3(TensorView input) {
  return functional::max_pool2d(input, 3, {.stride = 2});
}

}  // namespace

InceptionA::InceptionA(std::int64_t in_channels, std::int64_t pool_features)
    : branch1x1(in_channels, 64, 1),
      branch5x5_1(in_channels, 48, 1),
      branch5x5_2(48, 64, 5, 1, 2),
      branch3x3dbl_1(in_channels, 64, 1),
      branch3x3dbl_2(64, 96, 3, 1, 1),
      branch3x3dbl_3(96, 96, 3, 1, 1),
      branch_pool(in_channels, pool_features, 1) {}

void InceptionA::visit(nn::Visitor& visitor) {
  visitor.child("branch1x1", branch1x1);
  visitor.child("branch5x5_1", branch5x5_1);
  visitor.child("branch5x5_2", branch5x5_2);
  visitor.child("branch3x3dbl_1", branch3x3dbl_1);
  visitor.child("branch3x3dbl_2", branch3x3dbl_2);
  visitor.child("branch3x3dbl_3", branch3x3dbl_3);
  visitor.child("branch_pool", branch_pool);
}

Tensor InceptionA::forward(TensorView input) const {
  return aten::cat(
      {branch1x1(input), branch5x5_2(branch5x5_1(input)),
       branch3x3dbl_3(branch3x3dbl_2(branch3x3dbl_1(input))), branch_pool(pool3x3(input))},
      1);
}

InceptionB::InceptionB(std::int64_t in_channels)
    : branch3x3(in_channels, 384, 3, 2),
      branch3x3dbl_1(in_channels, 64, 1),
      branch3x3dbl_2(64, 96, 3, 1, 1),
      branch3x3dbl_3(96, 96, 3, 2) {}

void InceptionB::visit(nn::Visitor& visitor) {
  visitor.child("branch3x3", branch3x3);
  visitor.child("branch3x3dbl_1", branch3x3dbl_1);
  visitor.child("branch3x3dbl_2", branch3x3dbl_2);
  visitor.child("branch3x3dbl_3", branch3x3dbl_3);
}

Tensor InceptionB::forward(TensorView input) const {
  return aten::cat(
      {branch3x3(input), branch3x3dbl_3(branch3x3dbl_2(branch3x3dbl_1(input))), reduce3x3(input)},
      1);
}

InceptionC::InceptionC(std::int64_t in_channels, std::int64_t channels_7x7)
    : branch1x1(in_channels, 192, 1),
      branch7x7_1(in_channels, channels_7x7, 1),
      branch7x7_2(channels_7x7, channels_7x7, {1, 7}, 1, {0, 3}),
      branch7x7_3(channels_7x7, 192, {7, 1}, 1, {3, 0}),
      branch7x7dbl_1(in_channels, channels_7x7, 1),
      branch7x7dbl_2(channels_7x7, channels_7x7, {7, 1}, 1, {3, 0}),
      branch7x7dbl_3(channels_7x7, channels_7x7, {1, 7}, 1, {0, 3}),
      branch7x7dbl_4(channels_7x7, channels_7x7, {7, 1}, 1, {3, 0}),
      branch7x7dbl_5(channels_7x7, 192, {1, 7}, 1, {0, 3}),
      branch_pool(in_channels, 192, 1) {}

void InceptionC::visit(nn::Visitor& visitor) {
  visitor.child("branch1x1", branch1x1);
  visitor.child("branch7x7_1", branch7x7_1);
  visitor.child("branch7x7_2", branch7x7_2);
  visitor.child("branch7x7_3", branch7x7_3);
  visitor.child("branch7x7dbl_1", branch7x7dbl_1);
  visitor.child("branch7x7dbl_2", branch7x7dbl_2);
  visitor.child("branch7x7dbl_3", branch7x7dbl_3);
  visitor.child("branch7x7dbl_4", branch7x7dbl_4);
  visitor.child("branch7x7dbl_5", branch7x7dbl_5);
  visitor.child("branch_pool", branch_pool);
}

Tensor InceptionC::forward(TensorView input) const {
  const Tensor double7x7 =
      branch7x7dbl_5(branch7x7dbl_4(branch7x7dbl_3(branch7x7dbl_2(branch7x7dbl_1(input)))));
  return aten::cat({branch1x1(input), branch7x7_3(branch7x7_2(branch7x7_1(input))), double7x7,
                    branch_pool(pool3x3(input))},
                   1);
}

InceptionD::InceptionD(std::int64_t in_channels)
    : branch3x3_1(in_channels, 192, 1),
      branch3x3_2(192, 320, 3, 2),
      branch7x7x3_1(in_channels, 192, 1),
      branch7x7x3_2(192, 192, {1, 7}, 1, {0, 3}),
      branch7x7x3_3(192, 192, {7, 1}, 1, {3, 0}),
      branch7x7x3_4(192, 192, 3, 2) {}

void InceptionD::visit(nn::Visitor& visitor) {
  visitor.child("branch3x3_1", branch3x3_1);
  visitor.child("branch3x3_2", branch3x3_2);
  visitor.child("branch7x7x3_1", branch7x7x3_1);
  visitor.child("branch7x7x3_2", branch7x7x3_2);
  visitor.child("branch7x7x3_3", branch7x7x3_3);
  visitor.child("branch7x7x3_4", branch7x7x3_4);
}

Tensor InceptionD::forward(TensorView input) const {
  return aten::cat(
      {branch3x3_2(branch3x3_1(input)),
       branch7x7x3_4(branch7x7x3_3(branch7x7x3_2(branch7x7x3_1(input)))), reduce3x3(input)},
      1);
}

InceptionE::InceptionE(std::int64_t in_channels)
    : branch1x1(in_channels, 320, 1),
      branch3x3_1(in_channels, 384, 1),
      branch3x3_2a(384, 384, {1, 3}, 1, {0, 1}),
      branch3x3_2b(384, 384, {3, 1}, 1, {1, 0}),
      branch3x3dbl_1(in_channels, 448, 1),
      branch3x3dbl_2(448, 384, 3, 1, 1),
      branch3x3dbl_3a(384, 384, {1, 3}, 1, {0, 1}),
      branch3x3dbl_3b(384, 384, {3, 1}, 1, {1, 0}),
      branch_pool(in_channels, 192, 1) {}

void InceptionE::visit(nn::Visitor& visitor) {
  visitor.child("branch1x1", branch1x1);
  visitor.child("branch3x3_1", branch3x3_1);
  visitor.child("branch3x3_2a", branch3x3_2a);
  visitor.child("branch3x3_2b", branch3x3_2b);
  visitor.child("branch3x3dbl_1", branch3x3dbl_1);
  visitor.child("branch3x3dbl_2", branch3x3dbl_2);
  visitor.child("branch3x3dbl_3a", branch3x3dbl_3a);
  visitor.child("branch3x3dbl_3b", branch3x3dbl_3b);
  visitor.child("branch_pool", branch_pool);
}

Tensor InceptionE::forward(TensorView input) const {
  const Tensor single = branch3x3_1(input);
  const Tensor doubled = branch3x3dbl_2(branch3x3dbl_1(input));
  return aten::cat({branch1x1(input), aten::cat({branch3x3_2a(single), branch3x3_2b(single)}, 1),
                    aten::cat({branch3x3dbl_3a(doubled), branch3x3dbl_3b(doubled)}, 1),
                    branch_pool(pool3x3(input))},
                   1);
}

InceptionAux::InceptionAux(std::int64_t in_channels, std::int64_t num_classes)
    : conv0(in_channels, 128, 1), conv1(128, 768, 5), fc(768, num_classes) {}

void InceptionAux::visit(nn::Visitor& visitor) {
  visitor.child("conv0", conv0);
  visitor.child("conv1", conv1);
  visitor.child("fc", fc);
}

Tensor InceptionAux::forward(TensorView input) const {
  const Tensor x = conv1(conv0(functional::avg_pool2d(input, 5, {.stride = 3})));
  return fc(functional::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
}

Inception3::Inception3(const Inception3Options& options)
    : transform_input(options.transform_input),
      Conv2d_1a_3x3(3, 32, 3, 2),
      Conv2d_2a_3x3(32, 32, 3),
      Conv2d_2b_3x3(32, 64, 3, 1, 1),
      maxpool1(3, {.stride = 2}),
      Conv2d_3b_1x1(64, 80, 1),
      Conv2d_4a_3x3(80, 192, 3),
      maxpool2(3, {.stride = 2}),
      Mixed_5b(192, 32),
      Mixed_5c(256, 64),
      Mixed_5d(288, 64),
      Mixed_6a(288),
      Mixed_6b(768, 128),
      Mixed_6c(768, 160),
      Mixed_6d(768, 160),
      Mixed_6e(768, 192),
      Mixed_7a(768),
      Mixed_7b(1280),
      Mixed_7c(2048),
      avgpool({1, 1}),
      dropout(options.dropout),
      fc(2048, options.num_classes) {
  if (options.aux_logits) AuxLogits.emplace(768, options.num_classes);
}

void Inception3::visit(nn::Visitor& visitor) {
  visitor.child("Conv2d_1a_3x3", Conv2d_1a_3x3);
  visitor.child("Conv2d_2a_3x3", Conv2d_2a_3x3);
  visitor.child("Conv2d_2b_3x3", Conv2d_2b_3x3);
  visitor.child("maxpool1", maxpool1);
  visitor.child("Conv2d_3b_1x1", Conv2d_3b_1x1);
  visitor.child("Conv2d_4a_3x3", Conv2d_4a_3x3);
  visitor.child("maxpool2", maxpool2);
  visitor.child("Mixed_5b", Mixed_5b);
  visitor.child("Mixed_5c", Mixed_5c);
  visitor.child("Mixed_5d", Mixed_5d);
  visitor.child("Mixed_6a", Mixed_6a);
  visitor.child("Mixed_6b", Mixed_6b);
  visitor.child("Mixed_6c", Mixed_6c);
  visitor.child("Mixed_6d", Mixed_6d);
  visitor.child("Mixed_6e", Mixed_6e);
  if (AuxLogits) visitor.child("AuxLogits", *AuxLogits);
  visitor.child("Mixed_7a", Mixed_7a);
  visitor.child("Mixed_7b", Mixed_7b);
  visitor.child("Mixed_7c", Mixed_7c);
  visitor.child("avgpool", avgpool);
  visitor.child("dropout", dropout);
  visitor.child("fc", fc);
}

Tensor Inception3::forward(TensorView input) const {
  Tensor x = transform_input ? Conv2d_1a_3x3(detail::transform_input(input)) : Conv2d_1a_3x3(input);
  x = Conv2d_4a_3x3(Conv2d_3b_1x1(maxpool1(Conv2d_2b_3x3(Conv2d_2a_3x3(x)))));
  x = Mixed_5d(Mixed_5c(Mixed_5b(maxpool2(x))));
  x = Mixed_6e(Mixed_6d(Mixed_6c(Mixed_6b(Mixed_6a(x)))));
  // AuxLogits would read x here, in training only.
  x = Mixed_7c(Mixed_7b(Mixed_7a(x)));
  return fc(dropout(avgpool(x)).flatten(1));
}

Inception3 inception_v3(const Inception3Options& options) {
  return Inception3(options);
}

}  // namespace fp::vision::models
