// docs/guide/vision.md, compiled and run (tools/check_docs.py keeps the
// page's blocks and these in step).
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/image/image.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/vision.h>

#include <cstdint>
#include <vector>

#include "docs/docs_test.h"
#include "nn/helpers.h"
#include "support/truth.h"

namespace guide_vision {

using fp_test::truth;

/*
#|PYTHON_GLOBAL
from truth_helpers import python_torchvision
torchvision = python_torchvision()
import torchvision.transforms.functional as TF
from truth_helpers import g, values, filled

def photo():
    return (torch.arange(3 * 60 * 80) % 251).to(torch.uint8).reshape(3, 60, 80)
*/

/// The picture "cat.png" holds: values Python makes too (photo() above).
fp::Tensor cat_picture() {
  return fp::arange(3 * 60 * 80).remainder(251).to(fp::DType::U8).reshape({3, 60, 80});
}

TEST(GuideVision, MasksToObjects) {
  /*
  #|PYTHON
  import numpy as np
  from skimage import measure, morphology
  scores = torch.randn(1, 21, 60, 80, generator=torch.Generator().manual_seed(3)) + 3 * (
      torch.arange(21)[:, None, None] == 15) * (torch.arange(80)[None, None, :] > 30)
  person = (scores.argmax(1, keepdim=True) == torch.arange(21)[:, None, None])[0, 15].numpy()
  person = morphology.binary_opening(person, morphology.disk(2))
  person = morphology.remove_small_objects(person, max_size=100)
  labels, count = measure.label(person, return_num=True)
  */
  fp::Generator generator(3);
  const fp::Tensor class_15 = fp::arange(21).eq(15).reshape({21, 1, 1});
  const fp::Tensor right = fp::arange(80).gt(30).reshape({1, 1, 80});
  const fp::Tensor scores = fp::randn({1, 21, 60, 80}, generator) + class_15 * right * 3;
  const fp::Tensor picture = cat_picture();

  namespace masks = fp::vision::masks;
  // scores: a segmenter's net(batch).out, [N, 21, H, W]
  fp::Tensor person = masks::class_masks(scores).i(0, 15).to_owned();  // bool [H, W]
  person = masks::binary_opening(person, masks::disk(2));              // smooth the edges
  person = masks::remove_small_objects(person, 100);  // drop specks of 100 pixels or fewer
  masks::Labels people = masks::label(person);        // 1..count, 0 the background
  masks::ComponentStats stats = masks::component_stats(people);
  fp::Tensor boxed = fp::image::draw_bounding_boxes(picture, stats.boxes);
  masks::RotatedBox tilted =
      masks::min_area_rect(fp::aten::flip(fp::aten::nonzero(people.labels.eq(1)), {1}));
  fp::Tensor outlined = fp::image::draw_polygons(picture, tilted.corners().unsqueeze(0));

  EXPECT_EQ(people.count, truth<std::int64_t>("count"));
  EXPECT_EQ(people.labels.flatten().to_vector<std::int64_t>(),
            truth<std::vector<std::int64_t>>("labels.flatten().tolist()"));
  EXPECT_EQ(stats.areas.sum().item<std::int64_t>(), person.sum().item<std::int64_t>());
  EXPECT_FALSE(boxed.is_equal(picture));
  EXPECT_FALSE(outlined.is_equal(picture));
  EXPECT_GT(tilted.area(), 0.0);
}

TEST(GuideVision, Classify) {
  const docs_test::InFolder folder;
  fp::safetensors::save(nn_test::filled(fp::vision::models::resnet18()), "resnet18.safetensors");
  fp::image::write_png(cat_picture(), "cat.png");

  auto net = fp::vision::models::resnet18();  // torchvision.models.resnet18()
  net.load_state_dict(fp::safetensors::MappedFile::open("resnet18.safetensors"));
  fp::Tensor photo = fp::image::read_image("cat.png", {.mode = fp::image::ImageReadMode::RGB});
  fp::Tensor x = fp::vision::transforms::image_classification(photo);  // weights.transforms()
  fp::Tensor probabilities = fp::functional::softmax(net(x.unsqueeze(0)), 1);  // [1, 1000]
  auto [score, label] = probabilities.max(1);  // the class and its probability

  /*
  #|PYTHON
  net = filled(torchvision.models.resnet18())
  x = torchvision.models.ResNet18_Weights.IMAGENET1K_V1.transforms()(photo())
  with torch.no_grad():
      probabilities = torch.softmax(net(x.unsqueeze(0)), 1)
  score, label = probabilities.max(1)
  */
  EXPECT_EQ(nn_test::values(x), truth<std::vector<float>>("values(x)"));
  EXPECT_EQ(nn_test::values(probabilities), truth<std::vector<float>>("values(probabilities)"));
  EXPECT_EQ(label.to_vector<int64_t>(), truth<std::vector<int64_t>>("values(label)"));
  EXPECT_EQ(score.to_vector<float>(), truth<std::vector<float>>("values(score)"));
}

TEST(GuideVision, StepByStep) {
  const fp::Tensor photo = cat_picture();

  namespace T = fp::vision::transforms;
  fp::Tensor resized =
      T::resize_shorter_side(photo, 256);  // F.resize(photo, [256]): shorter side 256
  fp::Tensor cropped = T::center_crop(resized, 224, 224);  // F.center_crop(resized, [224, 224])
  fp::Tensor scaled =
      cropped.to(fp::DType::F32) / 255.0;  // F.convert_image_dtype(cropped, torch.float)
  fp::Tensor input = T::normalize(scaled, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225});

  /*
  #|PYTHON
  resized = TF.resize(photo(), [256], antialias=True)
  cropped = TF.center_crop(resized, [224, 224])
  scaled = TF.convert_image_dtype(cropped, torch.float32)
  normalized = TF.normalize(scaled, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
  preset = torchvision.models.ResNet18_Weights.IMAGENET1K_V1.transforms()(photo())
  */
  EXPECT_EQ(resized.to_vector<int64_t>(), truth<std::vector<int64_t>>("values(resized)"));
  EXPECT_EQ(cropped.to_vector<int64_t>(), truth<std::vector<int64_t>>("values(cropped)"));
  EXPECT_EQ(nn_test::values(input), truth<std::vector<float>>("values(normalized)"));
  EXPECT_EQ(nn_test::values(input), truth<std::vector<float>>("values(preset)"));
}

TEST(GuideVision, DetectionOps) {
  fp::Tensor boxes =
      fp::tensor({{0.f, 0.f, 10.f, 10.f}, {1.f, 1.f, 11.f, 11.f}, {20.f, 20.f, 30.f, 30.f}});
  fp::Tensor scores = fp::tensor({0.7f, 0.9f, 0.8f});
  fp::Tensor keep = fp::vision::ops::nms(boxes, scores, 0.5);  // int64 indices, best score first
  fp::Tensor iou = fp::vision::ops::box_iou(boxes, boxes);     // [3, 3]
  fp::Tensor centred = fp::vision::ops::box_convert(boxes, "xyxy", "cxcywh");
  fp::Tensor features = fp::randn({1, 8, 32, 32});
  fp::Tensor rois = fp::tensor({{0.f, 4.f, 4.f, 40.f, 28.f}});  // (image, x1, y1, x2, y2)
  fp::Tensor pooled =
      fp::vision::ops::roi_align(features, rois, 7, {.spatial_scale = 0.5, .sampling_ratio = 2});

  /*
  #|PYTHON
  import torchvision.ops.boxes as box_ops
  boxes = torch.tensor([[0., 0., 10., 10.], [1., 1., 11., 11.], [20., 20., 30., 30.]])
  scores = torch.tensor([0.7, 0.9, 0.8])
  iou = box_ops.box_iou(boxes, boxes)
  keep = []  # greedy NMS over torchvision's box_iou (the scores are distinct)
  for i in scores.argsort(descending=True).tolist():
      if all(iou[i, k] <= 0.5 for k in keep):
          keep.append(i)
  centred = box_ops.box_convert(boxes, "xyxy", "cxcywh")
  features = torch.randn(1, 8, 32, 32)
  rois = torch.tensor([[0., 4., 4., 40., 28.]])
  */
  EXPECT_EQ(keep.to_vector<int64_t>(), truth<std::vector<int64_t>>("keep"));
  EXPECT_EQ(nn_test::values(iou), truth<std::vector<float>>("values(iou)"));
  EXPECT_EQ(nn_test::values(centred), truth<std::vector<float>>("values(centred)"));
  EXPECT_EQ(nn_test::shape(pooled),
            (std::vector<int64_t>{1, 8, 7, 7}));  // #PYTHON [len(rois), len(features[0]), 7, 7]
}

TEST(GuideVision, DetectionModels) {
  namespace detection = fp::vision::models::detection;
  detection::FasterRCNN detector =
      detection::fasterrcnn_mobilenet_v3_large_320_fpn({.num_classes = 3});
  std::vector<fp::Tensor> images{fp::rand({3, 120, 160}), fp::rand({3, 90, 70})};
  std::vector<detection::Detection> found = detector(images);
  fp::Tensor boxes = found[1].boxes;  // [N, 4] float (x1, y1, x2, y2), in the second image's pixels
  fp::Tensor labels = found[1].labels;  // [N] int64
  fp::Tensor scores = found[1].scores;  // [N], best first

  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(boxes.size(0), scores.size(0));
  EXPECT_EQ(boxes.size(1), 4);
  EXPECT_EQ(labels.dtype(), fp::DType::I64);
}

TEST(GuideVision, PartsOfAModel) {
  auto resnet = fp::vision::models::resnet18();
  fp::Tensor x = fp::randn({1, 3, 64, 64});
  fp::Tensor stem = resnet.maxpool(fp::functional::relu(resnet.bn1(resnet.conv1(x))));
  fp::Tensor c3 = resnet.layer2(resnet.layer1(stem));  // [1, 128, 8, 8]: a feature map
  fp::nn::SkipInit no_values;                          // weights come next: draw none
  auto vgg = fp::vision::models::vgg11();
  fp::nn::Sequential trunk = vgg.features.slice(0, 11);  // vgg.features[0:11]

  /*
  #|PYTHON
  resnet = torchvision.models.resnet18()
  x = torch.randn(1, 3, 64, 64)
  with torch.no_grad():
      c3 = resnet.layer2(resnet.layer1(resnet.maxpool(resnet.relu(resnet.bn1(resnet.conv1(x))))))
  trunk = torchvision.models.vgg.make_layers(torchvision.models.vgg.cfgs["A"])[0:11]
  */
  EXPECT_EQ(nn_test::shape(c3), (std::vector<int64_t>{1, 128, 8, 8}));  // #PYTHON list(c3.shape)
  EXPECT_EQ(
      nn_test::keys(trunk),
      (std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias", "6.weight", "6.bias",
                                "8.weight", "8.bias"}));  // #PYTHON list(trunk.state_dict())
}

}  // namespace guide_vision
