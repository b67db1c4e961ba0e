// The Transformer family and MultiheadAttention's fast path against
// torch.nn under torch.no_grad() in eval mode: PyTorch's fused kernels where
// it takes them (batch_first, even heads, ...; nested tensors for a key
// padding mask in TransformerEncoder), the layers step by step elsewhere,
// and the same bits in each case.
//
// Why this file is long: each case carries the Python that computes its
// expected values beside the C++ it checks, for five modules and
// MultiheadAttention's fast path.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <cmath>
#include <limits>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
import torch.nn.functional as F
from truth_helpers import g, values, filled
torch.set_grad_enabled(False)
# Another file's block may have turned the fast paths off for the process.
torch.backends.mha.set_fastpath_enabled(True)

def doubles(t):
    # NaN (PyTorch's fused kernels give it for fully masked rows) as 1e300,
    # which a float tensor cannot hold, so that equal results compare equal.
    return [1e300 if math.isnan(v) else v for v in t.double().flatten().tolist()]

def drawn(shape, seed, dtype=torch.float32):
    return torch.randn(shape, generator=g(seed)).to(dtype)

padding = torch.tensor([[False, False, False, True, True], [False, False, False, False, False],
                        [False, True, True, True, True]])
*/

namespace {

using fp_test::truth;

using nn_test::keys;
using nn_test::randn;
using nn_test::shape;

/// The elements as doubles, NaN as 1e300 (like the Python `doubles`).
std::vector<double> doubles(const fp::detail::TensorBase& t) {
  std::vector<double> values = t.to_vector<double>();
  for (double& value : values) {
    if (std::isnan(value)) value = 1e300;
  }
  return values;
}

fp::Tensor drawn(fp::IntList sizes, std::uint64_t seed, fp::DType dtype = fp::DType::F32) {
  return randn(sizes, seed).to(dtype);
}

template <class M>
M filled(M module, float scale = 1.f) {
  module.load_state_dict(nn_test::filled(module, 100, scale));
  return module;
}

fp::Tensor padding() {
  return fp::tensor({{false, false, false, true, true},
                     {false, false, false, false, false},
                     {false, true, true, true, true}});
}

/// Turns PyTorch's fast paths off while alive (like the Python setting).
struct FastPathOff {
  FastPathOff() { fp::nn::backends::mha::set_fastpath_enabled(false); }
  ~FastPathOff() { fp::nn::backends::mha::set_fastpath_enabled(true); }
  FastPathOff(const FastPathOff&) = delete;
  FastPathOff& operator=(const FastPathOff&) = delete;
};

TEST(TransformerEncoderLayer, KeysArePyTorchs) {
  /*
  #|PYTHON
  m = nn.TransformerEncoderLayer(8, 2, 16)
  */
  const fp::nn::TransformerEncoderLayer m(8, 2, {.dim_feedforward = 16});
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"self_attn.in_proj_weight", "self_attn.in_proj_bias",
                                      "self_attn.out_proj.weight", "self_attn.out_proj.bias",
                                      "linear1.weight", "linear1.bias", "linear2.weight",
                                      "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight",
                                      "norm2.bias"}));  // #PYTHON list(m.state_dict().keys())
  std::vector<std::string> names;
  for (const auto& [name, module] : m.named_modules())
    names.push_back(name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"", "self_attn", "self_attn.out_proj", "linear1", "dropout",
                                      "linear2", "norm1", "norm2", "dropout1",
                                      "dropout2"}));  // #PYTHON [n for n, _ in m.named_modules()]
}

TEST(TransformerEncoderLayer, FastPathEqualsPython) {
  /*
  #|PYTHON
  m = filled(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True))
  gelu = filled(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation="gelu",
                                           norm_first=True))
  x = drawn((3, 5, 8), 1)
  bool_mask = torch.rand(5, 5, generator=g(2)) > 0.7
  float_mask = drawn((5, 5), 3)
  plain = m(x)
  padded = m(x, src_key_padding_mask=padding)
  masked = m(x, src_mask=bool_mask)
  both = m(x, src_mask=float_mask, src_key_padding_mask=padding)
  both_bool = m(x, src_mask=bool_mask, src_key_padding_mask=padding)
  gelu_out = gelu(x, src_key_padding_mask=padding)
  */
  const auto m =
      filled(fp::nn::TransformerEncoderLayer(8, 2, {.dim_feedforward = 16, .batch_first = true}));
  const auto gelu = filled(fp::nn::TransformerEncoderLayer(
      8, 2,
      {.dim_feedforward = 16, .activation = "gelu", .batch_first = true, .norm_first = true}));
  const fp::Tensor x = drawn({3, 5, 8}, 1);
  const fp::Tensor bool_mask = nn_test::rand({5, 5}, 2).gt(0.7);
  const fp::Tensor float_mask = drawn({5, 5}, 3);
  EXPECT_EQ(m.why_not_fast_path(x, std::nullopt, std::nullopt), "");
  EXPECT_PYTHON(doubles(m(x)), truth<std::vector<double>>("doubles(plain)"));
  // PyTorch's fused kernel takes a float mask's non-zero entries as masked, so
  // a random float src_mask gives NaN everywhere, in Python and here alike.
  // A fully masked row gives NaN too (doubles() compares NaN as 1e300).
  EXPECT_PYTHON(doubles(m.forward(x, {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(padded)"));
  EXPECT_PYTHON(doubles(m.forward(x, {.src_mask = bool_mask})),
                truth<std::vector<double>>("doubles(masked)"));
  EXPECT_PYTHON(doubles(m.forward(x, {.src_mask = float_mask, .src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(both)"));
  EXPECT_PYTHON(doubles(m.forward(x, {.src_mask = bool_mask, .src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(both_bool)"));
  EXPECT_PYTHON(doubles(gelu.forward(x, {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(gelu_out)"));
}

TEST(TransformerEncoderLayer, SlowPathsEqualPython) {
  /*
  #|PYTHON
  seq_first = filled(nn.TransformerEncoderLayer(8, 2, 16), scale=0.5)
  odd = filled(nn.TransformerEncoderLayer(9, 3, 16, batch_first=True), scale=0.5)
  custom = filled(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=torch.tanh,
                                             norm_first=True), scale=0.5)
  no_bias = filled(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, bias=False), scale=0.5)
  x = drawn((5, 3, 8), 4)
  xb = drawn((3, 5, 8), 5)
  x9 = drawn((3, 5, 9), 6)
  causal = nn.Transformer.generate_square_subsequent_mask(5)
  a = seq_first(x, src_key_padding_mask=padding)
  b = seq_first(x, src_mask=causal, is_causal=True)
  c = odd(x9, src_key_padding_mask=padding)
  d = custom(xb)
  e = custom(xb, src_key_padding_mask=padding)
  f = no_bias(xb, src_mask=causal)
  unbatched = seq_first(x[:, 1])
  */
  const auto seq_first =
      filled(fp::nn::TransformerEncoderLayer(8, 2, {.dim_feedforward = 16}), 0.5f);
  const auto odd = filled(
      fp::nn::TransformerEncoderLayer(9, 3, {.dim_feedforward = 16, .batch_first = true}), 0.5f);
  const auto custom =
      filled(fp::nn::TransformerEncoderLayer(
                 8, 2,
                 {.dim_feedforward = 16,
                  .activation = [](fp::TensorView t) { return fp::functional::tanh(t); },
                  .batch_first = true,
                  .norm_first = true}),
             0.5f);
  const auto no_bias =
      filled(fp::nn::TransformerEncoderLayer(
                 8, 2, {.dim_feedforward = 16, .batch_first = true, .bias = false}),
             0.5f);
  const fp::Tensor x = drawn({5, 3, 8}, 4), xb = drawn({3, 5, 8}, 5), x9 = drawn({3, 5, 9}, 6);
  const fp::Tensor causal = fp::nn::Transformer::generate_square_subsequent_mask(5);
  EXPECT_EQ(seq_first.why_not_fast_path(x, std::nullopt, std::nullopt),
            "self_attn.batch_first was not True");
  EXPECT_PYTHON(doubles(seq_first.forward(x, {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(a)"));
  EXPECT_PYTHON(doubles(seq_first.forward(x, {.src_mask = causal, .is_causal = true})),
                truth<std::vector<double>>("doubles(b)"));
  EXPECT_PYTHON(doubles(odd.forward(x9, {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(c)"));
  EXPECT_PYTHON(doubles(custom(xb)), truth<std::vector<double>>("doubles(d)"));
  EXPECT_PYTHON(doubles(custom.forward(xb, {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(e)"));
  EXPECT_PYTHON(doubles(no_bias.forward(xb, {.src_mask = causal})),
                truth<std::vector<double>>("doubles(f)"));
  EXPECT_PYTHON(doubles(seq_first(x.i(fp::all, 1))),
                truth<std::vector<double>>("doubles(unbatched)"));
}

TEST(TransformerEncoderLayer, FastPathTurnedOffEqualsPythonsSlowPath) {
  /*
  #|PYTHON
  m = filled(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True))
  x = drawn((3, 5, 8), 7)
  fast = m(x, src_key_padding_mask=padding)
  torch.backends.mha.set_fastpath_enabled(False)
  slow = m(x, src_key_padding_mask=padding)
  slow_plain = m(x)
  torch.backends.mha.set_fastpath_enabled(True)
  */
  const auto m =
      filled(fp::nn::TransformerEncoderLayer(8, 2, {.dim_feedforward = 16, .batch_first = true}));
  const fp::Tensor x = drawn({3, 5, 8}, 7);
  EXPECT_PYTHON(doubles(m.forward(x, {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(fast)"));
  const FastPathOff off;
  EXPECT_PYTHON(doubles(m.forward(x, {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(slow)"));
  EXPECT_PYTHON(doubles(m(x)), truth<std::vector<double>>("doubles(slow_plain)"));
}

TEST(TransformerEncoder, NestedTensorsForAKeyPaddingMask) {
  /*
  #|PYTHON
  layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
  m = filled(nn.TransformerEncoder(layer, 3, norm=nn.LayerNorm(8)), scale=0.5)
  x = drawn((3, 5, 8), 8)
  nested = m(x, src_key_padding_mask=padding)
  right = torch.tensor([[True, False, False, False, False]] * 3)
  not_left_aligned = m(x, src_key_padding_mask=right)
  plain = m(x)
  causal = nn.Transformer.generate_square_subsequent_mask(5)
  masked = m(x, mask=causal)
  both = m(x, mask=causal, src_key_padding_mask=padding)
  unchecked = filled(nn.TransformerEncoder(layer, 2, mask_check=False), scale=0.5)
  unchecked_out = unchecked(x, src_key_padding_mask=padding)
  */
  const fp::nn::TransformerEncoderLayer layer(8, 2, {.dim_feedforward = 16, .batch_first = true});
  const auto m = filled(fp::nn::TransformerEncoder(layer, 3, {.norm = fp::nn::LayerNorm(8)}), 0.5f);
  EXPECT_EQ(keys(m).size(), 38u);                               // #PYTHON len(m.state_dict())
  EXPECT_EQ(keys(m)[12], "layers.1.self_attn.in_proj_weight");  // #PYTHON list(m.state_dict())[12]
  EXPECT_TRUE(m.use_nested_tensor);
  const fp::Tensor x = drawn({3, 5, 8}, 8);
  EXPECT_PYTHON(doubles(m.forward(x, {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(nested)"));
  const fp::Tensor right = fp::tensor({{true, false, false, false, false},
                                       {true, false, false, false, false},
                                       {true, false, false, false, false}});
  EXPECT_PYTHON(doubles(m.forward(x, {.src_key_padding_mask = right})),
                truth<std::vector<double>>("doubles(not_left_aligned)"));
  EXPECT_PYTHON(doubles(m(x)), truth<std::vector<double>>("doubles(plain)"));
  // Python's `TransformerEncoder(layer, 3, nn.LayerNorm(8))`: norm given positionally.
  const auto positional = filled(fp::nn::TransformerEncoder(layer, 3, fp::nn::LayerNorm(8)), 0.5f);
  EXPECT_EQ(keys(positional), keys(m));
  EXPECT_PYTHON(doubles(positional(x)), truth<std::vector<double>>("doubles(plain)"));
  const fp::Tensor causal = fp::nn::Transformer::generate_square_subsequent_mask(5);
  EXPECT_PYTHON(doubles(m.forward(x, {.mask = causal})),
                truth<std::vector<double>>("doubles(masked)"));
  EXPECT_PYTHON(doubles(m.forward(x, {.mask = causal, .src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(both)"));
  const auto unchecked = filled(fp::nn::TransformerEncoder(layer, 2, {.mask_check = false}), 0.5f);
  EXPECT_PYTHON(doubles(unchecked.forward(x, {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(unchecked_out)"));
}

TEST(TransformerEncoder, SequenceFirstDetectsTheCausalMask) {
  /*
  #|PYTHON
  layer = nn.TransformerEncoderLayer(8, 2, 16, norm_first=True)
  m = filled(nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), scale=0.5)
  x = drawn((5, 3, 8), 9)
  causal = nn.Transformer.generate_square_subsequent_mask(5)
  detected = m(x, mask=causal)
  told_not = m(x, mask=causal, is_causal=False)
  padded = m(x, src_key_padding_mask=padding)
  x64 = x.double()
  m64 = m.double()
  padded64 = m64(x64, src_key_padding_mask=padding)
  */
  const fp::nn::TransformerEncoderLayer layer(8, 2, {.dim_feedforward = 16, .norm_first = true});
  auto m = filled(fp::nn::TransformerEncoder(layer, 2, {.enable_nested_tensor = false}), 0.5f);
  EXPECT_FALSE(m.use_nested_tensor);
  const fp::Tensor x = drawn({5, 3, 8}, 9);
  const fp::Tensor causal = fp::nn::Transformer::generate_square_subsequent_mask(5);
  EXPECT_PYTHON(doubles(m.forward(x, {.mask = causal})),
                truth<std::vector<double>>("doubles(detected)"));
  EXPECT_PYTHON(doubles(m.forward(x, {.mask = causal, .is_causal = false})),
                truth<std::vector<double>>("doubles(told_not)"));
  EXPECT_PYTHON(doubles(m.forward(x, {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(padded)"));
  m.to(fp::DType::F64);
  EXPECT_PYTHON(doubles(m.forward(x.to(fp::DType::F64), {.src_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(padded64)"));
}

TEST(TransformerDecoder, LayersAndStackEqualPython) {
  /*
  #|PYTHON
  layer = nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)
  m = filled(nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(8)), scale=0.5)
  single = filled(nn.TransformerDecoderLayer(8, 4, 16, norm_first=True, activation="gelu"),
                  scale=0.5)
  tgt = drawn((3, 4, 8), 10)
  memory = drawn((3, 5, 8), 11)
  causal = nn.Transformer.generate_square_subsequent_mask(4)
  out = m(tgt, memory, tgt_mask=causal, memory_key_padding_mask=padding)
  plain = m(tgt, memory)
  bool_causal = causal.isinf()
  bool_out = m(tgt, memory, tgt_mask=bool_causal, tgt_is_causal=False)
  single_out = single(tgt.transpose(0, 1), memory.transpose(0, 1), tgt_mask=causal,
                      tgt_is_causal=True)
  */
  const fp::nn::TransformerDecoderLayer layer(8, 2, {.dim_feedforward = 16, .batch_first = true});
  const auto m = filled(fp::nn::TransformerDecoder(layer, 2, fp::nn::LayerNorm(8)), 0.5f);
  EXPECT_EQ(keys(m).size(), 38u);  // #PYTHON len(m.state_dict())
  EXPECT_EQ(keys(m)[4],
            "layers.0.multihead_attn.in_proj_weight");  // #PYTHON list(m.state_dict())[4]
  const auto single =
      filled(fp::nn::TransformerDecoderLayer(
                 8, 4, {.dim_feedforward = 16, .activation = "gelu", .norm_first = true}),
             0.5f);
  const fp::Tensor tgt = drawn({3, 4, 8}, 10), memory = drawn({3, 5, 8}, 11);
  const fp::Tensor causal = fp::nn::Transformer::generate_square_subsequent_mask(4);
  EXPECT_PYTHON(
      doubles(m.forward(tgt, memory, {.tgt_mask = causal, .memory_key_padding_mask = padding()})),
      truth<std::vector<double>>("doubles(out)"));
  EXPECT_PYTHON(doubles(m(tgt, memory)), truth<std::vector<double>>("doubles(plain)"));
  const fp::Tensor bool_causal = fp::aten::isinf(causal);
  EXPECT_PYTHON(doubles(m.forward(tgt, memory, {.tgt_mask = bool_causal, .tgt_is_causal = false})),
                truth<std::vector<double>>("doubles(bool_out)"));
  EXPECT_PYTHON(doubles(single.forward(tgt.transpose(0, 1), memory.transpose(0, 1),
                                       {.tgt_mask = causal, .tgt_is_causal = true})),
                truth<std::vector<double>>("doubles(single_out)"));
}

TEST(Transformer, WholeModelEqualsPython) {
  /*
  #|PYTHON
  m = filled(nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                            dim_feedforward=16, batch_first=True), scale=0.5)
  src = drawn((3, 5, 8), 12)
  tgt = drawn((3, 4, 8), 13)
  tgt_mask = nn.Transformer.generate_square_subsequent_mask(4)
  out = m(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=padding,
          memory_key_padding_mask=padding)
  mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
  seq = filled(nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2,
                              dim_feedforward=16, activation="gelu", norm_first=True), scale=0.5)
  tgt_padding = torch.tensor([[False, False, True, True], [False, False, False, False],
                              [False, False, False, True]])
  seq_out = seq(src.transpose(0, 1), tgt.transpose(0, 1), tgt_mask=tgt_mask,
                tgt_key_padding_mask=tgt_padding, src_key_padding_mask=padding)
  src_mask = nn.Transformer.generate_square_subsequent_mask(5)
  unbatched = seq(src[1], tgt[1], src_mask=src_mask, tgt_mask=tgt_mask)
  unbatched_first = m(src[2], tgt[2], tgt_mask=tgt_mask, tgt_is_causal=True)
  */
  const auto m = filled(fp::nn::Transformer({.d_model = 8,
                                             .nhead = 2,
                                             .num_encoder_layers = 2,
                                             .num_decoder_layers = 1,
                                             .dim_feedforward = 16,
                                             .batch_first = true}),
                        0.5f);
  EXPECT_EQ(keys(m).size(), 46u);                  // #PYTHON len(m.state_dict())
  EXPECT_EQ(keys(m).back(), "decoder.norm.bias");  // #PYTHON list(m.state_dict())[-1]
  const fp::Tensor src = drawn({3, 5, 8}, 12), tgt = drawn({3, 4, 8}, 13);
  const fp::Tensor tgt_mask = fp::nn::Transformer::generate_square_subsequent_mask(4);
  EXPECT_PYTHON(doubles(m.forward(src, tgt,
                                  {.tgt_mask = tgt_mask,
                                   .src_key_padding_mask = padding(),
                                   .memory_key_padding_mask = padding()})),
                truth<std::vector<double>>("doubles(out)"));
  const fp::Tensor mask =
      fp::nn::Transformer::generate_square_subsequent_mask(3, std::nullopt, fp::DType::F64);
  EXPECT_EQ(mask.dtype(), fp::DType::F64);
  EXPECT_EQ(doubles(mask), truth<std::vector<double>>("doubles(mask)"));
  const auto seq = filled(fp::nn::Transformer({.d_model = 8,
                                               .nhead = 2,
                                               .num_encoder_layers = 1,
                                               .num_decoder_layers = 2,
                                               .dim_feedforward = 16,
                                               .activation = "gelu",
                                               .norm_first = true}),
                          0.5f);
  const fp::Tensor tgt_padding = fp::tensor(
      {{false, false, true, true}, {false, false, false, false}, {false, false, false, true}});
  EXPECT_PYTHON(doubles(seq.forward(src.transpose(0, 1), tgt.transpose(0, 1),
                                    {.tgt_mask = tgt_mask,
                                     .src_key_padding_mask = padding(),
                                     .tgt_key_padding_mask = tgt_padding})),
                truth<std::vector<double>>("doubles(seq_out)"));
  const fp::Tensor src_mask = fp::nn::Transformer::generate_square_subsequent_mask(5);
  EXPECT_PYTHON(
      doubles(seq.forward(src.i(1), tgt.i(1), {.src_mask = src_mask, .tgt_mask = tgt_mask})),
      truth<std::vector<double>>("doubles(unbatched)"));
  EXPECT_PYTHON(
      doubles(m.forward(src.i(2), tgt.i(2), {.tgt_mask = tgt_mask, .tgt_is_causal = true})),
      truth<std::vector<double>>("doubles(unbatched_first)"));
}

// At widths where BLAS blocks the inner dimension (256 and up), every step
// must be the one PyTorch takes, not only an equivalent one.
TEST(Transformer, WideModelsEqualPython) {
  /*
  #|PYTHON
  m = filled(nn.Transformer(d_model=256, nhead=4, num_encoder_layers=1, num_decoder_layers=1,
                            dim_feedforward=512, batch_first=True), scale=0.05)
  src = drawn((2, 9, 256), 20)
  tgt = drawn((2, 6, 256), 21)
  tgt_mask = nn.Transformer.generate_square_subsequent_mask(6)
  src_padding = torch.tensor([[False] * 9, [False] * 6 + [True] * 3])
  out = m(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=src_padding,
          memory_key_padding_mask=src_padding)
  seq = filled(nn.TransformerEncoderLayer(256, 4, 512, norm_first=True), scale=0.05)
  seq_out = seq(src.transpose(0, 1), src_mask=nn.Transformer.generate_square_subsequent_mask(9),
                is_causal=True)
  layer64 = filled(nn.TransformerEncoderLayer(256, 4, 512, batch_first=True), scale=0.05).double()
  out64 = layer64(src.double(), src_key_padding_mask=src_padding)
  */
  const auto m = filled(fp::nn::Transformer({.d_model = 256,
                                             .nhead = 4,
                                             .num_encoder_layers = 1,
                                             .num_decoder_layers = 1,
                                             .dim_feedforward = 512,
                                             .batch_first = true}),
                        0.05f);
  const fp::Tensor src = drawn({2, 9, 256}, 20), tgt = drawn({2, 6, 256}, 21);
  const fp::Tensor tgt_mask = fp::nn::Transformer::generate_square_subsequent_mask(6);
  fp::Tensor src_padding = fp::zeros({2, 9}, fp::DType::Bool);
  src_padding.i_mut(1, fp::slice(6, fp::end)).fill_(1.0);
  EXPECT_PYTHON(doubles(m.forward(src, tgt,
                                  {.tgt_mask = tgt_mask,
                                   .src_key_padding_mask = src_padding,
                                   .memory_key_padding_mask = src_padding})),
                truth<std::vector<double>>("doubles(out)"));
  const auto seq = filled(
      fp::nn::TransformerEncoderLayer(256, 4, {.dim_feedforward = 512, .norm_first = true}), 0.05f);
  EXPECT_PYTHON(
      doubles(seq.forward(src.transpose(0, 1),
                          {.src_mask = fp::nn::Transformer::generate_square_subsequent_mask(9),
                           .is_causal = true})),
      truth<std::vector<double>>("doubles(seq_out)"));
  auto layer64 =
      filled(fp::nn::TransformerEncoderLayer(256, 4, {.dim_feedforward = 512, .batch_first = true}),
             0.05f);
  layer64.to(fp::DType::F64);
  EXPECT_PYTHON(
      doubles(layer64.forward(src.to(fp::DType::F64), {.src_key_padding_mask = src_padding})),
      truth<std::vector<double>>("doubles(out64)"));
}

TEST(Transformer, HalfAndBFloat16EqualPython) {
  /*
  #|PYTHON
  results = {}
  for name, dtype in [("bf16", torch.bfloat16), ("f16", torch.float16)]:
      encoder = filled(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)).to(dtype)
      decoder = filled(nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)).to(dtype)
      x = drawn((3, 5, 8), 30, dtype)
      memory = drawn((3, 4, 8), 31, dtype)
      results[name] = [doubles(encoder(x, src_key_padding_mask=padding)),
                       doubles(decoder(x, memory,
                                       tgt_mask=nn.Transformer.generate_square_subsequent_mask(5)))]
      torch.backends.mha.set_fastpath_enabled(False)
      results[name].append(doubles(encoder(x, src_key_padding_mask=padding)))
      torch.backends.mha.set_fastpath_enabled(True)
  */
  const auto check = [](fp::DType dtype, const std::vector<double>& encoder_expected,
                        const std::vector<double>& decoder_expected,
                        const std::vector<double>& slow_expected) {
    auto encoder =
        filled(fp::nn::TransformerEncoderLayer(8, 2, {.dim_feedforward = 16, .batch_first = true}));
    auto decoder =
        filled(fp::nn::TransformerDecoderLayer(8, 2, {.dim_feedforward = 16, .batch_first = true}));
    encoder.to(dtype);
    decoder.to(dtype);
    const fp::Tensor x = drawn({3, 5, 8}, 30, dtype), memory = drawn({3, 4, 8}, 31, dtype);
    EXPECT_PYTHON(doubles(encoder.forward(x, {.src_key_padding_mask = padding()})),
                  encoder_expected);
    EXPECT_PYTHON(
        doubles(decoder.forward(
            x, memory, {.tgt_mask = fp::nn::Transformer::generate_square_subsequent_mask(5)})),
        decoder_expected);
    const FastPathOff off;
    EXPECT_PYTHON(doubles(encoder.forward(x, {.src_key_padding_mask = padding()})), slow_expected);
  };
  {
    SCOPED_TRACE("bfloat16");
    check(fp::DType::BF16, truth<std::vector<double>>("results['bf16'][0]"),
          truth<std::vector<double>>("results['bf16'][1]"),
          truth<std::vector<double>>("results['bf16'][2]"));
  }
  {
    SCOPED_TRACE("float16");
    check(fp::DType::F16, truth<std::vector<double>>("results['f16'][0]"),
          truth<std::vector<double>>("results['f16'][1]"),
          truth<std::vector<double>>("results['f16'][2]"));
  }
}

TEST(MultiheadAttention, FastPathEqualsPython) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(8, 2, batch_first=True))
  x = drawn((3, 5, 8), 14)
  out, w = m(x, x, x)
  out_heads, w_heads = m(x, x, x, average_attn_weights=False, key_padding_mask=padding)
  bool_mask = torch.rand(5, 5, generator=g(15)) > 0.7
  out_mask, none = m(x, x, x, attn_mask=bool_mask, need_weights=False)
  mask3 = torch.rand(6, 5, 5, generator=g(16)) > 0.7
  out_mask3, w3 = m(x, x, x, attn_mask=mask3, key_padding_mask=padding)
  y = drawn((3, 5, 8), 17)
  cross, cross_w = m(x, y, y)
  */
  const auto m = filled(fp::nn::MultiheadAttention(8, 2, {.batch_first = true}));
  const fp::Tensor x = drawn({3, 5, 8}, 14);
  EXPECT_EQ(m.why_not_fast_path(x, x, x, {}), "");
  auto [out, w] = m(x, x, x);
  EXPECT_PYTHON(doubles(out), truth<std::vector<double>>("doubles(out)"));
  EXPECT_PYTHON(doubles(w), truth<std::vector<double>>("doubles(w)"));
  auto [out_heads, w_heads] =
      m.forward(x, x, x, {.key_padding_mask = padding(), .average_attn_weights = false});
  EXPECT_EQ(shape(w_heads), (std::vector<int64_t>{3, 2, 5, 5}));  // #PYTHON list(w_heads.shape)
  EXPECT_PYTHON(doubles(out_heads), truth<std::vector<double>>("doubles(out_heads)"));
  EXPECT_PYTHON(doubles(w_heads), truth<std::vector<double>>("doubles(w_heads)"));
  const fp::Tensor bool_mask = nn_test::rand({5, 5}, 15).gt(0.7);
  auto [out_mask, none] = m.forward(x, x, x, {.need_weights = false, .attn_mask = bool_mask});
  EXPECT_FALSE(none.is_defined());
  EXPECT_PYTHON(doubles(out_mask), truth<std::vector<double>>("doubles(out_mask)"));
  const fp::Tensor mask3 = nn_test::rand({6, 5, 5}, 16).gt(0.7);
  auto [out_mask3, w3] = m.forward(x, x, x, {.key_padding_mask = padding(), .attn_mask = mask3});
  EXPECT_PYTHON(doubles(out_mask3), truth<std::vector<double>>("doubles(out_mask3)"));
  EXPECT_PYTHON(doubles(w3), truth<std::vector<double>>("doubles(w3)"));
  const fp::Tensor y = drawn({3, 5, 8}, 17);
  EXPECT_EQ(m.why_not_fast_path(x, y, y, {}),
            "non-self attention was used (query, key, and value are not the same Tensor)");
  auto [cross, cross_w] = m(x, y, y);
  EXPECT_PYTHON(doubles(cross), truth<std::vector<double>>("doubles(cross)"));
  EXPECT_PYTHON(doubles(cross_w), truth<std::vector<double>>("doubles(cross_w)"));
}

TEST(TransformerErrors, EncoderLayerAndEncoder) {
  /*
  #|PYTHON
  from truth_helpers import message
  layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).eval()
  x = torch.randn(3, 5, 8)
  int_padding = message(lambda: layer(x, src_key_padding_mask=torch.zeros(3, 5, dtype=torch.int64)))
  divisible = message(lambda: nn.TransformerEncoderLayer(8, 3))
  fused_mask = message(lambda: layer(x, src_mask=torch.ones(4, 4, dtype=torch.bool)))
  fused_features = message(lambda: layer(torch.randn(3, 5, 6)))
  merge = message(lambda: layer.self_attn.merge_masks(torch.zeros(4, 4), None, x))
  torch.backends.mha.set_fastpath_enabled(False)
  features = message(lambda: layer(torch.randn(3, 5, 6)))
  mask_shape = message(lambda: layer(x, src_mask=torch.zeros(4, 4)))
  torch.backends.mha.set_fastpath_enabled(True)
  encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
  encoder_int = message(lambda: encoder(x, mask=torch.zeros(5, 5, dtype=torch.int32)))
  */
  const fp::nn::TransformerEncoderLayer layer(8, 2, {.dim_feedforward = 16, .batch_first = true});
  const fp::Tensor x = drawn({3, 5, 8}, 1);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::TransformerEncoderLayer: " + truth<std::string>("int_padding"),
                  layer.forward(x, {.src_key_padding_mask = fp::zeros({3, 5}, fp::DType::I64)}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::MultiheadAttention: " + truth<std::string>("divisible"),
                  fp::nn::TransformerEncoderLayer(8, 3));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::TransformerActivation: activation should be relu/gelu, not swish",
                  fp::nn::TransformerEncoderLayer(8, 2, {.activation = "swish"}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "TransformerEncoder: norm is given twice, positionally and as options.norm",
      fp::nn::TransformerEncoder(layer, 2, fp::nn::LayerNorm(8), {.norm = fp::nn::LayerNorm(8)}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::TransformerActivation: the function is empty",
                  fp::nn::TransformerActivation(fp::nn::TransformerActivation::Function{}));
  // The fused kernel's own check, as in Python.
  EXPECT_TORCH_ERROR(truth<std::string>("fused_mask"),
                     layer.forward(x, {.src_mask = fp::ones({4, 4}, fp::DType::Bool)}));
  EXPECT_TORCH_ERROR(truth<std::string>("fused_features"), layer(drawn({3, 5, 6}, 2)));
  EXPECT_TORCH_ERROR(truth<std::string>("fused_features"),
                     layer.fast_path(drawn({3, 5, 6}, 2), std::nullopt, std::nullopt));
  EXPECT_TORCH_ERROR(truth<std::string>("merge"),
                     layer.self_attn.merge_masks(fp::zeros({4, 4}), std::nullopt, x));
  {
    const FastPathOff off;
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                    "fp::nn::MultiheadAttention: " + truth<std::string>("features"),
                    layer(drawn({3, 5, 6}, 2)));
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                    "fp::nn::MultiheadAttention: " + truth<std::string>("mask_shape"),
                    layer.forward(x, {.src_mask = fp::zeros({4, 4})}));
  }
  const fp::nn::TransformerEncoder encoder(layer, 2, {.enable_nested_tensor = false});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::TransformerEncoder: " + truth<std::string>("encoder_int"),
                  encoder.forward(x, {.mask = fp::zeros({5, 5}, fp::DType::I32)}));
  const fp::nn::TransformerEncoder empty(layer, 0);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn::TransformerEncoder: has no layers",
                  empty(x));
}

TEST(TransformerErrors, DecoderLayerDecoderAndTransformer) {
  /*
  #|PYTHON
  from truth_helpers import message
  layer = nn.TransformerDecoderLayer(8, 2, 16).eval()
  tgt = torch.randn(4, 3, 8)
  memory = torch.randn(5, 3, 8)
  int_mask = message(lambda: layer(tgt, memory, tgt_mask=torch.zeros(4, 4, dtype=torch.int64)))
  decoder = nn.TransformerDecoder(layer, 2).eval()
  four_d = message(lambda: decoder(torch.randn(4, 3, 1, 8), memory))
  transformer = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                               dim_feedforward=16).eval()
  batches = message(lambda: transformer(torch.randn(5, 3, 8), torch.randn(4, 2, 8)))
  features = message(lambda: transformer(torch.randn(5, 3, 8), torch.randn(4, 3, 6)))
  */
  const fp::nn::TransformerDecoderLayer layer(8, 2, {.dim_feedforward = 16});
  const fp::Tensor tgt = drawn({4, 3, 8}, 1), memory = drawn({5, 3, 8}, 2);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::MultiheadAttention: " + truth<std::string>("int_mask"),
                  layer.forward(tgt, memory, {.tgt_mask = fp::zeros({4, 4}, fp::DType::I64)}));
  const fp::nn::TransformerDecoder decoder(layer, 2);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::MultiheadAttention: " + truth<std::string>("four_d"),
                  decoder(drawn({4, 3, 1, 8}, 3), memory));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::nn::MultiheadAttention: Expected key_padded_mask.shape[1] to be 5, but got 4",
      decoder.forward(tgt, memory,
                      {.memory_key_padding_mask = fp::zeros({3, 4}, fp::DType::Bool)}));
  const fp::nn::TransformerDecoder empty(layer, 0);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn::TransformerDecoder: has no layers",
                  empty(tgt, memory));
  const fp::nn::Transformer transformer({.d_model = 8,
                                         .nhead = 2,
                                         .num_encoder_layers = 1,
                                         .num_decoder_layers = 1,
                                         .dim_feedforward = 16});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Transformer: " + truth<std::string>("batches"),
                  transformer(drawn({5, 3, 8}, 3), drawn({4, 2, 8}, 4)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Transformer: " + truth<std::string>("features"),
                  transformer(drawn({5, 3, 8}, 3), drawn({4, 3, 6}, 4)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::MultiheadAttention: embed_dim must be divisible by num_heads",
                  fp::nn::Transformer({.d_model = 8, .nhead = 3}));
  // fp::full checks the sizes itself, in libtorch's words.
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::full: Trying to create tensor with negative dimension -1",
                  fp::nn::Transformer::generate_square_subsequent_mask(-1));
}

TEST(TransformerErrors, MultiheadAttentionFastPath) {
  /*
  #|PYTHON
  from truth_helpers import message
  m = nn.MultiheadAttention(8, 2, batch_first=True).eval()
  x = torch.randn(3, 5, 8)
  attn_mask = message(lambda: m(x, x, x, attn_mask=torch.ones(4, 4, dtype=torch.bool)))
  padding_mask = message(lambda: m(x, x, x, key_padding_mask=torch.ones(3, 4, dtype=torch.bool)))
  */
  const fp::nn::MultiheadAttention m(8, 2, {.batch_first = true});
  const fp::Tensor x = drawn({3, 5, 8}, 1);
  EXPECT_EQ(m.why_not_fast_path(x, x, x, {}), "");
  EXPECT_TORCH_ERROR(truth<std::string>("attn_mask"),
                     m.forward(x, x, x, {.attn_mask = fp::ones({4, 4}, fp::DType::Bool)}));
  EXPECT_TORCH_ERROR(truth<std::string>("padding_mask"),
                     m.forward(x, x, x, {.key_padding_mask = fp::ones({3, 4}, fp::DType::Bool)}));
}

}  // namespace
