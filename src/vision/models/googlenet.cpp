// torchvision/models/googlenet.py, layer for layer.
#include "flash_powder/vision/models/googlenet.h"

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/functional/pooling.h"
#include "vision/models/utils.h"

namespace fp::vision::models {
namespace {

/// 3x3 max-pool of stride 2 that rounds up (GoogLeNet's maxpool1..3).
nn::MaxPool2d pool(std::int64_t kernel_size) {
  return nn::MaxPool2d(kernel_size, {.stride = 2, .ceil_mode = true});
}

}  // namespace

BasicConv2d::BasicConv2d(std::int64_t in_channels, std::int64_t out_channels,
                         nn::ExpandingArray<2> kernel_size, nn::ExpandingArray<2> stride,
                         nn::ExpandingArray<2> padding)
    : conv(in_channels, out_channels, kernel_size,
           {.stride = stride, .padding = padding, .bias = false}),
      bn(out_channels, {.eps = 0.001}) {}

void BasicConv2d::visit(nn::Visitor& visitor) {
  visitor.child("conv", conv);
  visitor.child("bn", bn);
}

Tensor BasicConv2d::forward(TensorView input) const {
  return functional::relu(bn(conv(input)));
}

Inception::Inception(std::int64_t in_channels, std::int64_t ch1x1, std::int64_t ch3x3red,
                     std::int64_t ch3x3, std::int64_t ch5x5red, std::int64_t ch5x5,
                     std::int64_t pool_proj)
    : branch1(in_channels, ch1x1, 1),
      branch2(BasicConv2d(in_channels, ch3x3red, 1), BasicConv2d(ch3x3red, ch3x3, 3, 1, 1)),
      branch3(BasicConv2d(in_channels, ch5x5red, 1), BasicConv2d(ch5x5red, ch5x5, 3, 1, 1)),
      branch4(nn::MaxPool2d(3, {.stride = 1, .padding = 1, .ceil_mode = true}),
              BasicConv2d(in_channels, pool_proj, 1)) {}

void Inception::visit(nn::Visitor& visitor) {
  visitor.child("branch1", branch1);
  visitor.child("branch2", branch2);
  visitor.child("branch3", branch3);
  visitor.child("branch4", branch4);
}

Tensor Inception::forward(TensorView input) const {
  return aten::cat({branch1(input), branch2(input), branch3(input), branch4(input)}, 1);
}

GoogLeNetAux::GoogLeNetAux(std::int64_t in_channels, std::int64_t num_classes, double dropout)
    : conv(in_channels, 128, 1), fc1(2048, 1024), fc2(1024, num_classes), dropout(dropout) {}

void GoogLeNetAux::visit(nn::Visitor& visitor) {
  visitor.child("conv", conv);
  visitor.child("fc1", fc1);
  visitor.child("fc2", fc2);
  visitor.child("dropout", dropout);
}

Tensor GoogLeNetAux::forward(TensorView input) const {
  const Tensor x = conv(functional::adaptive_avg_pool2d(input, {4, 4})).flatten(1);
  return fc2(dropout(functional::relu(fc1(x))));
}

GoogLeNet::GoogLeNet(const GoogLeNetOptions& options)
    : transform_input(options.transform_input),
      conv1(3, 64, 7, 2, 3),
      maxpool1(pool(3)),
      conv2(64, 64, 1),
      conv3(64, 192, 3, 1, 1),
      maxpool2(pool(3)),
      inception3a(192, 64, 96, 128, 16, 32, 32),
      inception3b(256, 128, 128, 192, 32, 96, 64),
      maxpool3(pool(3)),
      inception4a(480, 192, 96, 208, 16, 48, 64),
      inception4b(512, 160, 112, 224, 24, 64, 64),
      inception4c(512, 128, 128, 256, 24, 64, 64),
      inception4d(512, 112, 144, 288, 32, 64, 64),
      inception4e(528, 256, 160, 320, 32, 128, 128),
      maxpool4(pool(2)),
      inception5a(832, 256, 160, 320, 32, 128, 128),
      inception5b(832, 384, 192, 384, 48, 128, 128),
      avgpool({1, 1}),
      dropout(options.dropout),
      fc(1024, options.num_classes) {
  if (options.aux_logits) {
    aux1.emplace(512, options.num_classes, options.dropout_aux);
    aux2.emplace(528, options.num_classes, options.dropout_aux);
  }
}

void GoogLeNet::visit(nn::Visitor& visitor) {
  visitor.child("conv1", conv1);
  visitor.child("maxpool1", maxpool1);
  visitor.child("conv2", conv2);
  visitor.child("conv3", conv3);
  visitor.child("maxpool2", maxpool2);
  visitor.child("inception3a", inception3a);
  visitor.child("inception3b", inception3b);
  visitor.child("maxpool3", maxpool3);
  visitor.child("inception4a", inception4a);
  visitor.child("inception4b", inception4b);
  visitor.child("inception4c", inception4c);
  visitor.child("inception4d", inception4d);
  visitor.child("inception4e", inception4e);
  visitor.child("maxpool4", maxpool4);
  visitor.child("inception5a", inception5a);
  visitor.child("inception5b", inception5b);
  if (aux1) visitor.child("aux1", *aux1);
  if (aux2) visitor.child("aux2", *aux2);
  visitor.child("avgpool", avgpool);
  visitor.child("dropout", dropout);
  visitor.child("fc", fc);
}

Tensor GoogLeNet::forward(TensorView input) const {
  Tensor x = transform_input ? conv1(detail::transform_input(input)) : conv1(input);
  x = conv3(conv2(maxpool1(x)));
  x = inception3b(inception3a(maxpool2(x)));
  x = inception4a(maxpool3(x));
  // aux1 would read x here and aux2 after inception4d, in training only.
  x = inception4e(inception4d(inception4c(inception4b(x))));
  x = inception5b(inception5a(maxpool4(x)));
  return fc(dropout(avgpool(x).flatten(1)));
}

GoogLeNet googlenet(const GoogLeNetOptions& options) {
  return GoogLeNet(options);
}

}  // namespace fp::vision::models
