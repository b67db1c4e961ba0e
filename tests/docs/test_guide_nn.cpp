// docs/guide/nn.md, compiled and run (tools/check_docs.py keeps the page's
// blocks and these in step).
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "docs/docs_test.h"
#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

namespace guide_nn {

using fp_test::truth;

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
from truth_helpers import g, values, filled, message
*/

TEST(GuideNn, Layers) {
  fp::nn::Conv2d conv(3, 8, 3,
                      {.stride = 2, .padding = 1});  // nn.Conv2d(3, 8, 3, stride=2, padding=1)
  fp::nn::Linear linear(16, 4, {.bias = false});     // nn.Linear(16, 4, bias=False)
  fp::nn::LSTM lstm(10, 20, {.num_layers = 2, .batch_first = true});
  fp::Tensor y = conv(fp::randn({1, 3, 32, 32}));      // [1, 8, 16, 16]
  auto [output, state] = lstm(fp::randn({4, 5, 10}));  // output, (h_n, c_n), as in Python
  fp::Tensor w = conv.weight;                          // parameters are public members

  /*
  #|PYTHON
  conv = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
  linear = torch.nn.Linear(16, 4, bias=False)
  lstm = torch.nn.LSTM(10, 20, num_layers=2, batch_first=True)
  y = conv(torch.randn(1, 3, 32, 32))
  output, (h, c) = lstm(torch.randn(4, 5, 10))
  */
  EXPECT_EQ(nn_test::shape(y), (std::vector<int64_t>{1, 8, 16, 16}));  // #PYTHON list(y.shape)
  EXPECT_EQ(nn_test::shape(output),
            (std::vector<int64_t>{4, 5, 20}));  // #PYTHON list(output.shape)
  EXPECT_EQ(nn_test::shape(std::get<0>(state)),
            (std::vector<int64_t>{2, 4, 20}));  // #PYTHON list(h.shape)
  EXPECT_EQ(nn_test::keys(linear),
            (std::vector<std::string>{"weight"}));  // #PYTHON list(linear.state_dict())
  EXPECT_EQ(nn_test::keys(lstm),
            (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                      "weight_ih_l1", "weight_hh_l1", "bias_ih_l1",
                                      "bias_hh_l1"}));  // #PYTHON list(lstm.state_dict())
  EXPECT_TRUE(w.is_equal(conv.weight));
}

TEST(GuideNn, Functional) {
  namespace F = fp::functional;
  fp::Tensor x = fp::randn({1, 4, 8, 8});
  fp::Tensor w = fp::randn({6, 4, 3, 3});
  fp::Tensor h = F::conv2d(x, w, std::nullopt, {.padding = 1});  // F.conv2d(x, w, padding=1)
  fp::Tensor a = F::gelu(h);                                     // F.gelu(h)
  fp::Tensor p = F::max_pool2d(a, 2);                            // F.max_pool2d(a, 2)
  fp::Tensor s = F::interpolate(p, {.scale_factor = 2.0, .mode = "bilinear"});

  /*
  #|PYTHON
  x = torch.randn(1, 4, 8, 8, generator=g(1))
  w = torch.randn(6, 4, 3, 3, generator=g(2))
  h = F.conv2d(x, w, padding=1)
  a = F.gelu(h)
  p = F.max_pool2d(a, 2)
  s = F.interpolate(p, scale_factor=2.0, mode="bilinear")
  */
  EXPECT_EQ(nn_test::shape(s), (std::vector<int64_t>{1, 6, 8, 8}));  // #PYTHON list(s.shape)
  // The same calls on the inputs Python drew give Python's values.
  const fp::Tensor same = F::interpolate(
      F::max_pool2d(
          F::gelu(F::conv2d(nn_test::randn({1, 4, 8, 8}, 1), nn_test::randn({6, 4, 3, 3}, 2),
                            std::nullopt, {.padding = 1})),
          2),
      {.scale_factor = 2.0, .mode = "bilinear"});
  EXPECT_PYTHON(nn_test::values(same), truth<std::vector<float>>("values(s)"));
}

struct Block : fp::nn::Module {
  fp::nn::Conv2d conv;
  fp::nn::BatchNorm2d bn;
  Block(int64_t in, int64_t out) : conv(in, out, 3, {.padding = 1, .bias = false}), bn(out) {}
  FP_MODULE(conv, bn)  // keys "conv.weight", "bn.weight", "bn.running_mean", ...

  fp::Tensor forward(fp::TensorView x) const override { return fp::functional::relu(bn(conv(x))); }
};

struct Classifier : fp::nn::Module {
  fp::nn::Sequential features{Block(3, 16), fp::nn::MaxPool2d(2), Block(16, 32)};
  fp::nn::Linear head{32, 10};
  fp::Tensor temperature = fp::ones({1});  // a parameter of its own
  FP_MODULE(features, head, temperature)

  fp::Tensor forward(fp::TensorView x) const override {
    const fp::Tensor h = fp::functional::adaptive_avg_pool2d(features(x), 1).flatten(1);
    return head(h) / temperature;
  }
};

/*
#|PYTHON_GLOBAL
class Block(torch.nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.conv = torch.nn.Conv2d(i, o, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(o)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))

class Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(Block(3, 16), torch.nn.MaxPool2d(2), Block(16, 32))
        self.head = torch.nn.Linear(32, 10)
        self.temperature = torch.nn.Parameter(torch.ones(1))

    def forward(self, x):
        h = F.adaptive_avg_pool2d(self.features(x), 1).flatten(1)
        return self.head(h) / self.temperature
*/

TEST(GuideNn, ModulesOfYourOwn) {
  const docs_test::InFolder folder;
  fp::safetensors::save(nn_test::filled(Classifier{}), "classifier.safetensors");
  const fp::Tensor images = nn_test::randn({2, 3, 16, 16}, 1);
  testing::internal::CaptureStdout();

  Classifier model;
  model.load_state_dict(fp::safetensors::MappedFile::open("classifier.safetensors"));
  fp::Tensor logits = model(images);  // [N, 10]
  for (const auto& [name, tensor] : model.named_parameters())
    std::cout << name << '\n';
  // temperature, features.0.conv.weight, features.0.bn.weight, ..., head.bias

  const std::string printed = testing::internal::GetCapturedStdout();
  /*
  #|PYTHON
  model = filled(Classifier())
  with torch.no_grad():
      logits = model(torch.randn(2, 3, 16, 16, generator=g(1)))
  names = "".join(name + "\n" for name, _ in model.named_parameters())
  */
  EXPECT_PYTHON(nn_test::values(logits), truth<std::vector<float>>("values(logits)"));
  EXPECT_EQ(printed,
            "temperature\nfeatures.0.conv.weight\nfeatures.0.bn.weight\nfeatures.0.bn."
            "bias\nfeatures.2.conv.weight\nfeatures.2.bn.weight\nfeatures.2.bn.bias\nhead."
            "weight\nhead.bias\n");  // #PYTHON names
  EXPECT_EQ(nn_test::keys(model), truth<std::vector<std::string>>("list(model.state_dict())"));
}

struct Normalize : fp::nn::Module {
  fp::Tensor mean = fp::tensor({0.485f, 0.456f, 0.406f}).reshape({1, 3, 1, 1});
  fp::Tensor scale = fp::tensor({0.229f, 0.224f, 0.225f}).reshape({1, 3, 1, 1});
  void visit(fp::nn::Visitor& v) override {
    v.buffer("mean", mean);                           // register_buffer("mean", ...)
    v.buffer("scale", scale, {.persistent = false});  // persistent=False: not in the state dict
  }
  FP_MODULE_CALL()
  fp::Tensor forward(fp::TensorView x) const override { return (x - mean) / scale; }
};

TEST(GuideNn, Buffers) {
  Normalize normalize;
  const fp::Tensor x = nn_test::rand({1, 3, 2, 2}, 3);
  /*
  #|PYTHON
  x = torch.rand(1, 3, 2, 2, generator=g(3))
  mean = torch.tensor([0.485, 0.456, 0.406]).reshape(1, 3, 1, 1)
  scale = torch.tensor([0.229, 0.224, 0.225]).reshape(1, 3, 1, 1)
  y = (x - mean) / scale
  */
  EXPECT_PYTHON(nn_test::values(normalize(x)), truth<std::vector<float>>("values(y)"));
  EXPECT_EQ(nn_test::keys(normalize), (std::vector<std::string>{"mean"}));
  EXPECT_EQ(normalize.named_buffers().size(), 2u);
}

TEST(GuideNn, LoadingWeights) {
  testing::internal::CaptureStderr();
  fp::nn::Linear layer(4, 2);
  fp::StateDict wrong;
  wrong.insert("weight", fp::zeros({2, 3}));
  try {
    layer.load_state_dict(wrong);
  } catch (const fp::Error& error) {
    std::cerr << error.what() << '\n';
    // fp::nn::Module::load_state_dict: Error(s) in loading state_dict for Linear:
    //   Missing key(s) in state_dict: "bias".
    //   size mismatch for weight: copying a param with shape torch.Size([2, 3]) from checkpoint, ...
  }
  fp::StateDict partial;
  partial.insert("weight", fp::zeros({2, 4}));
  fp::nn::LoadResult result =
      layer.load_state_dict(partial, {.strict = false});  // result.missing_keys: {"bias"}
  const std::string printed = testing::internal::GetCapturedStderr();

  /*
  #|PYTHON
  layer = torch.nn.Linear(4, 2)
  said = message(lambda: layer.load_state_dict({"weight": torch.zeros(2, 3)}))
  missing = layer.load_state_dict({"weight": torch.zeros(2, 4)}, strict=False).missing_keys
  */
  const std::string python_said =
      "Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"bias\". "
      "\n\tsize mismatch for weight: copying a param with shape torch.Size([2, 3]) from "
      "checkpoint, the shape in current model is torch.Size([2, 4]).\n";  // #PYTHON said + "\n"
  EXPECT_EQ(printed, "fp::nn::Module::load_state_dict: " + python_said);
  EXPECT_EQ(result.missing_keys, (std::vector<std::string>{"bias"}));  // #PYTHON missing
  EXPECT_EQ(layer.weight.to_vector<float>(), std::vector<float>(8, 0.f));
}

TEST(GuideNn, Containers) {
  fp::nn::Sequential body(fp::nn::Conv2d(3, 8, 3), fp::nn::ReLU(), fp::nn::Conv2d(8, 8, 3));
  body.push(fp::nn::ReLU());                           // body.append(nn.ReLU())
  fp::nn::Sequential head = body.slice(0, 2);          // body[0:2]: keys "0", "1" kept
  fp::nn::Conv2d& first = body.at<fp::nn::Conv2d>(0);  // body[0], as its own type

  fp::nn::ModuleListOf<fp::nn::Linear> layers(3, 8, 8);  // [nn.Linear(8, 8) for _ in range(3)]
  fp::Tensor h = fp::randn({2, 8});
  for (const fp::nn::Linear& layer : layers)
    h = fp::functional::relu(layer(h));

  /*
  #|PYTHON
  body = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Conv2d(8, 8, 3))
  body.append(torch.nn.ReLU())
  head = body[0:2]
  layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(3)])
  */
  EXPECT_EQ(nn_test::keys(body),
            (std::vector<std::string>{"0.weight", "0.bias", "2.weight",
                                      "2.bias"}));  // #PYTHON list(body.state_dict())
  EXPECT_EQ(nn_test::keys(head),
            (std::vector<std::string>{"0.weight", "0.bias"}));  // #PYTHON list(head.state_dict())
  EXPECT_EQ(nn_test::keys(layers),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "2.weight",
                                      "2.bias"}));  // #PYTHON list(layers.state_dict())
  EXPECT_EQ(first.out_channels, 8);
  EXPECT_EQ(nn_test::shape(h), (std::vector<int64_t>{2, 8}));
}

struct TwoHeads : fp::nn::ModuleBase {
  fp::nn::Linear boxes{8, 4};
  fp::nn::Linear scores{8, 2};
  FP_MODULE(boxes, scores)
  std::tuple<fp::Tensor, fp::Tensor> forward(fp::TensorView x) const {
    return {boxes(x), scores(x)};
  }
};

struct Gate : fp::nn::Module {
  fp::nn::Linear value{8, 8};
  FP_MODULE(value)
  fp::Tensor forward(fp::TensorView x, fp::TensorView mask) const { return value(x) * mask; }
};

TEST(GuideNn, InputsAndOutputs) {
  TwoHeads heads;
  Gate gate;
  fp::Tensor x = fp::randn({2, 8});
  auto [boxes, scores] = heads(x);               // like Python's tuple unpacking
  fp::Tensor gated = gate(x, fp::ones({2, 8}));  // layer(x, mask)

  EXPECT_TRUE(boxes.is_equal(heads.boxes(x)));
  EXPECT_TRUE(scores.is_equal(heads.scores(x)));
  EXPECT_TRUE(gated.is_equal(gate.value(x)));
  EXPECT_EQ(nn_test::keys(heads), (std::vector<std::string>{"boxes.weight", "boxes.bias",
                                                            "scores.weight", "scores.bias"}));
}

TEST(GuideNn, InitialValues) {
  fp::nn::manual_seed(0);       // torch.manual_seed(0)
  fp::nn::Linear seeded(4, 2);  // == nn.Linear(4, 2) after it
  auto empty =
      fp::nn::skip_init<fp::nn::Linear>(4, 2);  // torch.nn.utils.skip_init(nn.Linear, 4, 2)
  std::optional<fp::nn::Linear> lazy;
  {
    fp::nn::DefaultDevice meta(fp::Device::meta());  // with torch.device("meta"):
    lazy.emplace(4, 2);                              // no memory, nothing drawn
  }
  lazy->load_state_dict(seeded.state_dict(), {.assign = true});
  lazy->to(fp::DType::F64);  // model.to(torch.float64); also devices

  /*
  #|PYTHON
  torch.manual_seed(0)
  seeded = torch.nn.Linear(4, 2)
  */
  EXPECT_EQ(nn_test::values(seeded.weight), truth<std::vector<float>>("values(seeded.weight)"));
  EXPECT_EQ(nn_test::values(seeded.bias), truth<std::vector<float>>("values(seeded.bias)"));
  EXPECT_EQ(nn_test::shape(empty.weight), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(lazy->weight.dtype(), fp::DType::F64);
  EXPECT_EQ(lazy->weight.device(), fp::Device::cpu());
  EXPECT_TRUE(lazy->weight.to(fp::DType::F32).is_equal(seeded.weight));
}

struct ResidualEnd : fp::nn::Module {
  fp::nn::Conv2d conv{8, 8, 3, {.padding = 1, .bias = false}};
  fp::nn::BatchNorm2d bn{8};
  FP_MODULE(conv, bn)
  std::vector<std::vector<std::string>> fusable_chains() const override { return {{"conv", "bn"}}; }
  fp::Tensor forward(fp::TensorView x) const override {
    return fp::nn::conv_add(conv, bn, x, x.to_owned(), /*relu=*/true);  // relu(bn(conv(x)) + x)
  }
};

/// max |a - b| / max |b|.
double relative_difference(const fp::Tensor& a, const fp::Tensor& b) {
  return (a - b).abs().max().item<double>() / b.abs().max().item<double>();
}

TEST(GuideNn, FasterInference) {
  std::ostringstream captured;
  std::streambuf* const saved = std::cout.rdbuf(captured.rdbuf());
  fp::nn::Sequential net(fp::nn::Conv2d(3, 8, 3, {.padding = 1}), fp::nn::BatchNorm2d(8),
                         fp::nn::ReLU(), fp::nn::Flatten(), fp::nn::Linear(8 * 32 * 32, 10));
  fp::nn::OptimizeReport report = fp::nn::optimize_for_inference(net);
  for (const std::string& line : report.fused)
    std::cout << line << '\n';
  // 0 + 1 + 2: Conv2d, BatchNorm2d folded in, ReLU fused (oneDNN, pre-packed weight)
  // 4: Linear (oneDNN)
  fp::Tensor logits = net(fp::randn({1, 3, 32, 32}));
  std::cout.rdbuf(saved);
  EXPECT_EQ(captured.str(),
            "0 + 1 + 2: Conv2d, BatchNorm2d folded in, ReLU fused (oneDNN, pre-packed weight)\n"
            "4: Linear (oneDNN)\n");
  EXPECT_EQ(nn_test::shape(logits), (std::vector<int64_t>{1, 10}));
  net.load_state_dict(nn_test::filled(net, 1, 0.1f));  // optimises it again
  const fp::Tensor x = nn_test::randn({1, 3, 32, 32}, 2);
  const fp::Tensor optimised = net(x);
  fp::nn::undo_optimize_for_inference(net);
  EXPECT_LT(relative_difference(optimised, net(x)), 1e-5);

  ResidualEnd block;
  block.load_state_dict(nn_test::filled(block, 3));
  const fp::Tensor y = nn_test::randn({2, 8, 6, 6}, 4);
  const fp::Tensor block_eager = block(y);
  EXPECT_EQ(fp::nn::optimize_for_inference(block).fused,
            std::vector<std::string>{
                "conv + bn: Conv2d, BatchNorm2d folded in (oneDNN, pre-packed weight)"});
  EXPECT_LT(relative_difference(block(y), block_eager), 1e-5);
}

}  // namespace guide_nn
