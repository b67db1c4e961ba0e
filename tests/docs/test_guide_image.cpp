// docs/guide/image.md, compiled and run (tools/check_docs.py keeps the page's
// blocks and these in step).
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/image/image.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "docs/docs_test.h"
#include "support/truth.h"

namespace guide_image {

using fp_test::truth;

/*
#|PYTHON_GLOBAL
from truth_helpers import python_torchvision
torchvision = python_torchvision()
import torchvision.transforms.v2.functional as TF
from truth_helpers import values

def photo():
    return (torch.arange(3 * 60 * 80) % 251).to(torch.uint8).reshape(3, 60, 80)
*/

/// The picture "cat.png" holds: values Python makes too (photo() above).
fp::Tensor cat_picture() {
  return fp::arange(3 * 60 * 80).remainder(251).to(fp::DType::U8).reshape({3, 60, 80});
}

TEST(GuideImage, Tour) {
  const docs_test::InFolder folder;
  fp::image::write_png(cat_picture(), "cat.png");

  namespace image = fp::image;
  fp::Tensor photo =
      image::read_image("cat.png", {.mode = image::ImageReadMode::RGB});  // [3, H, W] uint8
  fp::Tensor small = image::resize(photo, 32, 48);  // torchvision v2 resize, bit for bit
  fp::Tensor x = image::floatify(small);            // float32 in [0, 1]: to_dtype(scale=True)
  fp::Tensor overlay = image::draw_segmentation_masks(small, small.i(0).gt(128), {.alpha = 0.5});
  fp::Tensor boxed = image::draw_bounding_boxes(small, fp::tensor({{2.f, 2.f, 40.f, 20.f}}),
                                                {.colors = {{255, 0, 0}}});
  image::write_png(overlay, "overlay.png");  // atomic: temporary file + rename
  image::write_jpeg(boxed, "boxed.jpg", {.quality = 90});
  image::save_image(fp::stack({x, 1.0 - x}),
                    "row.png");                  // [B, C, H, W] as one row, like torchvision
  fp::Tensor bytes = image::encode_png(small);   // a file's bytes, as a uint8 tensor
  fp::Tensor back = image::decode_image(bytes);  // the format told by the bytes

  /*
  #|PYTHON
  photo = photo()
  small = TF.resize(photo, [32, 48], antialias=True)
  x = TF.to_dtype(small, torch.float32, scale=True)
  overlay = torchvision.utils.draw_segmentation_masks(small, small[0] > 128, alpha=0.5)
  boxed = torchvision.utils.draw_bounding_boxes(small, torch.tensor([[2., 2., 40., 20.]]), colors=[(255, 0, 0)])
  row = torchvision.utils.make_grid(torch.stack([x, 1.0 - x]))
  */
  EXPECT_TRUE(photo.is_equal(cat_picture()));
  EXPECT_EQ(small.to_vector<int64_t>(), truth<std::vector<int64_t>>("values(small)"));
  EXPECT_EQ(x.to_vector<float>(), truth<std::vector<float>>("values(x)"));
  EXPECT_EQ(overlay.to_vector<int64_t>(), truth<std::vector<int64_t>>("values(overlay)"));
  EXPECT_EQ(boxed.to_vector<int64_t>(), truth<std::vector<int64_t>>("values(boxed)"));
  EXPECT_TRUE(image::read_image("overlay.png").is_equal(overlay));
  EXPECT_EQ(image::read_image("boxed.jpg").sizes()[1], 32);
  EXPECT_EQ(image::read_image("row.png").sizes()[2], truth<int64_t>("row.shape[2]"));
  EXPECT_TRUE(back.is_equal(small));
}

}  // namespace guide_image
