// A composite network (conv -> BN -> ReLU -> pool -> linear) built in C++ and
// in Python from one state dict gives the same output; one module runs
// forward() on several threads at once.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <iostream>
#include <thread>

#include "nn/helpers.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from truth_helpers import g, values, filled

class Composite(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))

# Weights of a trained network's size (outputs of order 1), so that the
# absolute difference below means something.
scale = 0.125
net = filled(Composite(), scale=scale)
x = torch.randn(2, 3, 8, 8, generator=g(1))
with torch.no_grad():
    y = net(x)
*/

namespace {

using fp_test::truth;

using nn_test::randn;
using nn_test::values;

constexpr float kScale = 0.125f;  // the Python `scale`

/// The Python `Composite` above, written the way docs/guide/nn.md shows.
struct Composite : fp::nn::Module {
  fp::nn::Sequential features{fp::nn::Conv2d(3, 8, 3, {.padding = 1}), fp::nn::BatchNorm2d(8),
                              fp::nn::ReLU(), fp::nn::MaxPool2d(2)};
  fp::nn::Linear classifier{8 * 4 * 4, 10};

  void visit(fp::nn::Visitor& v) override {
    v.child("features", features);
    v.child("classifier", classifier);
  }
  fp::Tensor forward(fp::TensorView x) const override {
    const fp::Tensor h = features(x);
    return classifier(h.flatten(1));
  }
};

Composite loaded() {
  Composite net;
  net.load_state_dict(nn_test::filled(net, 100, kScale));
  return net;
}

/// Per-tensor sums in float64: shows both languages hold the same state dict.
std::vector<double> sums(const fp::nn::Module& module) {
  std::vector<double> result;
  for (const auto& [key, view] : module.state_dict()) {
    const fp::Tensor total = fp::dispatch<fp::Tensor>("aten::sum", "dim_IntList", view,
                                                      std::nullopt, false, fp::DType::F64);
    result.push_back(total.item<double>());
  }
  return result;
}

TEST(Composite, SameStateDictSameOutput) {
  const Composite net = loaded();
  EXPECT_EQ(
      nn_test::keys(net),
      (std::vector<std::string>{
          "features.0.weight", "features.0.bias", "features.1.weight", "features.1.bias",
          "features.1.running_mean", "features.1.running_var", "features.1.num_batches_tracked",
          "classifier.weight", "classifier.bias"}));  // #PYTHON list(net.state_dict().keys())
  EXPECT_PYTHON(sums(net), truth<std::vector<double>>(
                               "[v.double().sum().item() for v in net.state_dict().values()]"));
  const fp::Tensor x = randn({2, 3, 8, 8}, 1);
  const fp::Tensor y = net(x);
  const std::vector<float> expected = truth<std::vector<float>>("values(y)");
  const double delta = nn_test::max_abs_diff(y, expected);
  std::cout << "composite conv-BN-ReLU-pool-linear: max |delta| vs PyTorch = " << delta << "\n";
  RecordProperty("max_abs_delta", std::to_string(delta));
  EXPECT_LE(delta, 1e-6);              // under valgrind (AVX2 kernels, not AVX-512) it is 2.4e-7
  EXPECT_PYTHON(values(y), expected);  // in fact bit for bit
}

TEST(Composite, AsOneSequential) {
  /*
  #|PYTHON
  seq = filled(nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                             nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 4 * 4, 10)), scale=scale)
  with torch.no_grad():
      out = seq(x)
  */
  fp::nn::Sequential seq(fp::nn::Conv2d(3, 8, 3, {.padding = 1}), fp::nn::BatchNorm2d(8),
                         fp::nn::ReLU(), fp::nn::MaxPool2d(2), fp::nn::Flatten(),
                         fp::nn::Linear(8 * 4 * 4, 10));
  seq.load_state_dict(nn_test::filled(seq, 100, kScale));
  const fp::Tensor x = randn({2, 3, 8, 8}, 1);
  const std::vector<float> expected = truth<std::vector<float>>("values(out)");
  EXPECT_CLOSE(seq(x), 1e-6, expected);
  EXPECT_PYTHON(values(seq(x)), expected);
}

TEST(Composite, ForwardFromManyThreadsAtOnce) {
  const Composite net = loaded();
  fp::nn::MultiheadAttention attention(8, 2, {.batch_first = true});
  attention.load_state_dict(nn_test::filled(attention));
  const fp::Tensor x = randn({2, 3, 8, 8}, 1), sequence = randn({2, 5, 8}, 2);
  const std::vector<float> reference = values(net(x));
  const std::vector<float> attended =
      values(std::get<0>(attention.forward(sequence, sequence, sequence)));
  constexpr int kThreads = 8;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 10; ++round) {
        if (values(net(x)) != reference) ++mismatches[t];
        const auto [out, weights] = attention.forward(sequence, sequence, sequence);
        if (values(out) != attended) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(kThreads, 0));
}

}  // namespace
