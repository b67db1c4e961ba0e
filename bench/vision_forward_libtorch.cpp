// The models of vision_forward.cpp written with libtorch's C++ API
// (torch::nn), the way a libtorch user would port torchvision's: vgg11,
// resnet18, resnet50, mobilenet_v3_small and examples/unet's U-Net, with the
// same state-dict keys, so
// the same safetensors weights load; and the sequence models, which torch::nn
// has: torch::nn::LSTM (its parameters are PyTorch's `weight_ih_l0`,
// `weight_hh_l0_reverse`, ...; the output tensor only) and
// torch::nn::TransformerEncoder (`layers.0.self_attn.in_proj_weight`, ...,
// as Python's). torch::nn's Transformer layers have no batch_first, so the
// encoder's forward transposes the [batch, sequence, feature] input to
// sequence first and the output back, as a libtorch user would; and they
// have no fused fast path (Python's and flash_powder's
// _transformer_encoder_layer_fwd): they run step by step, through
// MultiheadAttention. For bench/run_vision.sh; built with
// -DFP_BUILD_BENCH_LIBTORCH=ON only (<torch/torch.h> takes long to compile).
//
//   bench_vision_forward_libtorch MODEL WEIGHTS INPUT OUTPUT RESULT [--warmup N]
//                                 [--repetitions N] [--channels-last]
//
// See vision_timing.h for the arguments. The forward runs under
// c10::InferenceMode, as Python's runs under torch.inference_mode().
// Why this file is long: torchvision has no C++ models, so this side ports
// each benchmarked network to torch::nn by hand, as a libtorch user must.
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "libtorch_mode.h"
#include "libtorch_safetensors.h"
#include "vision_timing.h"

namespace {

namespace nn = torch::nn;

nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride = 1,
                std::int64_t padding = 0, bool bias = false) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding).bias(bias));
}

nn::ReLU relu_inplace() {
  return nn::ReLU(nn::ReLUOptions().inplace(true));
}

// --- torchvision.models.vgg11 ------------------------------------------------

struct VGGImpl : nn::Module {
  VGGImpl() {
    nn::Sequential layers;
    std::int64_t channels = 3;
    for (const int width : {64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0}) {
      if (width == 0) {
        layers->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)));
        continue;
      }
      layers->push_back(conv(channels, width, 3, 1, 1, true));
      layers->push_back(relu_inplace());
      channels = width;
    }
    features = register_module("features", layers);
    avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(7)));
    classifier = register_module(
        "classifier", nn::Sequential(nn::Linear(512 * 7 * 7, 4096), relu_inplace(),
                                     nn::Dropout(0.5), nn::Linear(4096, 4096), relu_inplace(),
                                     nn::Dropout(0.5), nn::Linear(4096, 1000)));
  }

  torch::Tensor forward(torch::Tensor x) {
    x = avgpool(features->forward(x));
    return classifier->forward(torch::flatten(x, 1));
  }

  nn::Sequential features{nullptr};
  nn::AdaptiveAvgPool2d avgpool{nullptr};
  nn::Sequential classifier{nullptr};
};
TORCH_MODULE(VGG);

// --- torchvision.models.resnet18 and resnet50 ----------------------------------

/// torchvision's BasicBlock (resnet18, resnet34).
struct BasicBlockImpl : nn::Module {
  static constexpr std::int64_t expansion = 1;

  BasicBlockImpl(std::int64_t inplanes, std::int64_t planes, std::int64_t stride,
                 nn::Sequential downsample_layers)
      : conv1(register_module("conv1", conv(inplanes, planes, 3, stride, 1))),
        bn1(register_module("bn1", nn::BatchNorm2d(planes))),
        conv2(register_module("conv2", conv(planes, planes, 3, 1, 1))),
        bn2(register_module("bn2", nn::BatchNorm2d(planes))) {
    if (!downsample_layers->is_empty())
      downsample = register_module("downsample", downsample_layers);
  }

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor out = bn1(conv1(x)).relu_();
    out = bn2(conv2(out));
    out += downsample ? downsample->forward(x) : x;
    return out.relu_();
  }

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Sequential downsample{nullptr};
};
TORCH_MODULE(BasicBlock);

/// torchvision's Bottleneck (resnet50 and deeper).
struct BottleneckImpl : nn::Module {
  static constexpr std::int64_t expansion = 4;

  BottleneckImpl(std::int64_t inplanes, std::int64_t planes, std::int64_t stride,
                 nn::Sequential downsample_layers)
      : conv1(register_module("conv1", conv(inplanes, planes, 1))),
        bn1(register_module("bn1", nn::BatchNorm2d(planes))),
        conv2(register_module("conv2", conv(planes, planes, 3, stride, 1))),
        bn2(register_module("bn2", nn::BatchNorm2d(planes))),
        conv3(register_module("conv3", conv(planes, planes * expansion, 1))),
        bn3(register_module("bn3", nn::BatchNorm2d(planes * expansion))) {
    if (!downsample_layers->is_empty())
      downsample = register_module("downsample", downsample_layers);
  }

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor out = bn1(conv1(x)).relu_();
    out = bn2(conv2(out)).relu_();
    out = bn3(conv3(out));
    out += downsample ? downsample->forward(x) : x;
    return out.relu_();
  }

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Conv2d conv3;
  nn::BatchNorm2d bn3;
  nn::Sequential downsample{nullptr};
};
TORCH_MODULE(Bottleneck);

/// torchvision's ResNet over BasicBlock or Bottleneck.
template <class Block>
struct ResNetImpl : nn::Module {
  static constexpr std::int64_t expansion = Block::ContainedType::expansion;

  explicit ResNetImpl(std::array<std::int64_t, 4> blocks) {
    conv1 = register_module("conv1", conv(3, 64, 7, 2, 3));
    bn1 = register_module("bn1", nn::BatchNorm2d(64));
    maxpool =
        register_module("maxpool", nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1)));
    const std::int64_t planes[] = {64, 128, 256, 512};
    for (std::size_t i = 0; i < 4; ++i) {
      layers[i] = register_module("layer" + std::to_string(i + 1),
                                  stage(planes[i], blocks[i], i == 0 ? 1 : 2));
    }
    avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(1)));
    fc = register_module("fc", nn::Linear(512 * expansion, 1000));
  }

  /// torchvision's ResNet._make_layer.
  nn::Sequential stage(std::int64_t planes, std::int64_t blocks, std::int64_t stride) {
    nn::Sequential downsample;
    if (stride != 1 || inplanes != planes * expansion) {
      downsample = nn::Sequential(conv(inplanes, planes * expansion, 1, stride),
                                  nn::BatchNorm2d(planes * expansion));
    }
    nn::Sequential layer;
    layer->push_back(Block(inplanes, planes, stride, downsample));
    inplanes = planes * expansion;
    for (std::int64_t i = 1; i < blocks; ++i)
      layer->push_back(Block(inplanes, planes, 1, nn::Sequential()));
    return layer;
  }

  torch::Tensor forward(torch::Tensor x) {
    x = maxpool(bn1(conv1(x)).relu_());
    for (auto& layer : layers)
      x = layer->forward(x);
    return fc(torch::flatten(avgpool(x), 1));
  }

  std::int64_t inplanes = 64;
  nn::Conv2d conv1{nullptr};
  nn::BatchNorm2d bn1{nullptr};
  nn::MaxPool2d maxpool{nullptr};
  std::array<nn::Sequential, 4> layers{nn::Sequential{nullptr}, nn::Sequential{nullptr},
                                       nn::Sequential{nullptr}, nn::Sequential{nullptr}};
  nn::AdaptiveAvgPool2d avgpool{nullptr};
  nn::Linear fc{nullptr};
};

/// A ResNet over `Block` as a module holder (TORCH_MODULE for a template).
template <class Block>
std::shared_ptr<ResNetImpl<Block>> resnet(std::array<std::int64_t, 4> blocks) {
  return std::make_shared<ResNetImpl<Block>>(blocks);
}

// --- torchvision.models.mobilenet_v3_small -----------------------------------

enum class Activation { None, ReLU, Hardswish };

torch::Tensor activate(Activation activation, torch::Tensor x) {
  switch (activation) {
    case Activation::ReLU:
      return x.relu_();
    case Activation::Hardswish:
      return torch::hardswish_(x);
    case Activation::None:
      return x;
  }
  return x;
}

/// torchvision.ops.Conv2dNormActivation with MobileNetV3's BatchNorm (eps
/// 0.001): the keys "0" (convolution) and "1" (BatchNorm), as its Sequential.
struct ConvNormActivationImpl : nn::Module {
  ConvNormActivationImpl(std::int64_t in, std::int64_t out, std::int64_t kernel,
                         std::int64_t stride, std::int64_t groups, Activation activation)
      : conv(register_module("0", nn::Conv2d(nn::Conv2dOptions(in, out, kernel)
                                                 .stride(stride)
                                                 .padding((kernel - 1) / 2)
                                                 .groups(groups)
                                                 .bias(false)))),
        norm(register_module("1", nn::BatchNorm2d(nn::BatchNormOptions(out).eps(0.001)))),
        activation(activation) {}

  torch::Tensor forward(const torch::Tensor& x) { return activate(activation, norm(conv(x))); }

  nn::Conv2d conv;
  nn::BatchNorm2d norm;
  Activation activation;
};
TORCH_MODULE(ConvNormActivation);

/// torchvision.ops.SqueezeExcitation with MobileNetV3's hardsigmoid.
struct SqueezeExcitationImpl : nn::Module {
  SqueezeExcitationImpl(std::int64_t channels, std::int64_t squeezed)
      : fc1(register_module("fc1", nn::Conv2d(nn::Conv2dOptions(channels, squeezed, 1)))),
        fc2(register_module("fc2", nn::Conv2d(nn::Conv2dOptions(squeezed, channels, 1)))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    const torch::Tensor scale = torch::adaptive_avg_pool2d(x, {1, 1});
    return torch::hardsigmoid(fc2(fc1(scale).relu_())) * x;
  }

  nn::Conv2d fc1;
  nn::Conv2d fc2;
};
TORCH_MODULE(SqueezeExcitation);

/// torchvision's _make_divisible(value, 8).
std::int64_t make_divisible(double value) {
  const std::int64_t divisor = 8;
  std::int64_t rounded =
      std::max(divisor, static_cast<std::int64_t>(value + divisor / 2.0) / divisor * divisor);
  if (static_cast<double>(rounded) < 0.9 * value) rounded += divisor;
  return rounded;
}

/// One row of torchvision's InvertedResidualConfig.
struct BlockConfig {
  std::int64_t in, kernel, expanded, out;
  bool squeeze_excitation;
  Activation activation;
  std::int64_t stride;
};

/// torchvision.models.mobilenetv3.InvertedResidual: its Sequential `block`
/// ("block.0.0.weight", ...) as a module of numbered children.
struct InvertedResidualImpl : nn::Module {
  explicit InvertedResidualImpl(const BlockConfig& c) : residual(c.stride == 1 && c.in == c.out) {
    auto block = register_module("block", std::make_shared<nn::Module>());
    auto add = [&](auto module) {
      block->register_module(std::to_string(steps.size()), module.ptr());
      steps.emplace_back([module](const torch::Tensor& x) mutable { return module(x); });
    };
    if (c.expanded != c.in) add(ConvNormActivation(c.in, c.expanded, 1, 1, 1, c.activation));
    add(ConvNormActivation(c.expanded, c.expanded, c.kernel, c.stride, c.expanded, c.activation));
    if (c.squeeze_excitation)
      add(SqueezeExcitation(c.expanded, make_divisible(static_cast<double>(c.expanded / 4))));
    add(ConvNormActivation(c.expanded, c.out, 1, 1, 1, Activation::None));
  }

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor out = x;
    for (auto& step : steps)
      out = step(out);
    return residual ? out + x : out;
  }

  std::vector<std::function<torch::Tensor(const torch::Tensor&)>> steps;
  bool residual;
};
TORCH_MODULE(InvertedResidual);

/// torchvision.models.mobilenet_v3_small: `features` (numbered children),
/// the average pool, `classifier` (Linear, Hardswish, Dropout, Linear).
struct MobileNetV3Impl : nn::Module {
  MobileNetV3Impl() {
    constexpr auto RE = Activation::ReLU;
    constexpr auto HS = Activation::Hardswish;
    const BlockConfig configs[] = {
        {16, 3, 16, 16, true, RE, 2},  {16, 3, 72, 24, false, RE, 2}, {24, 3, 88, 24, false, RE, 1},
        {24, 5, 96, 40, true, HS, 2},  {40, 5, 240, 40, true, HS, 1}, {40, 5, 240, 40, true, HS, 1},
        {40, 5, 120, 48, true, HS, 1}, {48, 5, 144, 48, true, HS, 1}, {48, 5, 288, 96, true, HS, 2},
        {96, 5, 576, 96, true, HS, 1}, {96, 5, 576, 96, true, HS, 1}};
    auto features = register_module("features", std::make_shared<nn::Module>());
    auto add = [&](auto module) {
      features->register_module(std::to_string(steps.size()), module.ptr());
      steps.emplace_back([module](const torch::Tensor& x) mutable { return module(x); });
    };
    add(ConvNormActivation(3, 16, 3, 2, 1, HS));
    for (const BlockConfig& config : configs)
      add(InvertedResidual(config));
    add(ConvNormActivation(96, 576, 1, 1, 1, HS));
    classifier = register_module(
        "classifier",
        nn::Sequential(nn::Linear(576, 1024),
                       nn::Functional([](const torch::Tensor& x) { return torch::hardswish(x); }),
                       nn::Dropout(0.2), nn::Linear(1024, 1000)));
  }

  torch::Tensor forward(torch::Tensor x) {
    for (auto& step : steps)
      x = step(x);
    return classifier->forward(torch::flatten(torch::adaptive_avg_pool2d(x, {1, 1}), 1));
  }

  std::vector<std::function<torch::Tensor(const torch::Tensor&)>> steps;
  nn::Sequential classifier{nullptr};
};
TORCH_MODULE(MobileNetV3);

// --- examples/unet/unet.py's UNet --------------------------------------------

nn::Sequential double_conv(std::int64_t in, std::int64_t out) {
  return nn::Sequential(conv(in, out, 3, 1, 1), nn::BatchNorm2d(out), relu_inplace(),
                        conv(out, out, 3, 1, 1), nn::BatchNorm2d(out), relu_inplace());
}

/// unet.py's `nn.Sequential(nn.MaxPool2d(2), double_conv(...))`: a Sequential
/// inside a Sequential, which torch::nn::Sequential cannot hold (its forward
/// is a template), so a module with the same keys ("0", "1.0.weight", ...).
struct DownImpl : nn::Module {
  DownImpl(std::int64_t in, std::int64_t out)
      : pool(register_module("0", nn::MaxPool2d(nn::MaxPool2dOptions(2)))),
        convs(register_module("1", double_conv(in, out))) {}

  torch::Tensor forward(const torch::Tensor& x) { return convs->forward(pool(x)); }

  nn::MaxPool2d pool;
  nn::Sequential convs;
};
TORCH_MODULE(Down);

struct UNetImpl : nn::Module {
  explicit UNetImpl(std::int64_t width = 8, std::int64_t classes = 4)
      : inc(register_module("inc", double_conv(3, width))),
        down1(register_module("down1", Down(width, 2 * width))),
        down2(register_module("down2", Down(2 * width, 4 * width))),
        up1(register_module(
            "up1",
            nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4 * width, 2 * width, 2).stride(2)))),
        conv1(register_module("conv1", double_conv(4 * width, 2 * width))),
        up2(register_module("up2", nn::Upsample(nn::UpsampleOptions()
                                                    .scale_factor(std::vector<double>{2.0, 2.0})
                                                    .mode(torch::kBilinear)
                                                    .align_corners(false)))),
        conv2(register_module("conv2", double_conv(3 * width, width))),
        outc(register_module("outc", conv(width, classes, 1, 1, 0, true))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    const torch::Tensor x1 = inc->forward(x);
    const torch::Tensor x2 = down1->forward(x1);
    const torch::Tensor x3 = down2->forward(x2);
    const torch::Tensor y = conv1->forward(torch::cat({up1(x3), x2}, 1));
    return outc(conv2->forward(torch::cat({up2(y), x1}, 1)));
  }

  nn::Sequential inc;
  Down down1, down2;
  nn::ConvTranspose2d up1;
  nn::Sequential conv1;
  nn::Upsample up2;
  nn::Sequential conv2;
  nn::Conv2d outc;
};
TORCH_MODULE(UNet);

// --- the sequence models -------------------------------------------------------

/// nn.LSTM(256, 256, num_layers=2, bidirectional=True).
nn::LSTM lstm() {
  return nn::LSTM(nn::LSTMOptions(256, 256).num_layers(2).bidirectional(true));
}

/// nn.TransformerEncoder(nn.TransformerEncoderLayer(512, 8, dim_feedforward=2048,
/// dropout=0.0, batch_first=True), num_layers=6), without batch_first (below).
nn::TransformerEncoder encoder() {
  const nn::TransformerEncoderLayer layer(
      nn::TransformerEncoderLayerOptions(512, 8).dim_feedforward(2048).dropout(0.0));
  return nn::TransformerEncoder(nn::TransformerEncoderOptions(layer, 6));
}

/// The forward the benchmark times: the module's own, except for the LSTM
/// (the output of (output, (h_n, c_n))) and the encoder (batch first).
template <class Model>
torch::Tensor forward(Model& model, const torch::Tensor& input) {
  return model->forward(input);
}

torch::Tensor forward(nn::LSTM& model, const torch::Tensor& input) {
  return std::get<0>(model->forward(input));
}

torch::Tensor forward(nn::TransformerEncoder& model, const torch::Tensor& input) {
  return model->forward(input.transpose(0, 1)).transpose(0, 1);
}

// --- loading and running ------------------------------------------------------

/// Copies every parameter and buffer from `weights`; like Python's strict
/// load_state_dict, a missing or an unexpected key is an error.
void load(nn::Module& model, const std::map<std::string, torch::Tensor>& weights) {
  torch::NoGradGuard no_grad;
  std::set<std::string> unused;
  for (const auto& [key, value] : weights)
    unused.insert(key);
  auto copy = [&](const std::string& key, torch::Tensor& target) {
    const auto found = weights.find(key);
    if (found == weights.end()) throw std::runtime_error("the weights have no " + key);
    target.copy_(found->second);
    unused.erase(key);
  };
  for (auto& item : model.named_parameters())
    copy(item.key(), item.value());
  for (auto& item : model.named_buffers())
    copy(item.key(), item.value());
  if (!unused.empty()) throw std::runtime_error("unexpected key " + *unused.begin());
}

/// Python's `model.to(memory_format=torch.channels_last)`: every 4-d
/// parameter and buffer in channels_last.
void to_channels_last(nn::Module& model) {
  torch::NoGradGuard no_grad;
  for (auto& tensor : model.parameters())
    if (tensor.dim() == 4) tensor.set_data(tensor.contiguous(at::MemoryFormat::ChannelsLast));
  for (auto& tensor : model.buffers())
    if (tensor.dim() == 4) tensor.set_data(tensor.contiguous(at::MemoryFormat::ChannelsLast));
}

template <class Model>
int run(Model model, const vision_bench::Arguments& arguments,
        std::chrono::steady_clock::time_point load_start) {
  load(*model, libtorch_bench::read_safetensors(arguments.weights));
  model->eval();
  torch::Tensor input = libtorch_bench::read_safetensors(arguments.input).at("input");
  if (arguments.channels_last) {
    if (vision_bench::batch_dim(arguments.model) != 0 || input.dim() != 4)
      throw std::invalid_argument("--channels-last: the vision models only");
    to_channels_last(*model);
    input = input.contiguous(at::MemoryFormat::ChannelsLast);
  }
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
          .count();

  // FP_BENCH_LIBTORCH_MODE=no_grad or grad measures what InferenceMode is worth.
  const libtorch_bench::ChosenGradMode grad_mode;
  torch::Tensor output;
  const vision_bench::Times times =
      vision_bench::time_forward([&] { output = forward(model, input); }, arguments);
  libtorch_bench::write_safetensors(arguments.output, "output", output);
  vision_bench::write_result(arguments, "libtorch", at::get_num_threads(),
                             input.size(vision_bench::batch_dim(arguments.model)), load_ms, times);
  return 0;
}

int run(const vision_bench::Arguments& arguments) {
  const auto start = std::chrono::steady_clock::now();
  if (arguments.model == "vgg11") return run(VGG(), arguments, start);
  if (arguments.model == "resnet18") return run(resnet<BasicBlock>({2, 2, 2, 2}), arguments, start);
  if (arguments.model == "resnet50") return run(resnet<Bottleneck>({3, 4, 6, 3}), arguments, start);
  if (arguments.model == "mobilenet_v3_small") return run(MobileNetV3(), arguments, start);
  if (arguments.model == "unet") return run(UNet(), arguments, start);
  if (arguments.model == "lstm") return run(lstm(), arguments, start);
  if (arguments.model == "encoder") return run(encoder(), arguments, start);
  throw std::invalid_argument(
      "unknown model " + arguments.model +
      " (vgg11, resnet18, resnet50, mobilenet_v3_small, unet, lstm or encoder)");
}

}  // namespace

int main(int argc, char** argv) {
  return vision_bench::run_main(
      argc, argv, [](const vision_bench::Arguments& arguments) { return run(arguments); });
}
