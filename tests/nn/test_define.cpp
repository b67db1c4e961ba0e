// FP_MODULE (children named once, forward with any arguments), ModuleListOf
// (typed, iterable), non-persistent buffers and error paths, on a small
// BERT-style encoder that reads like its PyTorch original below.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <memory>
#include <optional>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
import torch.nn.functional as F
from truth_helpers import g, filled, values

class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)

    def forward(self, x, mask):
        b, t, h = x.shape
        split = lambda y: y.reshape(b, t, self.heads, h // self.heads).transpose(1, 2)
        out = F.scaled_dot_product_attention(split(self.query(x)), split(self.key(x)),
                                             split(self.value(x)), attn_mask=mask)
        return out.transpose(1, 2).reshape(b, t, h)

class Layer(nn.Module):
    def __init__(self, hidden, heads, inner):
        super().__init__()
        self.attention = SelfAttention(hidden, heads)
        self.attention_norm = nn.LayerNorm(hidden)
        self.intermediate = nn.Linear(hidden, inner)
        self.output = nn.Linear(inner, hidden)
        self.output_norm = nn.LayerNorm(hidden)

    def forward(self, x, mask):
        x = self.attention_norm(x + self.attention(x, mask))
        return self.output_norm(x + self.output(F.gelu(self.intermediate(x))))

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = nn.Embedding(50, 16)
        self.position_embeddings = nn.Embedding(8, 16)
        self.register_buffer("position_ids", torch.arange(8).expand(1, -1), persistent=False)
        self.layer = nn.ModuleList([Layer(16, 4, 32) for _ in range(3)])

    def forward(self, ids, attention_mask):
        mask = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        h = self.embeddings(ids) + self.position_embeddings(self.position_ids[:, :ids.shape[1]])
        for block in self.layer:
            h = block(h, mask)
        return h

encoder = filled(Encoder(), scale=0.5)
ids = torch.tensor([[1, 7, 3, 9, 4, 2], [5, 5, 8, 0, 0, 0]])
attention_mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 0, 0]])
*/

namespace {

using fp_test::truth;

using nn_test::keys;
using nn_test::values;

struct SelfAttention : fp::nn::Module {
  SelfAttention(std::int64_t hidden, std::int64_t heads)
      : heads(heads), query(hidden, hidden), key(hidden, hidden), value(hidden, hidden) {}
  std::int64_t heads;
  fp::nn::Linear query, key, value;
  FP_MODULE(query, key, value)

  fp::Tensor forward(fp::TensorView x, fp::TensorView mask) const {
    const std::int64_t b = x.size(0), t = x.size(1), h = x.size(2);
    const auto split = [&](const fp::Tensor& y) {
      return fp::aten::transpose_int(y.reshape({b, t, heads, h / heads}), 1, 2);
    };
    const fp::Tensor out = fp::functional::scaled_dot_product_attention(
        split(query(x)), split(key(x)), split(value(x)), {.attn_mask = mask});
    return fp::aten::transpose_int(out, 1, 2).reshape({b, t, h});
  }
};

struct Layer : fp::nn::Module {
  Layer(std::int64_t hidden, std::int64_t heads, std::int64_t inner)
      : attention(hidden, heads),
        attention_norm(hidden),
        intermediate(hidden, inner),
        output(inner, hidden),
        output_norm(hidden) {}
  SelfAttention attention;
  fp::nn::LayerNorm attention_norm;
  fp::nn::Linear intermediate;
  fp::nn::Linear output;
  fp::nn::LayerNorm output_norm;
  FP_MODULE(attention, attention_norm, intermediate, output, output_norm)

  fp::Tensor forward(fp::TensorView x, fp::TensorView mask) const {
    const fp::Tensor attended = attention_norm(x + attention(x, mask));
    return output_norm(attended + output(fp::functional::gelu(intermediate(attended))));
  }
};

struct Encoder : fp::nn::Module {
  fp::nn::Embedding embeddings{50, 16};
  fp::nn::Embedding position_embeddings{8, 16};
  fp::Tensor position_ids = fp::arange(8).reshape({1, 8});
  fp::nn::ModuleListOf<Layer> layer{3, 16, 4, 32};

  void visit(fp::nn::Visitor& v) override {
    FP_VISIT_MEMBERS(v, embeddings, position_embeddings);
    v.buffer("position_ids", position_ids, {.persistent = false});
    FP_VISIT_MEMBERS(v, layer);
  }
  FP_MODULE_CALL()

  fp::Tensor forward(fp::TensorView ids, fp::TensorView attention_mask) const {
    const std::int64_t batch = attention_mask.size(0), length = attention_mask.size(1);
    const fp::Tensor mask =
        (1.0 - attention_mask.reshape({batch, 1, 1, length}).to(fp::DType::F32)) * -10000.0;
    fp::Tensor h =
        embeddings(ids) + position_embeddings(position_ids.i(fp::all, fp::slice(0, ids.size(1))));
    for (const Layer& block : layer)
      h = block(h, mask);
    return h;
  }
};

fp::Tensor ids() {
  return fp::tensor(std::vector<std::int64_t>{1, 7, 3, 9, 4, 2, 5, 5, 8, 0, 0, 0}).reshape({2, 6});
}
fp::Tensor attention_mask() {
  return fp::tensor(std::vector<std::int64_t>{1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0}).reshape({2, 6});
}

TEST(Define, BertStyleEncoderEqualsPyTorch) {
  Encoder encoder;
  EXPECT_EQ(keys(encoder), truth<std::vector<std::string>>("list(encoder.state_dict().keys())"));
  encoder.load_state_dict(nn_test::filled(encoder, 100, 0.5f));
  EXPECT_PYTHON(values(encoder(ids(), attention_mask())),
                truth<std::vector<float>>("values(encoder(ids, attention_mask))"));
  // Each layer is callable on its own, from the list, with its two inputs.
  const fp::Tensor h = fp::randn({2, 6, 16});
  const fp::Tensor zeros = fp::zeros({2, 1, 1, 6});
  EXPECT_TRUE(encoder.layer[1](h, zeros).is_equal(encoder.layer[-2].forward(h, zeros)));
}

TEST(Define, NonPersistentBuffersAreModuleStateButNotStateDict) {
  Encoder encoder;
  const auto buffers = encoder.named_buffers();
  ASSERT_EQ(buffers.size(), 1u);
  EXPECT_EQ(buffers[0].first, "position_ids");
  for (const auto& key : keys(encoder))
    EXPECT_NE(key, "position_ids");
  // ...and moves with the module.
  encoder.to(fp::DType::F64);
  EXPECT_EQ(encoder.position_ids.dtype(), fp::DType::I64);  // integers keep their dtype
}

struct Optionals : fp::nn::Module {
  std::optional<fp::nn::Linear> present{fp::nn::Linear(2, 3)};
  std::optional<fp::nn::Linear> absent;
  std::unique_ptr<fp::nn::ReLU> boxed = std::make_unique<fp::nn::ReLU>();
  std::unique_ptr<fp::nn::ReLU> null;
  fp::Tensor scale = fp::ones({1});
  FP_MODULE(present, absent, boxed, null, scale)
  fp::Tensor forward(fp::TensorView x) const override { return (*boxed)((*present)(x)) * scale; }
};

TEST(Define, OptionalAndBoxedMembersCountWhenPresent) {
  Optionals module;
  EXPECT_EQ(keys(module), (std::vector<std::string>{"scale", "present.weight", "present.bias"}));
  std::vector<std::string> children;
  for (const auto& [name, child] : module.named_children())
    children.push_back(name);
  EXPECT_EQ(children, (std::vector<std::string>{"present", "boxed"}));
  // A one-tensor forward through FP_MODULE's operator() and in a Sequential.
  const fp::Tensor x = fp::randn({4, 2});
  EXPECT_TRUE(module(x).is_equal(module.forward(x)));
  fp::nn::Sequential sequential(std::move(module));
  EXPECT_EQ(sequential(x).sizes()[1], 3);
}

TEST(ModuleListOf, IndexesIteratesAndRegistersLikeModuleList) {
  fp::nn::ModuleListOf<fp::nn::Linear> list;
  EXPECT_TRUE(list.empty());
  list.emplace(2, 3);
  list.push(fp::nn::Linear(3, 4)).push(fp::nn::Linear(4, 1));
  EXPECT_EQ(list.size(), 3u);
  EXPECT_EQ(list[-1].out_features, 1);
  std::vector<std::int64_t> widths;
  for (const fp::nn::Linear& linear : list)
    widths.push_back(linear.in_features);
  EXPECT_EQ(widths, (std::vector<std::int64_t>{2, 3, 4}));
  EXPECT_EQ(keys(list), (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias",
                                                  "2.weight", "2.bias"}));
  // References stay valid as more are added.
  fp::nn::Linear& first = list[0];
  for (int i = 0; i < 100; ++i)
    list.emplace(1, 1);
  EXPECT_EQ(&first, &list[0]);
}

TEST(ModuleListOfErrors, BadCountAndIndex) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn::ModuleListOf: count must be >= 0, got -1",
                  fp::nn::ModuleListOf<fp::nn::ReLU>(-1));
  fp::nn::ModuleListOf<fp::nn::ReLU> list(2);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::ModuleListOf: index 2 is out of range for 2 modules", list[2]);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::ModuleListOf: index -3 is out of range for 2 modules", list[-3]);
}

struct NotAName : fp::nn::Module {
  fp::nn::ReLU relu;
  void visit(fp::nn::Visitor& v) override { FP_VISIT_MEMBERS(v, this->relu); }
};

TEST(DefineErrors, MembersMustBeNamedPlainly) {
  const NotAName module;
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::nn: NotAName::visit: FP_MODULE and FP_VISIT_MEMBERS take the names of members, not "
      "\"this->relu\"",
      module.state_dict());
}

struct Block : fp::nn::Module {
  fp::nn::Linear dense{4, 3};
  FP_MODULE(dense)
  fp::Tensor forward(fp::TensorView x) const override { return dense(x); }
};

/// Two blocks of 4 -> 3: the second always fails.
struct Chain : fp::nn::Module {
  fp::nn::ModuleListOf<Block> layer{2};
  FP_MODULE(layer)
  fp::Tensor forward(fp::TensorView x) const override {
    fp::Tensor h = x.to_owned();
    for (const Block& block : layer)
      h = block(h);
    return h;
  }
};

/// The message of the fp::Error that `call` throws.
template <class Call>
std::string error_of(Call&& call) {
  try {
    call();
  } catch (const fp::Error& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(DefineErrors, ErrorsNameTheFailingModulesPlaceInTheModelCalled) {
  const Chain chain;
  const fp::Tensor x = fp::randn({2, 4});
  // `where` names the path, then the op; libtorch's words follow (torch 2.15
  // puts "addmm: " before them).
  const auto is_linear_error = [](const std::string& where, const std::string& what) {
    const std::string message = fp_test::torch_message("mat1 and mat2 shapes cannot be multiplied");
    return what.starts_with(where + "aten::linear: ") && what.find(message) != std::string::npos;
  };
  EXPECT_TRUE(is_linear_error("layer.1.dense: ", error_of([&] { chain(x); })))
      << error_of([&] { chain(x); });
  // Called on its own, the block is the model: the path starts there.
  EXPECT_TRUE(is_linear_error("dense: ", error_of([&] { chain.layer[1](fp::randn({2, 3})); })));
  // The module called fails itself: the message is libtorch's, unchanged.
  EXPECT_TRUE(is_linear_error("", error_of([&] { chain.layer[1].dense(fp::randn({2, 3})); })));
  // Containers call their modules the same way.
  const fp::nn::Sequential sequential(fp::nn::Linear(4, 3), fp::nn::ReLU(), fp::nn::Linear(4, 2));
  EXPECT_TRUE(is_linear_error("2: ", error_of([&] { sequential(x); })));
  // Later calls start afresh.
  EXPECT_TRUE(chain.layer[0](x).sizes()[1] == 3);
  EXPECT_TRUE(is_linear_error("layer.1.dense: ", error_of([&] { chain(x); })));
}

}  // namespace
