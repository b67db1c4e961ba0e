// The U-Net demo: segmentation of synthetic shapes (examples/unet/unet.py)
// with a network trained in PyTorch, run from C++.
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
#include <algorithm>
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

#include "unet.h"

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kClasses = {"background", "disc", "square", "triangle"};
/// Colours of disc, square and triangle.
const std::vector<fp::image::Color> kPalette = {{230, 25, 75}, {60, 200, 75}, {40, 120, 255}};
constexpr double kThreshold = 0.5;
/// The pictures are small; the written ones are enlarged this many times.
constexpr std::int64_t kZoom = 4;

std::vector<fs::path> pictures_in(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("image_") && name.ends_with(".png")) found.push_back(entry.path());
  }
  std::ranges::sort(found);
  if (found.empty())
    throw fp::Error(fp::ErrorCode::BadArgument, "no image_*.png in " + dir.string());
  return found;
}

fs::path mask_of(const fs::path& picture) {
  std::string name = picture.filename().string();
  return picture.parent_path() / name.replace(0, 5, "mask");
}

/// [C, H, W] class masks (disc, square, triangle) of a [H, W] class map.
fp::Tensor masks_of(const fp::Tensor& classes) {
  std::vector<fp::Tensor> masks;
  for (std::int64_t c = 1; c < static_cast<std::int64_t>(kClasses.size()); ++c)
    masks.push_back(classes.eq(c));
  return fp::stack(masks);
}

/// The predicted masks: a class where it is the argmax and its probability exceeds the threshold.
fp::Tensor predicted_masks(const fp::Tensor& logits) {
  const fp::Tensor probabilities = fp::functional::softmax(logits, 0);
  const fp::Tensor argmax_masks = masks_of(probabilities.argmax(0));
  return argmax_masks & probabilities.i(fp::slice(1, fp::end)).gt(kThreshold);
}

/// A [C, H, W] uint8 or bool tensor enlarged kZoom times (nearest neighbour).
fp::Tensor zoomed(const fp::Tensor& image) {
  const bool is_mask = image.dtype() == fp::DType::Bool;
  const fp::Tensor large = fp::image::resize(
      is_mask ? image.to(fp::DType::U8) : image, image.size(1) * kZoom, image.size(2) * kZoom,
      {.interpolation = fp::image::Interpolation::Nearest, .antialias = false});
  return is_mask ? large.to(fp::DType::Bool) : large;
}

/// The picture with masks painted over it at `alpha`, enlarged for viewing.
fp::Tensor painted(const fp::Tensor& picture, const fp::Tensor& masks, double alpha) {
  return fp::image::draw_segmentation_masks(zoomed(picture), zoomed(masks),
                                            {.alpha = alpha, .colors = kPalette});
}

struct Counts {
  std::vector<std::int64_t> intersection = std::vector<std::int64_t>(3, 0);
  std::vector<std::int64_t> united = std::vector<std::int64_t>(3, 0);
};

void count(Counts& counts, const fp::Tensor& predicted, const fp::Tensor& truth) {
  for (std::int64_t c = 0; c < 3; ++c) {
    const fp::Tensor p = predicted.i(c).to_owned(), t = truth.i(c).to_owned();
    counts.intersection[c] += (p & t).sum().item<std::int64_t>();
    counts.united[c] += (p | t).sum().item<std::int64_t>();
  }
}

void print_iou(const Counts& counts) {
  double total = 0;
  int present = 0;
  for (std::size_t c = 0; c < 3; ++c) {
    if (counts.united[c] == 0) {  // neither in the truth nor predicted
      std::printf("  IoU %-9s n/a (absent)\n", kClasses[c + 1].c_str());
      continue;
    }
    const double iou = double(counts.intersection[c]) / double(counts.united[c]);
    total += iou;
    ++present;
    std::printf("  IoU %-9s %.3f\n", kClasses[c + 1].c_str(), iou);
  }
  if (present) std::printf("  mean IoU      %.3f\n", total / present);
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

    std::vector<fp::Tensor> pictures, truths;
    const auto paths = pictures_in(argv[2]);
    for (const auto& path : paths) {
      pictures.push_back(fp::image::read_image(path, {.mode = fp::image::ImageReadMode::RGB}));
      const fp::Tensor classes = fp::image::read_image(mask_of(path)).i(0).to_owned();
      truths.push_back(masks_of(classes.to(fp::DType::I64)));
    }
    const fp::Tensor logits = net(fp::image::floatify(fp::stack(pictures)));

    Counts counts;
    std::vector<fp::Tensor> rows;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const fp::Tensor masks = predicted_masks(logits.i(static_cast<std::int64_t>(i)).to_owned());
      count(counts, masks, truths[i]);
      const fs::path overlay = out / ("overlay_" + paths[i].filename().string().substr(6));
      fp::image::write_png(painted(pictures[i], masks, 0.6), overlay);
      rows.push_back(fp::stack({zoomed(pictures[i]), painted(pictures[i], truths[i], 1.0),
                                painted(pictures[i], masks, 1.0)}));
    }
    fp::image::save_image(fp::image::floatify(fp::stack(rows)), out / "grid.png",
                          {.pad_value = 1.0});
    std::printf("U-Net on %zu pictures (%lld x %lld), C++:\n", paths.size(),
                static_cast<long long>(pictures[0].size(1)),
                static_cast<long long>(pictures[0].size(2)));
    print_iou(counts);
    std::printf("wrote %s/overlay_*.png (%zu pictures) and %s\n", out.c_str(), paths.size(),
                (out / "grid.png").c_str());
    if (argc > 4) compare_with_pytorch(logits, argv[4], optimize);
  } catch (const fp::Error& error) {
    std::cerr << "fp_unet: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
