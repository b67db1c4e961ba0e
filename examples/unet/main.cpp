// The U-Net demo: segmentation of synthetic shapes (examples/shapes) with a
// network trained in PyTorch (examples/unet/unet.py), run from C++.
//
//     fp_unet [--optimize] WEIGHTS TEST_DIR OUT_DIR [REFERENCE.safetensors]
//
// Reads TEST_DIR/image_NN.png and the true class masks TEST_DIR/mask_NN.png
// with fp::image, runs the U-Net on the batch, post-processes (softmax,
// argmax, one mask per class where that class is both the most likely and
// more than 50% likely), writes OUT_DIR/overlay_NN.png (the masks drawn over
// the picture) and OUT_DIR/grid.png (a row per picture: input | truth |
// prediction), both enlarged for viewing, prints each class's IoU against the truth and, given
// PyTorch's logits for the same pictures, the largest difference from them.
//
// Eager, the logits are PyTorch's bit for bit. --optimize runs the network
// through fp::nn::optimize_for_inference first (BatchNorm folded into the
// convolutions, oneDNN's fused kernels): faster on the CPU, and the logits
// then differ from PyTorch's eager ones by rounding (a relative 1e-5 at most
// is accepted).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <flash_powder/flash_powder.h>
#include <flash_powder/image/convert.h>
#include <flash_powder/image/draw.h>
#include <flash_powder/image/io.h>
#include <flash_powder/safetensors/safetensors.h>

#include "shapes/test_set.h"
#include "unet.h"

namespace fs = std::filesystem;

namespace {

constexpr double kThreshold = 0.5;
/// The pictures are small; the written ones are enlarged this many times.
constexpr std::int64_t kZoom = 4;

/// The predicted masks: a class where it is the argmax and its probability exceeds the threshold.
fp::Tensor predicted_masks(const fp::Tensor& logits) {
  const fp::Tensor probabilities = fp::functional::softmax(logits, 0);
  const fp::Tensor argmax_masks = shapes::masks_of(probabilities.argmax(0));
  return argmax_masks & probabilities.i(fp::slice(1, fp::end)).gt(kThreshold);
}

void compare_with_pytorch(const fp::Tensor& logits, const fs::path& reference, bool optimized) {
  const fp::StateDict python = fp::safetensors::load(reference);
  const fp::Tensor& expected = python.at("logits");
  const double delta = (logits - expected).abs().max().item<double>();
  if (optimized) {
    const double scale = expected.abs().max().item<double>();
    std::printf(
        "C++ optimised vs PyTorch eager on the same pictures: max |delta| of the logits = "
        "%g (relative %g)\n",
        delta, delta / scale);
    if (delta > 1e-5 * scale)
      throw fp::Error(fp::ErrorCode::BadArgument,
                      "the logits differ from PyTorch's by more "
                      "than rounding");
    return;
  }
  std::printf("C++ vs PyTorch on the same pictures: max |delta| of the logits = %g (%s)\n", delta,
              logits.is_equal(expected) ? "bit for bit identical" : "DIFFERENT");
  if (!logits.is_equal(expected))
    throw fp::Error(fp::ErrorCode::BadArgument, "the logits differ from PyTorch's");
}

}  // namespace

int main(int argc, char** argv) {
  const bool optimize = argc > 1 && std::string(argv[1]) == "--optimize";
  if (optimize) {
    --argc;
    ++argv;
  }
  if (argc < 4) {
    std::cerr << "usage: fp_unet [--optimize] WEIGHTS TEST_DIR OUT_DIR [REFERENCE.safetensors]\n";
    return 2;
  }
  try {
    unet::UNet net;
    net.load_state_dict(fp::safetensors::MappedFile::open(argv[1]));
    if (optimize) {
      const fp::nn::OptimizeReport report = fp::nn::optimize_for_inference(net);
      std::printf("optimised for inference: %zu layers fused, %zu left as they were\n",
                  report.fused.size(), report.unchanged.size());
    }
    const fs::path out = argv[3];
    fs::create_directories(out);

    const shapes::TestSet test = shapes::read_test_set(argv[2]);
    const fp::Tensor logits = net(fp::image::floatify(fp::stack(test.pictures)));

    shapes::IoU iou;
    std::vector<fp::Tensor> rows;
    for (std::size_t i = 0; i < test.paths.size(); ++i) {
      const fp::Tensor& picture = test.pictures[i];
      const fp::Tensor masks = predicted_masks(logits.i(static_cast<std::int64_t>(i)).to_owned());
      iou.count(masks, test.truths[i]);
      fp::image::write_png(shapes::painted(picture, masks, 0.6, kZoom),
                           out / ("overlay_" + test.number(i) + ".png"));
      rows.push_back(fp::stack({shapes::zoomed(picture, kZoom),
                                shapes::painted(picture, test.truths[i], 1.0, kZoom),
                                shapes::painted(picture, masks, 1.0, kZoom)}));
    }
    fp::image::save_image(fp::image::floatify(fp::stack(rows)), out / "grid.png",
                          {.pad_value = 1.0});
    std::printf("U-Net on %zu pictures (%lld x %lld), C++:\n", test.paths.size(),
                static_cast<long long>(test.pictures[0].size(1)),
                static_cast<long long>(test.pictures[0].size(2)));
    iou.print();
    std::printf("wrote %s/overlay_*.png (%zu pictures) and %s\n", out.c_str(), test.paths.size(),
                (out / "grid.png").c_str());
    if (argc > 4) compare_with_pytorch(logits, argv[4], optimize);
  } catch (const std::exception& error) {  // fp::Error, or the file system's (OUT_DIR)
    std::cerr << "fp_unet: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
