// fp::nn::Module: registration through visit(), state dicts with PyTorch's
// keys, loading (copy and assign, strict and not, every error at once),
// named_* and to().
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <unistd.h>

#include <filesystem>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from truth_helpers import g

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 10)
        self.register_buffer("scale", torch.ones(1))
        self.register_buffer("cache", torch.zeros(2), persistent=False)
        self.gain = nn.Parameter(torch.ones(1))
*/

namespace {

using fp_test::truth;

using nn_test::keys;
using nn_test::randn;
using nn_test::shape;
using nn_test::values;

/// The Python `Net` above. Its visit() lists the gain after the buffers and
/// children, and the state dict still puts parameters first, as PyTorch does.
struct Net : fp::nn::Module {
  fp::nn::Conv2d conv{3, 8, 3, {.padding = 1}};
  fp::nn::BatchNorm2d bn{8};
  fp::nn::Linear head{8, 10};
  fp::Tensor scale = fp::ones({1});
  fp::Tensor cache = fp::zeros({2});
  fp::Tensor gain = fp::ones({1});

  void visit(fp::nn::Visitor& v) override {
    v.child("conv", conv);
    v.child("bn", bn);
    v.child("head", head);
    v.buffer("scale", scale);
    v.buffer("cache", cache, {.persistent = false});
    v.parameter("gain", gain);
  }
};

std::vector<std::string> names(const auto& named) {
  std::vector<std::string> result;
  for (const auto& [name, item] : named)
    result.push_back(name);
  return result;
}

TEST(Module, StateDictKeysArePyTorchs) {
  Net net;
  EXPECT_EQ(keys(net),
            (std::vector<std::string>{"gain", "scale", "conv.weight", "conv.bias", "bn.weight",
                                      "bn.bias", "bn.running_mean", "bn.running_var",
                                      "bn.num_batches_tracked", "head.weight",
                                      "head.bias"}));  // #PYTHON list(Net().state_dict().keys())
  const fp::StateDictView dict = net.state_dict();
  EXPECT_EQ(dict.kind("gain"), fp::TensorKind::Parameter);
  EXPECT_EQ(dict.kind("bn.running_var"), fp::TensorKind::Buffer);
  EXPECT_EQ(fp::name(dict.kind("scale")), "buffer");
  EXPECT_FALSE(dict.contains("cache"));
  EXPECT_EQ(dict.at("bn.num_batches_tracked").dtype(), fp::DType::I64);
}

TEST(Module, NamedMembersArePyTorchs) {
  const Net net;
  EXPECT_EQ(names(net.named_parameters()),
            (std::vector<std::string>{
                "gain", "conv.weight", "conv.bias", "bn.weight", "bn.bias", "head.weight",
                "head.bias"}));  // #PYTHON [n for n, _ in Net().named_parameters()]
  EXPECT_EQ(names(net.named_buffers()),
            (std::vector<std::string>{
                "scale", "cache", "bn.running_mean", "bn.running_var",
                "bn.num_batches_tracked"}));  // #PYTHON [n for n, _ in Net().named_buffers()]
  EXPECT_EQ(names(net.named_parameters(false)),
            (std::vector<std::string>{
                "gain"}));  // #PYTHON [n for n, _ in Net().named_parameters(recurse=False)]
  EXPECT_EQ(names(net.named_children()),
            (std::vector<std::string>{"conv", "bn",
                                      "head"}));  // #PYTHON [n for n, _ in Net().named_children()]
  EXPECT_EQ(names(net.named_modules()),
            (std::vector<std::string>{"", "conv", "bn",
                                      "head"}));  // #PYTHON [n for n, _ in Net().named_modules()]
  EXPECT_EQ(net.parameters().size(), 7u);         // #PYTHON len(list(Net().parameters()))
  EXPECT_EQ(net.named_modules()[1].second, &net.conv);
  EXPECT_EQ(net.type_name(), "Net");
  EXPECT_EQ(net.conv.type_name(), "Conv2d");
}

TEST(Module, StateDictViewsShareTheModulesMemory) {
  Net net;
  const fp::StateDictView dict = net.state_dict();
  EXPECT_EQ(dict.at("head.weight").data<float>().data(), net.head.weight.data<float>().data());
  const fp::StateDict copy = dict.to_owned();
  EXPECT_EQ(values(copy.at("head.weight")), values(net.head.weight));
}

TEST(Module, LoadCopiesValuesAndKeepsTheModulesDtype) {
  Net net;
  fp::StateDict source = nn_test::filled(net);
  // A float64 checkpoint loads into the float32 module, converted.
  source.at("head.bias") =
      fp::dispatch<fp::Tensor>("aten::_to_copy", "", source.at("head.bias"), fp::DType::F64);
  const fp::nn::LoadResult result = net.load_state_dict(source);
  EXPECT_TRUE(result.missing_keys.empty());
  EXPECT_TRUE(result.unexpected_keys.empty());
  EXPECT_EQ(values(net.conv.weight), values(source.at("conv.weight")));
  EXPECT_EQ(net.head.bias.dtype(), fp::DType::F32);
  EXPECT_EQ(values(net.head.bias), values(source.at("head.bias")));
  // The module holds copies: changing the source afterwards changes nothing.
  source.at("gain").data_mut<float>()[0] = 42.f;
  EXPECT_NE(net.gain.item<float>(), 42.f);
}

TEST(Module, LoadWithAssignTakesTheTensors) {
  Net net;
  fp::StateDict source = nn_test::filled(net);
  source.at("head.bias") =
      fp::dispatch<fp::Tensor>("aten::_to_copy", "", source.at("head.bias"), fp::DType::F64);
  net.load_state_dict(source, {.assign = true});
  EXPECT_EQ(net.head.bias.dtype(), fp::DType::F64);
  EXPECT_EQ(values(net.head.bias), values(source.at("head.bias")));
}

TEST(Module, LoadsAnotherModulesStateDictAndItsOwn) {
  Net a, b;
  a.load_state_dict(nn_test::filled(a, 7));
  b.load_state_dict(a.state_dict());
  EXPECT_EQ(values(b.head.weight), values(a.head.weight));
  EXPECT_EQ(values(b.bn.running_var), values(a.bn.running_var));
  b.load_state_dict(b.state_dict());
  EXPECT_EQ(values(b.conv.bias), values(a.conv.bias));
}

TEST(Module, NumBatchesTrackedMayBeMissingLikePyTorch) {
  /*
  #|PYTHON
  net = Net()
  d = {k: v for k, v in net.state_dict().items() if not k.endswith("num_batches_tracked")}
  result = net.load_state_dict(d)
  */
  Net net;
  fp::StateDict source;
  for (const auto& [key, view] : net.state_dict()) {
    if (!key.ends_with("num_batches_tracked")) source.insert(key, view.to_owned());
  }
  const fp::nn::LoadResult result = net.load_state_dict(source);
  EXPECT_EQ(result.missing_keys.size(), 0u);  // #PYTHON len(result.missing_keys)
}

TEST(Module, ReportsEveryProblemInOneErrorLikePyTorch) {
  /*
  #|PYTHON
  net = Net()
  d = dict(net.state_dict())
  del d["conv.bias"], d["head.weight"]
  d["bn.running_mean"] = torch.zeros(5)
  d["head.bias"] = torch.zeros(3, 10)
  d["extra.weight"] = torch.zeros(1)
  d["conv.other"] = torch.zeros(1)
  d["cache"] = torch.zeros(2)
  try:
      net.load_state_dict(d)
  except RuntimeError as e:
      message = str(e)
  */
  Net net;
  const fp::StateDict before = net.state_dict().to_owned();
  fp::StateDict source;
  for (const auto& [key, tensor] : before) {
    if (key == "conv.bias" || key == "head.weight") continue;
    if (key == "bn.running_mean") {
      source.insert(key, fp::zeros({5}));
    } else if (key == "head.bias") {
      source.insert(key, fp::zeros({3, 10}));
    } else {
      source.insert(key, fp::full_like(tensor, 3));
    }
  }
  source.insert("extra.weight", fp::zeros({1}));
  source.insert("conv.other", fp::zeros({1}));
  source.insert("cache", fp::zeros({2}));
  const std::string message =
      "Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: \"conv.bias\", "
      "\"head.weight\". \n\tUnexpected key(s) in state_dict: \"extra.weight\", \"cache\", "
      "\"conv.other\". \n\tsize mismatch for bn.running_mean: copying a param with shape "
      "torch.Size([5]) from checkpoint, the shape in current model is torch.Size([8]).\n\tsize "
      "mismatch for head.bias: copying a param with shape torch.Size([3, 10]) from checkpoint, the "
      "shape in current model is torch.Size([10]).";  // #PYTHON message
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "fp::nn::Module::load_state_dict: " + message,
                        net.load_state_dict(source));
  // Nothing was loaded.
  EXPECT_EQ(values(net.conv.weight), values(before.at("conv.weight")));
}

TEST(Module, NonStrictReturnsTheKeysButStillRefusesWrongShapes) {
  /*
  #|PYTHON
  net = Net()
  d = dict(net.state_dict())
  del d["conv.bias"]
  d["extra.weight"] = torch.zeros(1)
  result = net.load_state_dict(d, strict=False)
  d["gain"] = torch.zeros(2)
  try:
      net.load_state_dict(d, strict=False)
  except RuntimeError as e:
      message = str(e)
  */
  Net net;
  fp::StateDict source;
  for (const auto& [key, view] : net.state_dict()) {
    if (key != "conv.bias") source.insert(key, fp::full_like(view, 2));
  }
  source.insert("extra.weight", fp::zeros({1}));
  const fp::nn::LoadResult result = net.load_state_dict(source, {.strict = false});
  EXPECT_EQ(result.missing_keys,
            (std::vector<std::string>{"conv.bias"}));  // #PYTHON result.missing_keys
  EXPECT_EQ(result.unexpected_keys,
            (std::vector<std::string>{"extra.weight"}));  // #PYTHON result.unexpected_keys
  EXPECT_EQ(net.conv.weight.data<float>()[0], 2.f);
  source.at("gain") = fp::zeros({2});
  const std::string message =
      "Error(s) in loading state_dict for Net:\n\tsize mismatch for gain: copying a param "
      "with shape torch.Size([2]) from checkpoint, the shape in current model is "
      "torch.Size([1]).";  // #PYTHON message
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "fp::nn::Module::load_state_dict: " + message,
                        net.load_state_dict(source, {.strict = false}));
}

TEST(Module, AChangeOfKindIsADtypeMismatch) {
  fp::nn::Linear linear(2, 3);
  fp::StateDict source;
  source.insert("weight", fp::zeros({3, 2}, fp::DType::I64));
  source.insert("bias", fp::zeros({3}, fp::DType::F16));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::nn::Module::load_state_dict: Error(s) in loading state_dict for Linear:\n\tdtype "
      "mismatch for weight: copying a param with dtype torch.int64 from checkpoint, the dtype in "
      "current model is torch.float32.",
      linear.load_state_dict(source));
}

TEST(Module, OneElementTensorsLoadIntoScalarsLikePyTorch) {
  fp::nn::BatchNorm1d norm(2);
  fp::StateDict source = nn_test::filled(norm);
  source.at("num_batches_tracked") = fp::tensor(std::vector<int64_t>{5});
  norm.load_state_dict(source);
  EXPECT_EQ(norm.num_batches_tracked.dim(), 0);
  EXPECT_EQ(norm.num_batches_tracked.item<int64_t>(), 5);
}

TEST(Module, ToConvertsFloatingPointTensorsOnly) {
  Net net;
  net.to(fp::DType::F64);
  EXPECT_EQ(net.conv.weight.dtype(), fp::DType::F64);
  EXPECT_EQ(net.bn.running_mean.dtype(), fp::DType::F64);
  EXPECT_EQ(net.cache.dtype(), fp::DType::F64);
  EXPECT_EQ(net.bn.num_batches_tracked.dtype(), fp::DType::I64);
  const fp::Tensor x =
      fp::dispatch<fp::Tensor>("aten::_to_copy", "", randn({1, 3, 4, 4}, 1), fp::DType::F64);
  EXPECT_EQ(net.conv(x).dtype(), fp::DType::F64);
  net.to(fp::Device::cpu());
  EXPECT_EQ(net.head.weight.device(), fp::Device::cpu());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                  "dtype=torch.int32",
                  net.to(fp::DType::I32));
}

TEST(Module, LayersTakeDtypeAndDevice) {
  const fp::nn::Linear linear(2, 3, {.device = fp::Device::cpu(), .dtype = fp::DType::F64});
  EXPECT_EQ(linear.weight.dtype(), fp::DType::F64);
  EXPECT_EQ(linear.bias.dtype(), fp::DType::F64);
  const fp::nn::BatchNorm2d norm(4, {.dtype = fp::DType::F16});
  EXPECT_EQ(norm.running_var.dtype(), fp::DType::F16);
  EXPECT_EQ(norm.num_batches_tracked.dtype(), fp::DType::I64);
}

TEST(Module, BadRegistrationAndMissingForwardSaySo) {
  struct Twice : fp::nn::Module {
    fp::Tensor a = fp::ones({1});
    void visit(fp::nn::Visitor& v) override {
      v.parameter("a", a);
      v.buffer("a", a);
    }
  };
  struct Dotted : fp::nn::Module {
    fp::Tensor a = fp::ones({1});
    void visit(fp::nn::Visitor& v) override { v.parameter("a.b", a); }
  };
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn: Twice::visit: the name \"a\" is used twice",
                  Twice().state_dict());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn: Dotted::visit: the name \"a.b\" contains \".\"", Dotted().state_dict());
  const Twice twice;
  const fp::Tensor x = fp::ones({1});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn: Module [Twice] is missing the required \"forward\" function", twice(x));
}

}  // namespace

namespace {

/// A module of the README's kind (docs/guide/nn.md), with weights from a StateDict.
struct ReadmeNet : fp::nn::Module {
  fp::nn::Conv2d conv{3, 8, 3, {.padding = 1}};
  fp::nn::BatchNorm2d bn{8};
  fp::nn::Linear head{8, 10};

  void visit(fp::nn::Visitor& v) override {
    v.child("conv", conv);
    v.child("bn", bn);
    v.child("head", head);
  }
  fp::Tensor forward(fp::TensorView x) const override {
    const fp::Tensor h = fp::functional::relu(bn(conv(x)));
    return head(fp::functional::adaptive_avg_pool2d(h, 1).flatten(1));
  }
};

TEST(Module, ReadmeExampleLoadsFromSafetensors) {
  /*
  #|PYTHON
  class ReadmeNet(torch.nn.Module):
      def __init__(self):
          super().__init__()
          self.conv = nn.Conv2d(3, 8, 3, padding=1)
          self.bn = nn.BatchNorm2d(8)
          self.head = nn.Linear(8, 10)
      def forward(self, x):
          a = torch.nn.functional.relu(self.bn(self.conv(x)))
          return self.head(torch.nn.functional.adaptive_avg_pool2d(a, 1).flatten(1))
  net = ReadmeNet()
  sd = net.state_dict()
  for i, k in enumerate(sd):
      if sd[k].dtype.is_floating_point:
          sd[k] = torch.rand(sd[k].shape, generator=g(100 + i)) if k.endswith("running_var") else torch.randn(sd[k].shape, generator=g(100 + i))
  net.load_state_dict(sd)
  net.eval()
  x = torch.randn(2, 3, 5, 5, generator=g(1))
  with torch.no_grad():
      y = net(x)
  */
  ReadmeNet source;
  source.load_state_dict(nn_test::filled(source));
  const auto path = std::filesystem::temp_directory_path() /
                    ("fp_nn_readme_" + std::to_string(::getpid()) + ".safetensors");
  fp::safetensors::save(source.state_dict().entries(), path);
  ReadmeNet net;
  net.load_state_dict(fp::safetensors::MappedFile::open(path));
  std::filesystem::remove(path);
  const fp::Tensor images = randn({2, 3, 5, 5}, 1);
  EXPECT_PYTHON(values(net(images)), truth<std::vector<float>>("y.flatten().tolist()"));
}

}  // namespace
