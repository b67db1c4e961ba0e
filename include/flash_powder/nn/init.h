// How layers get their initial values, and how to skip them.
//
// A layer made as in Python (`fp::nn::Linear(384, 1536)`) starts with
// PyTorch's random initial values, drawn from one fp::Generator shared by all
// layers (fp::nn::manual_seed). A model whose weights are loaded next need not
// draw them at all:
//
//     fp::nn::Model model = fp::nn::skip_init<Model>(config);     // empty, then
//     model.load_state_dict(file);                                 // copied in
//
//     std::optional<Model> model;
//     {
//       fp::nn::DefaultDevice on_meta(fp::Device::meta());         // no memory at all
//       model.emplace(config);
//     }
//     model->load_state_dict(file, {.assign = true});              // takes the file's tensors
//
// Python: `torch.nn.utils.skip_init`, `with torch.device("meta")`,
// `torch.manual_seed`. https://pytorch.org/docs/stable/generated/torch.nn.utils.skip_init.html
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "flash_powder/base/device.h"

namespace fp::nn {

/// While one exists on this thread, layers made on this thread allocate
/// their parameters and buffers without drawing initial values: their
/// contents are unspecified (like torch.empty) until loaded. Nests.
class SkipInit {
 public:
  SkipInit();
  ~SkipInit();
  SkipInit(const SkipInit&) = delete;
  SkipInit& operator=(const SkipInit&) = delete;

  /// Whether layers made now on this thread skip their initial values.
  static bool active();
};

/// `M(args...)` made without initial values (inside a SkipInit), like
/// Python's `torch.nn.utils.skip_init(M, *args)`. Load its weights next.
template <class M, class... Args>
M skip_init(Args&&... args) {
  const SkipInit skip;
  return M(std::forward<Args>(args)...);
}

/// While one exists on this thread, layers made on this thread without a
/// `.device` option are placed on `device`, like Python's `with
/// torch.device(device):`. On Device::meta() they hold no memory and draw
/// nothing: load them with `load_state_dict(source, {.assign = true})`.
/// Nests; the innermost wins.
class DefaultDevice {
 public:
  /// Layers made on this thread while this lives are placed on `device`.
  explicit DefaultDevice(Device device);
  ~DefaultDevice();
  DefaultDevice(const DefaultDevice&) = delete;
  DefaultDevice& operator=(const DefaultDevice&) = delete;

  /// The innermost DefaultDevice's device on this thread, if any.
  static std::optional<Device> current();

 private:
  std::optional<Device> previous_;
};

/// Restarts the generator that layers draw their initial values from, like
/// Python's `torch.manual_seed(seed)` before building a model. At start it
/// is seeded with fp::Generator::default_seed (torch's default seed). Ops
/// that sample at run time without a generator of their own (fractional max
/// pooling) draw from it too, as Python's draw from torch's global generator.
void manual_seed(std::uint64_t seed);

}  // namespace fp::nn
