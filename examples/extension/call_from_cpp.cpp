// Calls the fp_segmentation ops from C++ through fp::dispatch, as any ATen op
// is called: the op library registers them when it is loaded (this program
// links it), and libtorch's dispatcher runs their kernels.
#include <flash_powder/flash_powder.h>

#include <cstdint>
#include <iostream>
#include <tuple>

int main() try {
  // Three classes over a 2x4 image: class (column % 3) is clearly the most
  // likely, except in the last column, where all three are equally likely.
  fp::Tensor logits = fp::zeros({3, 2, 4});
  for (std::int64_t column = 0; column < 3; ++column) {
    logits.i_mut(column % 3, fp::all, column).fill_(5.0);
  }
  auto [labels, confidence] = fp::dispatch<std::tuple<fp::Tensor, fp::Tensor>>(
      "fp_segmentation::label_map", "", logits, 0.5, std::int64_t{255});
  std::cout << "labels:\n" << labels << "\nconfidence:\n" << confidence << "\n";
  const fp::Tensor expected = fp::tensor<std::int64_t>({{0, 1, 2, 255}, {0, 1, 2, 255}});
  if (!labels.is_equal(expected)) {
    std::cerr << "label_map gave the wrong labels\n";
    return 1;
  }

  // The in-place op writes the caller's tensor: no confidence reaches 0.99.
  fp::Tensor strict = labels.clone();
  fp::dispatch("fp_segmentation::mask_low_confidence_", "", strict, confidence, 0.99);
  std::cout << "labels at 0.99:\n" << strict << "\n";
  if (!strict.is_equal(fp::full_like(strict, 255)) || labels.i(0, 0).item<std::int64_t>() != 0) {
    std::cerr << "mask_low_confidence_ did not write its argument\n";
    return 1;
  }

  const fp::Tensor image = fp::full({3, 2, 4}, 200.0, fp::DType::U8);
  const fp::Tensor probs = fp::functional::softmax(logits, 0);
  const fp::Tensor blended =
      fp::dispatch<fp::Tensor>("fp_segmentation::overlay", "", image, probs, std::nullopt, 0.5);
  std::cout << "overlay: " << blended.sizes().size() << "-d " << fp::name(blended.dtype()) << "\n";

  // A kernel's error reaches the caller as an fp::Error with its message.
  try {
    fp::dispatch<fp::Tensor>("fp_segmentation::overlay", "", logits.i(0), probs);
    std::cerr << "overlay accepted a [2, 4] image\n";
    return 1;
  } catch (const fp::Error& error) {
    std::cout << "refused as expected: " << error.what() << "\n";
  }
  return 0;
} catch (const std::exception& error) {
  std::cerr << "error: " << error.what() << "\n";
  return 1;
}
