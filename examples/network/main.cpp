// The whole job in a few lines: build a network, load PyTorch's weights from
// safetensors without renaming anything, run it, and compare with PyTorch.
//
//     fp_network checkpoint.safetensors
//
// make_checkpoint.py writes the checkpoint (scripts/demo does it for you).
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <iomanip>
#include <iostream>

namespace nn = fp::nn;

/// The same layers as make_checkpoint.py's torch.nn.Sequential.
nn::Sequential network() {
  return nn::Sequential(nn::Conv2d(3, 16, 3, {.padding = 1}), nn::BatchNorm2d(16), nn::ReLU(),
                        nn::MaxPool2d(2), nn::Conv2d(16, 32, 3, {.padding = 1}), nn::ReLU(),
                        nn::AdaptiveAvgPool2d(1), nn::Flatten(), nn::Linear(32, 10));
}

/// The entries of `file` under `prefix`, with the prefix removed: a state
/// dict for one module of a larger checkpoint.
fp::StateDict prefixed(const fp::safetensors::MappedFile& file, std::string_view prefix) {
  fp::StateDict state;
  for (const std::string& key : file.keys()) {
    if (key.starts_with(prefix)) state.insert(key.substr(prefix.size()), file.get(key).to_owned());
  }
  return state;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fp_network checkpoint.safetensors\n";
    return 2;
  }
  try {
    const auto file = fp::safetensors::MappedFile::open(argv[1]);
    nn::Sequential net = network();
    net.load_state_dict(prefixed(file, "net."));  // strict: every key must match

    const fp::TensorView input = file.get("input");
    const fp::Tensor logits = net(input);
    const fp::Tensor difference = (logits - file.get("expected")).abs().max();

    std::cout << "torch " << fp::torch_version().str() << ": logits[0] =" << std::fixed
              << std::setprecision(6);
    for (float value : logits.i(0).to_vector<float>())
      std::cout << ' ' << value;
    const float largest = difference.item<float>();
    std::cout << "\nlargest difference from PyTorch over " << logits.numel()
              << " logits: " << std::scientific << largest << '\n';
    // The demo doubles as an end-to-end test: it fails when C++ and PyTorch disagree.
    return largest <= 1e-6f ? 0 : 1;
  } catch (const fp::Error& error) {
    std::cerr << "fp_network: " << error.what() << '\n';
    return 1;
  }
}
