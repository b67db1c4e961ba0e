// The README's code, compiled and run: each block as the README shows it
// (tools/check_docs.py fails when one is missing here), between the set-up
// it needs and the checks of what it computed against PyTorch.
#include <gtest/gtest.h>

#include <flash_powder/aoti/aoti.h>        // link flash_powder::aoti
#include <flash_powder/aten/aten.h>        // fp::aten: every ATen op, typed
#include <flash_powder/flash_powder.h>     // link flash_powder::core
#include <flash_powder/image/image.h>      // link flash_powder::image
#include <flash_powder/library/library.h>  // link flash_powder::library: custom ops PyTorch loads
#include <flash_powder/safetensors/safetensors.h>  // link flash_powder::safetensors
#include <flash_powder/vision/vision.h>  // link flash_powder::vision (all: flash_powder::flash_powder)

#include <filesystem>
#include <iostream>
#include <sstream>

#include "aoti/fixture.h"
#include "docs/docs_test.h"
#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
from truth_helpers import g, values, filled, message
*/

TEST(Readme, Tensors) {
  testing::internal::CaptureStdout();
  fp::Tensor m = fp::tensor({{5.f, 3.f, 5.f}, {1.f, 2.f, 0.f}});  // float32 [2, 3]
  fp::Tensor copy = m;                // an independent value (copy-on-write)
  copy.data_mut<float>()[0] = 100.f;  // m is unchanged
  m.i_mut(fp::all, 0).fill_(0);       // m[:, 0] = 0: writes go through a TensorMutView
  fp::TensorView row = m.i(1);        // m[1]: a read-only view, like std::span<const T>
  fp::Tensor p = fp::functional::softmax(m * 2 + 1, -1);  // operators; numbers act like Python's
  auto [values, indices] = m.max(1);  // reductions, sort, topk, matmul, cat, where, ...
  std::cout << p << '\n';             // prints what Python's repr prints
  const std::string printed = testing::internal::GetCapturedStdout();

  /*
  #|PYTHON
  m = torch.tensor([[5., 3., 5.], [1., 2., 0.]])
  copy = m.clone()
  copy[0, 0] = 100.
  m[:, 0] = 0
  row = m[1]
  p = torch.softmax(m * 2 + 1, -1)
  max_values, max_indices = m.max(1)
  */
  EXPECT_EQ(m.to_vector<float>(),
            (std::vector<float>{0.0, 3.0, 5.0, 0.0, 2.0, 0.0}));  // #PYTHON values(m)
  EXPECT_EQ(copy.to_vector<float>(),
            (std::vector<float>{100.0, 3.0, 5.0, 1.0, 2.0, 0.0}));         // #PYTHON values(copy)
  EXPECT_EQ(row.to_vector<float>(), (std::vector<float>{0.0, 2.0, 0.0}));  // #PYTHON values(row)
  EXPECT_EQ(values.to_vector<float>(),
            (std::vector<float>{5.0, 2.0}));  // #PYTHON values(max_values)
  EXPECT_EQ(indices.to_vector<int64_t>(),
            (std::vector<int64_t>{2, 1}));  // #PYTHON values(max_indices)
  EXPECT_EQ(p.to_vector<float>(), truth<std::vector<float>>("values(p)"));
  EXPECT_EQ(printed, truth<std::string>("repr(p)") + "\n");
#if FP_BORROW_CHECK
  // While `row` lives, m cannot be written (the test build checks borrows).
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "", m.fill_(1));
#endif
}

struct Net : fp::nn::Module {
  fp::nn::Conv2d conv{3, 8, 3, {.padding = 1}};  // torch.nn.Conv2d(3, 8, 3, padding=1)
  fp::nn::BatchNorm2d bn{8};
  fp::nn::Linear head{8, 10};
  FP_MODULE(conv, bn, head)  // keys "conv.weight", "bn.running_mean", ...

  fp::Tensor forward(fp::TensorView x) const override {
    const fp::Tensor h = fp::functional::relu(bn(conv(x)));
    return head(fp::functional::adaptive_avg_pool2d(h, 1).flatten(1));
  }
};

/*
#|PYTHON_GLOBAL
from truth_helpers import python_torchvision
torchvision = python_torchvision()

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.head = torch.nn.Linear(8, 10)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        return self.head(F.adaptive_avg_pool2d(h, 1).flatten(1))

def photo():
    return (torch.arange(3 * 60 * 80) % 251).to(torch.uint8).reshape(3, 60, 80)
*/

/// The picture "cat.png" holds: values Python makes too (photo() above).
fp::Tensor cat_picture() {
  return fp::arange(3 * 60 * 80).remainder(251).to(fp::DType::U8).reshape({3, 60, 80});
}

TEST(Readme, Models) {
  const docs_test::InFolder folder;
  fp::safetensors::save(nn_test::filled(Net{}), "net.safetensors");
  fp::safetensors::save(nn_test::filled(fp::vision::models::resnet18()), "resnet18.safetensors");
  fp::image::write_png(cat_picture(), "cat.png");
  const fp::Tensor images = nn_test::randn({2, 3, 8, 8}, 1);

  Net net;
  net.load_state_dict(fp::safetensors::MappedFile::open("net.safetensors"));  // zero-copy
  fp::Tensor logits = net(images);  // [N, 3, H, W] -> [N, 10]; forward() is const: any thread

  auto resnet = fp::vision::models::resnet18();  // torchvision's models and keys
  resnet.load_state_dict(fp::safetensors::MappedFile::open("resnet18.safetensors"));
  fp::Tensor photo = fp::image::read_image("cat.png", {.mode = fp::image::ImageReadMode::RGB});
  fp::Tensor x = fp::vision::transforms::image_classification(photo);  // weights.transforms()
  fp::Tensor top5 = std::get<1>(resnet(x.unsqueeze(0)).topk(5));       // [1, 5] class indices

  /*
  #|PYTHON
  net = filled(Net())
  images = torch.randn(2, 3, 8, 8, generator=g(1))
  with torch.no_grad():
      logits = net(images)
      resnet = filled(torchvision.models.resnet18())
      x = torchvision.models.ResNet18_Weights.IMAGENET1K_V1.transforms()(photo())
      top5 = resnet(x.unsqueeze(0)).topk(5)[1]
  */
  EXPECT_PYTHON(nn_test::values(logits), truth<std::vector<float>>("values(logits)"));
  EXPECT_EQ(top5.to_vector<int64_t>(), truth<std::vector<int64_t>>("values(top5)"));
}

TEST(Readme, AnyOpAndExportedModels) {
  const docs_test::InFolder folder;
  std::filesystem::copy_file(aoti_test::package("cnn"), "model.pt2");
  const fp::Tensor m = fp::tensor({{5.f, 3.f, 5.f}, {1.f, 2.f, 0.f}});
  const fp::Tensor images = aoti_test::references("cnn").at("in.b2.0");

  fp::Tensor flipped = fp::aten::flip(m, {0});  // typed
  fp::Tensor same = fp::dispatch<fp::Tensor>("aten::flip", "", m, std::vector<int64_t>{0});

  const auto exported = fp::aoti::Package::open("model.pt2");  // AOTInductor, checked inputs
  std::vector<fp::Tensor> out = exported(images);

  /*
  #|PYTHON
  flipped = torch.tensor([[5., 3., 5.], [1., 2., 0.]]).flip(0)
  */
  EXPECT_EQ(flipped.to_vector<float>(),
            (std::vector<float>{1.0, 2.0, 0.0, 5.0, 3.0, 5.0}));  // #PYTHON values(flipped)
  EXPECT_TRUE(same.is_equal(flipped));
  ASSERT_EQ(out.size(), 1u);
  // What Python's aoti_load_package(...)(images) gave (tests/aoti/make_packages.py).
  aoti_test::expect_bit_equal(out[0], aoti_test::references("cnn").at("out.b2.0"), "out");
}

TEST(Readme, Errors) {
  testing::internal::CaptureStderr();
  try {
    fp::Tensor bad = fp::ones({2, 3}).matmul(fp::ones({2, 3}));
  } catch (const fp::Error& error) {
    std::cerr << error.what()
              << '\n';  // aten::mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)
  }
  const std::string printed = testing::internal::GetCapturedStderr();

  /*
  #|PYTHON
  # torch 2.15 puts "mm: " before the words: the words are what is shown.
  what = message(lambda: torch.ones(2, 3).matmul(torch.ones(2, 3))).removeprefix("mm: ")
  */
  const std::string torch_says =
      "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)";  // #PYTHON what
  EXPECT_TORCH_ERROR(torch_says, (void)fp::ones({2, 3}).matmul(fp::ones({2, 3})));
  std::string what;
  try {
    (void)fp::ones({2, 3}).matmul(fp::ones({2, 3}));
  } catch (const fp::Error& error) {
    what = error.what();
  }
  // libtorch before 2.13 also prints its own message to stderr, before ours.
  EXPECT_TRUE(printed.ends_with(what + "\n")) << printed;
}

}  // namespace
