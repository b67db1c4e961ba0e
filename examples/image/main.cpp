// Reads a photo, resizes it, writes a grid of variants and a segmentation
// overlay with boxes: fp::image end to end.
//
//   fp_image PHOTO OUT_DIR    writes OUT_DIR/grid.png and OUT_DIR/overlay.png
#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/image/image.h>

#include <cstdio>
#include <filesystem>

namespace image = fp::image;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fp_image PHOTO OUT_DIR\n");
    return 2;
  }
  const std::filesystem::path out = argv[2];
  std::filesystem::create_directories(out);
  try {
    // [3, H, W] uint8, EXIF orientation applied; half size, antialiased like torchvision.
    const fp::Tensor photo = image::read_image(argv[1], {.mode = image::ImageReadMode::RGB});
    const fp::Tensor small = image::resize(photo, photo.size(1) / 2, photo.size(2) / 2);

    // A 2 x 2 grid: the photo, mirrored, gray (as RGB) and its inverse, as floats in [0, 1].
    const fp::Tensor x = image::floatify(small);
    const fp::Tensor gray =
        x.mean(std::vector<std::int64_t>{0}, true).expand({3, x.size(1), x.size(2)}).to_owned();
    const fp::Tensor variants = fp::stack({x, fp::aten::flip(x, {2}), gray, 1.0 - x});
    image::save_image(variants.reshape({2, 2, 3, x.size(1), x.size(2)}), out / "grid.png",
                      {.padding = 4, .pad_value = 1.0});

    // Masks for the bright and the dark parts, and two boxes, drawn on the photo.
    const fp::Tensor luma = small.to(fp::DType::F32).mean(std::vector<std::int64_t>{0});
    const fp::Tensor masks = fp::stack({luma.gt(170), luma.lt(60)});
    const std::int64_t h = small.size(1), w = small.size(2);
    const fp::Tensor boxes =
        fp::tensor({{w / 8, h / 8, w / 2, h / 2}, {w / 2, h / 3, w - w / 8, h - h / 8}});
    const fp::Tensor overlay = image::draw_bounding_boxes(
        image::draw_segmentation_masks(small, masks,
                                       {.alpha = 0.5, .colors = {{255, 64, 64}, {64, 128, 255}}}),
        boxes, {.colors = {{255, 255, 0}}, .width = 3});
    image::write_png(overlay, out / "overlay.png");

    for (const char* name : {"grid.png", "overlay.png"}) {
      const fp::Tensor back = image::read_image(out / name);
      std::printf("%s: %lld x %lld, %lld channels\n", (out / name).c_str(),
                  static_cast<long long>(back.size(2)), static_cast<long long>(back.size(1)),
                  static_cast<long long>(back.size(0)));
    }
  } catch (const fp::Error& error) {
    std::fprintf(stderr, "fp_image: %s\n", error.what());
    return 1;
  }
  return 0;
}
