// Modules as real models need them: forward of any return type (a tuple, a
// struct, a dict of tensors) called as module(x) with the failing module's
// path in errors; children(), modules(), named_modules(), get_submodule();
// Sequential and ModuleList sliced, taken apart and put together like
// Python's lists of modules.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <map>
#include <string>
#include <tuple>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from truth_helpers import g, values, filled
torch.set_grad_enabled(False)

class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 6), nn.ReLU())
        self.classifier = nn.Linear(6, 3)
        self.box = nn.Linear(6, 2)

    def forward(self, x):
        h = self.trunk(x)
        return self.classifier(h), self.box(h)

class Segmenter(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())
        self.classifier = nn.Conv2d(4, 5, 1)
        self.aux_classifier = nn.Conv2d(4, 5, 1)

    def forward(self, x):
        f = self.backbone(x)
        return {"out": self.classifier(f), "aux": self.aux_classifier(f)}
*/

namespace {

using fp_test::truth;

using nn_test::keys;
using nn_test::randn;
using nn_test::values;

/// A forward returning two tensors from one: the case the covariant-return
/// rule forbids for a class derived from fp::nn::Module.
struct TwoHeads : fp::nn::ModuleBase {
  fp::nn::Sequential trunk{fp::nn::Linear(4, 6), fp::nn::ReLU()};
  fp::nn::Linear classifier{6, 3};
  fp::nn::Linear box{6, 2};
  FP_MODULE(trunk, classifier, box)

  std::tuple<fp::Tensor, fp::Tensor> forward(fp::TensorView x) const {
    const fp::Tensor h = trunk(x);
    return {classifier(h), box(h)};
  }
};

/// torchvision's segmentation models return a dict.
struct Segmenter : fp::nn::ModuleBase {
  fp::nn::Sequential backbone{fp::nn::Conv2d(3, 4, 3, {.padding = 1}), fp::nn::ReLU(),
                              fp::nn::Conv2d(4, 4, 3, {.padding = 1}), fp::nn::ReLU()};
  fp::nn::Conv2d classifier{4, 5, 1};
  fp::nn::Conv2d aux_classifier{4, 5, 1};
  FP_MODULE(backbone, classifier, aux_classifier)

  std::map<std::string, fp::Tensor> forward(fp::TensorView x) const {
    const fp::Tensor f = backbone(x);
    return {{"out", classifier(f)}, {"aux", aux_classifier(f)}};
  }
};

/// A struct result.
struct Detection {
  fp::Tensor scores;
  fp::Tensor boxes;
};
struct Detector : fp::nn::ModuleBase {
  TwoHeads heads;
  FP_MODULE(heads)
  Detection forward(fp::TensorView x) const {
    auto [scores, boxes] = heads(x);
    return {std::move(scores), std::move(boxes)};
  }
};

TEST(ModuleBase, ForwardReturnsATuple) {
  /*
  #|PYTHON
  m = filled(TwoHeads())
  x = torch.randn(2, 4, generator=g(1))
  a, b = m(x)
  */
  TwoHeads m;
  EXPECT_EQ(keys(m), (std::vector<std::string>{
                         "trunk.0.weight", "trunk.0.bias", "classifier.weight", "classifier.bias",
                         "box.weight", "box.bias"}));  // #PYTHON list(m.state_dict().keys())
  m.load_state_dict(nn_test::filled(m));
  const fp::Tensor x = randn({2, 4}, 1);
  auto [a, b] = m(x);
  EXPECT_PYTHON(values(a), truth<std::vector<float>>("values(a)"));
  EXPECT_PYTHON(values(b), truth<std::vector<float>>("values(b)"));
  // ...and a struct, from a module holding that one.
  Detector detector;
  detector.load_state_dict(nn_test::filled(detector));
  const Detection found = detector(x);
  EXPECT_PYTHON(values(found.boxes), truth<std::vector<float>>("values(b)"));
}

TEST(ModuleBase, ForwardReturnsADictOfTensors) {
  /*
  #|PYTHON
  m = filled(Segmenter())
  x = torch.randn(1, 3, 5, 6, generator=g(2))
  y = m(x)
  */
  Segmenter m;
  m.load_state_dict(nn_test::filled(m));
  const fp::Tensor x = randn({1, 3, 5, 6}, 2);
  const std::map<std::string, fp::Tensor> y = m(x);
  EXPECT_PYTHON(values(y.at("out")), truth<std::vector<float>>("values(y['out'])"));
  EXPECT_PYTHON(values(y.at("aux")), truth<std::vector<float>>("values(y['aux'])"));
}

TEST(ModuleBase, ErrorsNameTheFailingModulesPath) {
  Segmenter m;
  const fp::Tensor wrong = randn({1, 2, 5, 6}, 3);
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "backbone.0: aten::conv2d", m(wrong));
  Detector detector;
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "heads.trunk.0: aten::linear",
                  detector(randn({2, 5}, 4)));
}

TEST(ModuleBase, ChildrenModulesAndSubmodulesArePythons) {
  /*
  #|PYTHON
  m = Segmenter()
  */
  Segmenter m;
  std::vector<std::string> names;
  for (const auto& [name, module] : m.named_modules())
    names.push_back(name);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "", "backbone", "backbone.0", "backbone.1", "backbone.2", "backbone.3",
                "classifier", "aux_classifier"}));  // #PYTHON [n for n, _ in m.named_modules()]
  EXPECT_EQ(m.children().size(), 3u);               // #PYTHON len(list(m.children()))
  EXPECT_EQ(m.modules().size(), 8u);                // #PYTHON len(list(m.modules()))
  EXPECT_EQ(&m.get_submodule("backbone.2"), &m.backbone[2]);
  EXPECT_EQ(m.get_submodule<fp::nn::Conv2d>("backbone.2").out_channels, 4);
  EXPECT_EQ(&m.get_submodule(""), &m);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Module::get_submodule: Sequential at \"backbone\" has no attribute `7`",
                  m.get_submodule("backbone.7"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Module::get_submodule: \"backbone.1\" is a ReLU, not a Conv2d",
                  m.get_submodule<fp::nn::Conv2d>("backbone.1"));
}

TEST(Sequential, SliceTakeInsertAndExtendLikePython) {
  /*
  #|PYTHON
  seq = filled(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 4), nn.Tanh(),
                             nn.Linear(4, 2)))
  x = torch.randn(2, 3, generator=g(5))
  head = seq[0:3]
  tail = seq[-2:]
  popped = nn.Sequential(*list(seq.children()))
  popped.pop(1)
  popped.insert(0, nn.Identity())
  y_head = head(x)
  */
  fp::nn::Sequential seq(fp::nn::Linear(3, 4), fp::nn::ReLU(), fp::nn::Linear(4, 4), fp::nn::Tanh(),
                         fp::nn::Linear(4, 2));
  seq.load_state_dict(nn_test::filled(seq));
  const fp::Tensor x = randn({2, 3}, 5);

  const fp::nn::Sequential head = seq.slice(0, 3);
  EXPECT_EQ(keys(head),
            (std::vector<std::string>{"0.weight", "0.bias", "2.weight",
                                      "2.bias"}));  // #PYTHON list(head.state_dict().keys())
  EXPECT_PYTHON(values(head(x)), truth<std::vector<float>>("values(y_head)"));
  const fp::nn::Sequential tail = seq.slice(-2, 1000);
  EXPECT_EQ(tail.keys(), (std::vector<std::string>{"3", "4"}));  // #PYTHON list(tail._modules)
  // A slice copies: the original keeps its modules.
  EXPECT_EQ(seq.size(), 5u);

  fp::nn::Sequential popped = seq.clone();
  std::unique_ptr<fp::nn::Module> relu = popped.take(1);
  EXPECT_EQ(relu->type_name(), "ReLU");
  popped.insert(0, fp::nn::Identity());
  EXPECT_EQ(keys(popped),
            (std::vector<std::string>{"1.weight", "1.bias", "2.weight", "2.bias", "4.weight",
                                      "4.bias"}));  // #PYTHON list(popped.state_dict().keys())
  EXPECT_EQ(popped[0].type_name(), "Identity");

  // nn.Sequential(*list(m.children())[:k]): modules moved into a new container.
  fp::nn::Sequential trunk;
  for (int i = 0; i < 3; ++i)
    trunk.push(seq.take(0));
  EXPECT_EQ(seq.size(), 2u);
  EXPECT_PYTHON(values(trunk(x)), truth<std::vector<float>>("values(y_head)"));
  trunk.extend(std::move(seq));
  EXPECT_EQ(trunk.size(), 5u);
  EXPECT_EQ(trunk.keys(), (std::vector<std::string>{"0", "1", "2", "3", "4"}));

  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Sequential: index 5 is out of range for 5 modules", trunk.take(5));
  fp::nn::Sequential boxed;
  boxed.push(std::make_unique<fp::nn::ReLU>());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Sequential: module 0 (ReLU) cannot be copied", boxed.slice(0, 1));
}

TEST(ModuleList, HoldsAnyModuleAndSlices) {
  /*
  #|PYTHON
  layers = nn.ModuleList([nn.LSTM(3, 4), nn.Linear(4, 2), nn.GRU(2, 2)])
  part = layers[1:]
  */
  fp::nn::ModuleList layers;
  layers.push(fp::nn::LSTM(3, 4)).push(fp::nn::Linear(4, 2)).push(fp::nn::GRU(2, 2));
  const fp::nn::ModuleList part = layers.slice(1, 3);
  EXPECT_EQ(keys(part),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight_ih_l0", "1.weight_hh_l0",
                                      "1.bias_ih_l0",
                                      "1.bias_hh_l0"}));  // #PYTHON list(part.state_dict().keys())
  std::unique_ptr<fp::nn::ModuleBase> lstm = layers.take(0);
  EXPECT_EQ(lstm->type_name(), "LSTM");
  EXPECT_EQ(layers.at<fp::nn::GRU>(1).hidden_size, 2);
}

}  // namespace
