// docs/guide/porting.md, compiled and run (tools/check_docs.py keeps the
// page's blocks and these in step). The real case: a VGG cut into stages
// whose first layer is ReLU(inplace=True), against PyTorch running the
// Python the page shows, with the same weights.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/vision.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "docs/docs_test.h"
#include "nn/helpers.h"
#include "support/truth.h"

namespace guide_porting {

using fp_test::truth;

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
from truth_helpers import python_torchvision
torchvision = python_torchvision()
from truth_helpers import g, values, filled

class Stages(torch.nn.Module):
    """vgg11's features cut after each convolution, before its ReLU."""

    def __init__(self, features):
        super().__init__()
        self.stage1 = features[0:1]  # Conv2d(3, 64)
        self.stage2 = features[1:4]  # ReLU(inplace=True), MaxPool2d, Conv2d(64, 128)
        self.stage3 = features[4:7]  # ReLU(inplace=True), MaxPool2d, Conv2d(128, 256)

    def forward(self, x):
        h1 = self.stage1(x)
        h2 = self.stage2(h1)  # its first layer rewrites h1 in place: h1 is now relu(h1)
        h3 = self.stage3(h2)  # and h2 is now relu(h2)
        return h1, h2, h3
*/

TEST(GuidePorting, AnotherNameForATensor) {
  fp::Tensor y = fp::tensor({-1.f, 2.f});
  fp::Tensor skip = y;        // Python: skip = y (one tensor there, a copy here)
  y += 1;                     // Python: changes skip too
  fp::Tensor sum = y + skip;  // Python: [0., 6.]; here [-1., 5.]

  /*
  #|PYTHON
  y = torch.tensor([-1., 2.])
  skip = y
  y += 1
  python_sum = y + skip
  */
  EXPECT_EQ(sum.to_vector<float>(), (std::vector<float>{-1.f, 5.f}));
  EXPECT_NE(sum.to_vector<float>(), (std::vector<float>{0.0, 6.0}));  // #PYTHON values(python_sum)
}

TEST(GuidePorting, WhatThePythonMeans) {
  fp::Tensor y = fp::tensor({-1.f, 2.f});
  y += 1;
  const fp::Tensor& skip = y;  // what Python's `skip` is: y itself, after the +=
  fp::Tensor sum = y + skip;   // [0., 6.], as in Python

  /*
  #|PYTHON
  y = torch.tensor([-1., 2.])
  skip = y
  y += 1
  python_sum = y + skip
  */
  EXPECT_EQ(sum.to_vector<float>(), (std::vector<float>{0.0, 6.0}));  // #PYTHON values(python_sum)
}

struct Stages : fp::nn::ModuleBase {
  fp::nn::Sequential stage1, stage2, stage3;
  explicit Stages(const fp::nn::Sequential& features)
      : stage1(features.slice(0, 1)), stage2(features.slice(1, 4)), stage3(features.slice(4, 7)) {}
  FP_MODULE(stage1, stage2, stage3)  // keys "stage2.3.weight", ...: the slices keep their names

  std::tuple<fp::Tensor, fp::Tensor, fp::Tensor> forward(fp::TensorView x) const {
    fp::Tensor h1 = stage1(x);
    fp::Tensor h2 = stage2(h1);
    fp::Tensor h3 = stage3(h2);
    // stage2 and stage3 begin with ReLU(inplace=True): in PyTorch they also
    // rewrote h1 and h2. flash_powder never aliases, so apply it here.
    return {fp::functional::relu(h1), fp::functional::relu(h2), std::move(h3)};
  }
};

/// The line-for-line transcription, which the page warns about.
struct NaiveStages : fp::nn::ModuleBase {
  fp::nn::Sequential stage1, stage2, stage3;
  explicit NaiveStages(const fp::nn::Sequential& features)
      : stage1(features.slice(0, 1)), stage2(features.slice(1, 4)), stage3(features.slice(4, 7)) {}
  FP_MODULE(stage1, stage2, stage3)

  std::tuple<fp::Tensor, fp::Tensor, fp::Tensor> forward(fp::TensorView x) const {
    fp::Tensor h1 = stage1(x);
    fp::Tensor h2 = stage2(h1);
    fp::Tensor h3 = stage3(h2);
    return {std::move(h1), std::move(h2), std::move(h3)};
  }
};

/// vgg11.safetensors as tools/convert_torchvision_weights.py writes it, with
/// the features drawn as Python's filled() draws them (seed 100 + the key's
/// index) and the classifier, which the stages leave out, zero.
void write_vgg11_weights() {
  const fp::nn::SkipInit skip;
  const auto vgg = fp::vision::models::vgg11();
  fp::StateDict weights;
  std::uint64_t index = 0;
  for (const auto& [key, view] : vgg.state_dict()) {
    weights.insert(key, key.starts_with("features.")
                            ? nn_test::randn(nn_test::shape(view), 100 + index)
                            : fp::zeros(nn_test::shape(view)));
    ++index;
  }
  fp::safetensors::save(weights, "vgg11.safetensors");
}

TEST(GuidePorting, InplaceLayersAfterAReturnedTensor) {
  const docs_test::InFolder folder;
  write_vgg11_weights();
  const fp::Tensor images = nn_test::randn({2, 3, 32, 32}, 1);

  fp::nn::SkipInit no_values;  // the weights come next
  auto vgg = fp::vision::models::vgg11();
  vgg.load_state_dict(fp::safetensors::MappedFile::open("vgg11.safetensors"));
  Stages stages(vgg.features);         // slices copy modules, not weights (lazy copies)
  auto [h1, h2, h3] = stages(images);  // PyTorch's three tensors, bit for bit

  /*
  #|PYTHON
  features = filled(torchvision.models.vgg.make_layers(torchvision.models.vgg.cfgs["A"]))
  stages = Stages(features)
  with torch.no_grad():
      h1, h2, h3 = stages(torch.randn(2, 3, 32, 32, generator=g(1)))
  keys = list(stages.state_dict())
  */
  EXPECT_PYTHON(nn_test::values(h1), truth<std::vector<float>>("values(h1)"));
  EXPECT_PYTHON(nn_test::values(h2), truth<std::vector<float>>("values(h2)"));
  EXPECT_PYTHON(nn_test::values(h3), truth<std::vector<float>>("values(h3)"));
  EXPECT_EQ(nn_test::keys(stages),
            (std::vector<std::string>{"stage1.0.weight", "stage1.0.bias", "stage2.3.weight",
                                      "stage2.3.bias", "stage3.6.weight",
                                      "stage3.6.bias"}));  // #PYTHON keys

  // The transcription without the ReLUs is silently off.
  const NaiveStages naive(vgg.features);
  const auto [n1, n2, n3] = naive(images);
  EXPECT_GT(nn_test::max_abs_diff(n1, truth<std::vector<float>>("values(h1)")), 0.1);
  EXPECT_GT(nn_test::max_abs_diff(n2, truth<std::vector<float>>("values(h2)")), 0.1);
  EXPECT_TRUE(n3.is_equal(h3));
}

TEST(GuidePorting, GradMode) {
  const fp::Tensor x = nn_test::randn({3, 2, 4}, 1);

  bool flag = fp::is_grad_enabled();  // libtorch's flag for this thread: true, as in Python
  fp::nn::LSTM lstm(4, 8);
  auto [out, state] = lstm(x);  // computed as under torch.no_grad() all the same
  bool inside = false;
  {
    fp::EnableGrad grad;             // with torch.enable_grad(): ops see grad mode on
    inside = fp::is_grad_enabled();  // true: for programs that record autograd graphs
  }
  EXPECT_TRUE(inside);

  lstm.load_state_dict(nn_test::filled(lstm));
  const auto [filled_out, filled_state] = lstm(x);
  /*
  #|PYTHON
  lstm = filled(torch.nn.LSTM(4, 8))
  with torch.no_grad():
      out, (h, c) = lstm(torch.randn(3, 2, 4, generator=g(1)))
  */
  EXPECT_TRUE(flag);
  EXPECT_TRUE(fp::is_grad_enabled());
  EXPECT_EQ(nn_test::shape(out), (std::vector<int64_t>{3, 2, 8}));  // #PYTHON list(out.shape)
  EXPECT_PYTHON(nn_test::values(filled_out), truth<std::vector<float>>("values(out)"));
  EXPECT_PYTHON(nn_test::values(std::get<1>(filled_state)), truth<std::vector<float>>("values(c)"));
}

struct Detections {  // a NamedTuple or dataclass in Python
  fp::Tensor boxes;
  fp::Tensor scores;
};

struct Detector : fp::nn::ModuleBase {
  fp::nn::Linear box_head{16, 4}, score_head{16, 1};
  FP_MODULE(box_head, score_head)
  Detections forward(fp::TensorView features) const {
    return {box_head(features), fp::functional::sigmoid(score_head(features))};
  }
};

struct Segmenter : fp::nn::ModuleBase {  // torchvision's segmentation models return a dict
  fp::nn::Conv2d classifier{8, 3, 1}, aux_classifier{8, 3, 1};
  FP_MODULE(classifier, aux_classifier)
  std::map<std::string, fp::Tensor> forward(fp::TensorView x) const {
    return {{"out", classifier(x)}, {"aux", aux_classifier(x)}};
  }
};

TEST(GuidePorting, ModuleOutputs) {
  const fp::Tensor features = nn_test::randn({2, 16}, 1);
  const fp::Tensor x = nn_test::randn({1, 8, 4, 4}, 2);

  Detector detector;
  Detections found = detector(features);      // found.boxes, found.scores
  auto [boxes, scores] = detector(features);  // or unpacked, like a tuple
  Segmenter segmenter;
  std::map<std::string, fp::Tensor> out = segmenter(x);  // out["out"], out["aux"]

  EXPECT_TRUE(found.boxes.is_equal(boxes));
  EXPECT_TRUE(found.scores.is_equal(scores));
  EXPECT_TRUE(scores.is_equal(fp::functional::sigmoid(detector.score_head(features))));
  EXPECT_EQ(nn_test::shape(out.at("out")), (std::vector<int64_t>{1, 3, 4, 4}));
  EXPECT_TRUE(out.at("aux").is_equal(segmenter.aux_classifier(x)));
  EXPECT_EQ(nn_test::keys(segmenter),
            (std::vector<std::string>{"classifier.weight", "classifier.bias",
                                      "aux_classifier.weight", "aux_classifier.bias"}));
}

}  // namespace guide_porting
