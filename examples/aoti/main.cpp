// Runs an exported PyTorch model from C++ and checks it against Python.
//
//     fp_aoti_example classifier.pt2 reference.safetensors
//
// classifier.pt2 comes from tools/export_aoti.py (any module works; this one
// is classifier.py), reference.safetensors from python_side.py: the input
// batch and the outputs of Python's own loader and of eager PyTorch.
// run.sh does all three steps.
#include <flash_powder/aoti/aoti.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: fp_aoti_example PACKAGE.pt2 REFERENCE.safetensors\n";
    return 2;
  }
  try {
    const auto model = fp::aoti::Package::open(argv[1]);
    std::cout << "inputs:";
    for (const auto& input : model.signature()->inputs) {
      std::cout << " " << input.name << " " << fp::name(input.dtype) << "[";
      for (std::size_t d = 0; d < input.sizes.size(); ++d) {
        const auto& dim = input.sizes[d];
        std::cout << (d ? ", " : "")
                  << (dim.is_static() ? std::to_string(dim.min)
                                      : dim.symbol + " in " + std::to_string(dim.min) + ".." +
                                            std::to_string(dim.max));
      }
      std::cout << "]";
    }
    std::cout << "\nconstants: " << model.constants().size() << ", e.g. "
              << model.constants().front().original_fqn << "\n";

    const auto reference = fp::safetensors::load(argv[2]);
    const fp::Tensor logits = model(reference.at("input")).at(0);

    const auto ours = logits.to_vector<float>();
    const auto python = reference.at("output").to_vector<float>();
    const auto eager = reference.at("eager").to_vector<float>();
    const bool same = ours.size() == python.size() &&
                      std::memcmp(ours.data(), python.data(), ours.size() * sizeof(float)) == 0;
    double eager_diff = 0;
    for (std::size_t i = 0; i < ours.size() && i < eager.size(); ++i)
      eager_diff = std::max(eager_diff, std::abs(static_cast<double>(ours[i]) - eager[i]));

    std::cout << "c++:    class per image " << logits.argmax(1) << "\n";
    std::cout << "same bits as Python's loader: " << (same ? "yes" : "NO") << "\n";
    std::cout << "max |c++ - eager PyTorch| = " << eager_diff << "\n";
    // Inductor reorders float arithmetic; 1e-4 on O(1) logits is a real bug.
    return same && eager_diff <= 1e-4 ? 0 : 1;
  } catch (const fp::Error& error) {
    std::cerr << error.what() << "\n";
    return 1;
  }
}
