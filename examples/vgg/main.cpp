// torchvision's VGG-11 in C++: reads an image with fp::image, preprocesses it
// as torchvision's weights.transforms() does, runs the network and prints the
// top-5 classes. Given the Python side's output (vgg.py), it checks that
// both the preprocessed input and the logits are bit for bit PyTorch's.
//
//     fp_vgg WEIGHTS IMAGE [PYTHON_OUTPUT.safetensors] [CATEGORIES]
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/image/io.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/vision.h>

namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream file(path);
  for (std::string line; std::getline(file, line);)
    lines.push_back(line);
  return lines;
}

/// The largest |a - b|, or -1 when the shapes differ.
double max_abs_difference(const fp::Tensor& a, const fp::Tensor& b) {
  if (!std::ranges::equal(a.sizes(), b.sizes())) return -1;
  return (a - b).abs().max().item<double>();
}

void print_top5(const fp::Tensor& logits, const std::vector<std::string>& categories) {
  const fp::Tensor scores = fp::functional::softmax(logits, 1);
  const auto [top_scores, top_classes] = fp::aten::topk(scores, 5);
  std::cout << "C++:    top-5 classes ";
  for (std::int64_t k = 0; k < 5; ++k) {
    const auto index = top_classes.at<std::int64_t>({0, k});
    std::cout << (k ? ", " : "") << index;
    if (index < static_cast<std::int64_t>(categories.size())) std::cout << " " << categories[index];
    char score[32];
    std::snprintf(score, sizeof score, " (%.4f)", top_scores.at<float>({0, k}));
    std::cout << score;
  }
  std::cout << "\n";
}

/// Compares with the Python side's tensors; false unless every bit agrees.
bool same_as_python(const fp::Tensor& input, const fp::Tensor& logits, const std::string& path) {
  const fp::StateDict python = fp::safetensors::load(path);
  const double input_delta = max_abs_difference(input, python.at("input"));
  const double logits_delta = max_abs_difference(logits, python.at("logits"));
  const bool same = input.is_equal(python.at("input")) && logits.is_equal(python.at("logits"));
  std::cout << "C++ vs PyTorch: preprocessed input max |delta| = " << input_delta
            << ", logits max |delta| = " << logits_delta << "\n"
            << (same ? "identical to PyTorch, bit for bit\n" : "DIFFERENT from PyTorch\n");
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fp_vgg WEIGHTS IMAGE [PYTHON_OUTPUT.safetensors] [CATEGORIES]\n";
    return 2;
  }
  try {
    auto model = fp::vision::models::vgg11();
    model.load_state_dict(fp::safetensors::MappedFile::open(argv[1]));
    const fp::Tensor image =
        fp::image::read_image(argv[2], {.mode = fp::image::ImageReadMode::RGB});
    const fp::Tensor input =
        fp::vision::transforms::image_classification(image).unsqueeze(0).to_owned();
    const fp::Tensor logits = model(input);
    print_top5(logits, argc > 4 ? read_lines(argv[4]) : std::vector<std::string>{});
    if (argc > 3 && !same_as_python(input, logits, argv[3])) return 1;
  } catch (const fp::Error& error) {
    std::cerr << "fp_vgg: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
