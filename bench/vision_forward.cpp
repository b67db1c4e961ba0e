// The forward of a vision model through flash_powder: fp::vision::models'
// vgg11 and resnet50, and examples/unet's U-Net (run_vision.sh compares it
// with libtorch's C++ API, eager PyTorch and torch.compile).
//
//   bench_vision_forward MODEL WEIGHTS INPUT OUTPUT RESULT [--warmup N] [--repetitions N]
//                        [--channels-last]
//
// See vision_timing.h for the arguments. --channels-last converts the input
// and every 4-d parameter and buffer (the convolutions' weights) to
// channels_last, as Python's `model.to(memory_format=torch.channels_last)`.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>

#include "unet.h"
#include "vision_timing.h"

namespace {

std::unique_ptr<fp::nn::Module> make_model(const std::string& name) {
  namespace models = fp::vision::models;
  if (name == "vgg11") return std::make_unique<models::VGG>(models::vgg11());
  if (name == "resnet50") return std::make_unique<models::ResNet>(models::resnet50());
  if (name == "unet") return std::make_unique<unet::UNet>();
  throw fp::Error(fp::ErrorCode::BadArgument,
                  "unknown model " + name + " (vgg11, resnet50 or unet)");
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
  const std::unique_ptr<fp::nn::Module> model = make_model(arguments.model);
  model->load_state_dict(fp::safetensors::MappedFile::open(arguments.weights));
  fp::Tensor input = fp::safetensors::load(arguments.input).at("input");
  if (arguments.channels_last) {
    ToChannelsLast to_channels_last;
    model->visit(to_channels_last);
    input = fp::aten::clone(input, fp::MemoryFormat::ChannelsLast);
  }
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
          .count();

  fp::Tensor output;
  const vision_bench::Times times =
      vision_bench::time_forward([&] { output = (*model)(input); }, arguments);
  fp::safetensors::save({{"output", output.contiguous()}}, arguments.output);
  vision_bench::write_result(arguments, "fp", fp::get_num_threads(),
                             static_cast<long long>(input.size(0)), load_ms, times);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return vision_bench::run_main(
      argc, argv, [](const vision_bench::Arguments& arguments) { return run(arguments); });
}
