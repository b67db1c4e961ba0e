// The forward of a model through flash_powder: fp::vision::models' vgg11,
// resnet18, resnet50 and mobilenet_v3_small, the zoo's convnext_tiny,
// efficientnet_b0, vit_b_16 and swin_t (models::make) and
// deeplabv3_resnet50 and lraspp_mobilenet_v3_large (segmentation::make; their
// `out`), examples/unet's U-Net, and the sequence models fp::nn::LSTM(256,
// 256, {.num_layers = 2, .bidirectional = true}) (the output tensor only) and
// a 6-layer fp::nn::TransformerEncoder (d_model 512, 8 heads, feed-forward
// 2048, dropout 0, batch_first) (run_vision.sh compares it with libtorch's
// C++ API, eager PyTorch and torch.compile).
//
//   bench_vision_forward MODEL WEIGHTS INPUT OUTPUT RESULT [--warmup N] [--repetitions N]
//                        [--channels-last] [--optimize]
//
// See vision_timing.h for the arguments. --channels-last converts the input
// and every 4-d parameter and buffer (the convolutions' weights) to
// channels_last, as Python's `model.to(memory_format=torch.channels_last)`
// (the vision models only). --optimize calls fp::nn::optimize_for_inference
// after loading (BatchNorm folded, oneDNN's fused kernels; counted in the
// load time): run_vision.sh --optimize reports it as one more side.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/nn/layers/rnn.h>
#include <flash_powder/nn/layers/transformer.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>

#include "unet.h"
#include "vision_timing.h"

namespace {

/// A model and its forward: one tensor in, the tensor the benchmark times
/// and compares out (the LSTM returns (output, (h_n, c_n)); its output).
struct Model {
  std::unique_ptr<fp::nn::ModuleBase> module;
  std::function<fp::Tensor(const fp::Tensor&)> forward;
};

/// A model whose forward takes and returns one tensor, built in place.
template <class M, class... Arguments>
Model plain(Arguments&&... arguments) {
  auto owned = std::make_unique<M>(std::forward<Arguments>(arguments)...);
  const M* forward = owned.get();
  return {std::move(owned), [forward](const fp::Tensor& x) { return (*forward)(x); }};
}

/// A classifier of fp::vision::models by torchvision's builder name.
Model made_classifier(const std::string& name) {
  std::unique_ptr<fp::nn::Module> owned = fp::vision::models::make(name);
  const fp::nn::Module* forward = owned.get();
  return {std::move(owned), [forward](const fp::Tensor& x) { return (*forward)(x); }};
}

/// A segmentation model by torchvision's builder name; its forward's `out`.
Model made_segmenter(const std::string& name) {
  auto owned = fp::vision::models::segmentation::make(name);
  const fp::vision::models::segmentation::SegmentationModel* forward = owned.get();
  return {std::move(owned), [forward](const fp::Tensor& x) { return (*forward)(x).out; }};
}

Model make_model(const std::string& name) {
  namespace models = fp::vision::models;
  if (name == "convnext_tiny" || name == "efficientnet_b0" || name == "vit_b_16" ||
      name == "swin_t")
    return made_classifier(name);
  if (name == "deeplabv3_resnet50" || name == "lraspp_mobilenet_v3_large")
    return made_segmenter(name);
  if (name == "vgg11") return plain<models::VGG>(models::vgg11());
  if (name == "resnet18") return plain<models::ResNet>(models::resnet18());
  if (name == "resnet50") return plain<models::ResNet>(models::resnet50());
  if (name == "mobilenet_v3_small") return plain<models::MobileNetV3>(models::mobilenet_v3_small());
  if (name == "unet") return plain<unet::UNet>();
  if (name == "lstm") {
    auto lstm = std::make_unique<fp::nn::LSTM>(
        256, 256, fp::nn::LSTMOptions{.num_layers = 2, .bidirectional = true});
    const fp::nn::LSTM* forward = lstm.get();
    return {std::move(lstm), [forward](const fp::Tensor& x) { return std::get<0>((*forward)(x)); }};
  }
  if (name == "encoder") {
    const fp::nn::TransformerEncoderLayer layer(
        512, 8, {.dim_feedforward = 2048, .dropout = 0.0, .batch_first = true});
    return plain<fp::nn::TransformerEncoder>(layer, 6);
  }
  throw fp::Error(fp::ErrorCode::BadArgument,
                  "unknown model " + name +
                      " (vgg11, resnet18, resnet50, mobilenet_v3_small, convnext_tiny, "
                      "efficientnet_b0, vit_b_16, swin_t, deeplabv3_resnet50, "
                      "lraspp_mobilenet_v3_large, unet, lstm or encoder)");
}

/// Replaces every 4-d parameter and buffer with a channels_last copy.
class ToChannelsLast final : public fp::nn::Visitor {
 protected:
  void on_tensor(std::string_view, fp::Tensor& tensor, fp::TensorKind,
                 const fp::nn::BufferOptions&) override {
    if (tensor.is_defined() && tensor.dim() == 4)
      tensor = fp::aten::clone(tensor, fp::MemoryFormat::ChannelsLast);
  }
  void on_child(std::string_view, fp::nn::ModuleBase& module) override { module.visit(*this); }
};

int run(const vision_bench::Arguments& arguments) {
  // What a serving program does once (fp::keep_freed_memory says why):
  // libtorch's and Python's loaders get the same heap behaviour from the
  // buffers they free; zero-copy loading frees none. FP_BENCH_DEFAULT_MALLOC
  // set leaves glibc's defaults, to measure the difference.
  if (std::getenv("FP_BENCH_DEFAULT_MALLOC") == nullptr) fp::keep_freed_memory();
  const auto load_start = std::chrono::steady_clock::now();
  const Model model = make_model(arguments.model);
  model.module->load_state_dict(fp::safetensors::MappedFile::open(arguments.weights));
  fp::Tensor input = fp::safetensors::load(arguments.input).at("input");
  if (arguments.channels_last) {
    if (input.dim() != 4)
      throw fp::Error(fp::ErrorCode::BadArgument, "--channels-last: the vision models only");
    ToChannelsLast to_channels_last;
    model.module->visit(to_channels_last);
    input = fp::aten::clone(input, fp::MemoryFormat::ChannelsLast);
  }
  if (arguments.optimize) fp::nn::optimize_for_inference(*model.module);
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
          .count();

  fp::Tensor output;
  const vision_bench::Times times =
      vision_bench::time_forward([&] { output = model.forward(input); }, arguments);
  fp::safetensors::save({{"output", output.contiguous()}}, arguments.output);
  vision_bench::write_result(
      arguments, arguments.optimize ? "fp_opt" : "fp", fp::get_num_threads(),
      static_cast<long long>(input.size(vision_bench::batch_dim(arguments.model))), load_ms, times);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return vision_bench::run_main(
      argc, argv, [](const vision_bench::Arguments& arguments) { return run(arguments); });
}
