// Inference semantics: every op flash_powder runs computes what Python
// computes under `torch.no_grad()`, on the main thread and on new threads
// (libtorch's grad mode is on by default and per thread), and fp::EnableGrad
// opts out. The ops chosen are those whose results depend on grad mode in
// PyTorch: aten::lstm takes another kernel with grad mode on, and the
// Transformer and MultiheadAttention modules take their fused fast paths only
// with it off.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <functional>
#include <thread>
#include <vector>

#include "nn/helpers.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from truth_helpers import g, values

def drawn(shapes, seed, scale):
    return [torch.randn(s, generator=g(seed + i)) * scale for i, s in enumerate(shapes)]

def fast_path(module, *inputs, **options):
    """module(*inputs) under no_grad with PyTorch's fast paths on (another
    file's block may have turned them off for the process)."""
    previous = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(True)
    try:
        with torch.no_grad():
            return module(*inputs, **options)
    finally:
        torch.backends.mha.set_fastpath_enabled(previous)
*/

namespace {

using fp_test::truth;
using nn_test::randn;
using nn_test::values;

/// `randn(shape, seed + i) * scale` for each shape, like the Python `drawn`.
std::vector<fp::Tensor> drawn(const std::vector<std::vector<std::int64_t>>& shapes,
                              std::uint64_t seed, float scale) {
  std::vector<fp::Tensor> tensors;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    tensors.push_back(randn(shapes[i], seed + i) * fp::tensor(scale));
  }
  return tensors;
}

/// `compute()` on a thread of its own, which starts with libtorch's default
/// grad mode (on).
std::vector<float> on_new_thread(const std::function<std::vector<float>()>& compute) {
  std::vector<float> result;
  std::thread thread([&] { result = compute(); });
  thread.join();
  return result;
}

// A two-layer bidirectional LSTM of a size where libtorch's kernels with grad
// mode on and off round differently (on the CPUs tried; EnableGrad's test
// says whether they do on this one).
/*
#|PYTHON_GLOBAL
lstm = nn.LSTM(64, 256, num_layers=2, bidirectional=True).eval()
lstm_shapes = [list(v.shape) for v in lstm.state_dict().values()]
lstm_params = drawn(lstm_shapes, 100, 0.1)
lstm.load_state_dict(dict(zip(lstm.state_dict().keys(), lstm_params)))
lstm_x = torch.randn(100, 1, 64, generator=g(1))
with torch.no_grad():
    lstm_no_grad = lstm(lstm_x)[0]
with torch.enable_grad():
    lstm_with_grad = lstm(lstm_x)[0].detach()
*/
/// The shapes of a two-layer bidirectional nn.LSTM's state dict, in its order:
/// weight_ih, weight_hh, bias_ih, bias_hh for l0, l0_reverse, l1, l1_reverse.
std::vector<std::vector<std::int64_t>> lstm_shapes(std::int64_t input, std::int64_t hidden) {
  std::vector<std::vector<std::int64_t>> shapes;
  for (std::int64_t layer_input : {input, input, 2 * hidden, 2 * hidden}) {
    shapes.insert(shapes.end(),
                  {{4 * hidden, layer_input}, {4 * hidden, hidden}, {4 * hidden}, {4 * hidden}});
  }
  return shapes;
}

std::vector<float> lstm_output() {
  const std::vector<fp::Tensor> params = drawn(lstm_shapes(64, 256), 100, 0.1f);
  const fp::Tensor x = randn({100, 1, 64}, 1);
  const fp::Tensor state = fp::zeros({4, 1, 256});
  auto [output, h, c] =
      fp::aten::lstm_input(x, {state, state}, params, true, 2, 0.0, false, true, false);
  return values(output);
}

TEST(GradMode, LstmEqualsPythonUnderNoGradOnEveryThread) {
  const auto expected = truth<std::vector<float>>("values(lstm_no_grad)");
  EXPECT_PYTHON(lstm_output(), expected);
  EXPECT_PYTHON(on_new_thread(lstm_output), expected);
}

TEST(GradMode, EnableGradGivesWhatPythonComputesWithGradEnabled) {
  std::vector<float> with_grad;
  {
    const fp::EnableGrad enable_grad;
    EXPECT_TRUE(fp::is_grad_enabled());
    with_grad = lstm_output();
  }
  EXPECT_PYTHON(with_grad, truth<std::vector<float>>("values(lstm_with_grad)"));
  // Whether the two kernels round differently depends on the CPU; the test
  // above can only fail where they do, which this says for this machine.
  const bool kernels_differ = with_grad != lstm_output();
  EXPECT_EQ(kernels_differ, truth<bool>("not torch.equal(lstm_no_grad, lstm_with_grad)"));
}

TEST(GradMode, OpsLeaveTheThreadsGradModeAsTheyFoundIt) {
  EXPECT_TRUE(fp::is_grad_enabled());  // libtorch's default
  (void)lstm_output();
  EXPECT_TRUE(fp::is_grad_enabled());
  {
    const fp::EnableGrad outer;
    {
      const fp::EnableGrad inner;
      (void)(fp::ones({2}) * fp::ones({2}));
      EXPECT_TRUE(fp::is_grad_enabled());
    }
    EXPECT_TRUE(fp::is_grad_enabled());
  }
  EXPECT_TRUE(fp::is_grad_enabled());
  on_new_thread([] {
    EXPECT_TRUE(fp::is_grad_enabled());
    return std::vector<float>{};
  });
}

// PyTorch's TransformerEncoderLayer in eval mode under no_grad runs the fused
// aten::_transformer_encoder_layer_fwd (with grad mode on it takes the slow
// path, which rounds differently); so does fp::nn::TransformerEncoderLayer.
/*
#|PYTHON_GLOBAL
encoder = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True).eval()
encoder_shapes = [list(v.shape) for v in encoder.state_dict().values()]
encoder.load_state_dict(dict(zip(encoder.state_dict().keys(),
                                 drawn(encoder_shapes, 200, 0.1))))
encoder_x = torch.randn(3, 20, 64, generator=g(2))
encoder_no_grad = fast_path(encoder, encoder_x)
*/
/// `module` with `values` in its state dict's order.
template <class M>
M loaded(M module, const std::vector<fp::Tensor>& values) {
  fp::StateDict state;
  const std::vector<std::string> keys = nn_test::keys(module);
  for (std::size_t i = 0; i < keys.size(); ++i)
    state.insert(keys[i], values.at(i));
  module.load_state_dict(state);
  return module;
}

std::vector<float> encoder_output() {
  // in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias,
  // linear1.weight, linear1.bias, linear2.weight, linear2.bias,
  // norm1.weight, norm1.bias, norm2.weight, norm2.bias
  const auto encoder =
      loaded(fp::nn::TransformerEncoderLayer(
                 64, 4, {.dim_feedforward = 128, .dropout = 0.0, .batch_first = true}),
             drawn({{192, 64},
                    {192},
                    {64, 64},
                    {64},
                    {128, 64},
                    {128},
                    {64, 128},
                    {64},
                    {64},
                    {64},
                    {64},
                    {64}},
                   200, 0.1f));
  return values(encoder(randn({3, 20, 64}, 2)));
}

TEST(GradMode, TransformerEncoderLayerEqualsPythonsFastPath) {
  const auto expected = truth<std::vector<float>>("values(encoder_no_grad)");
  EXPECT_PYTHON(encoder_output(), expected);
  EXPECT_PYTHON(on_new_thread(encoder_output), expected);
}

// MultiheadAttention (batch_first, self-attention, no weights) in eval mode
// under no_grad runs the fused aten::_native_multi_head_attention; so does
// fp::nn::MultiheadAttention.
/*
#|PYTHON_GLOBAL
attention = nn.MultiheadAttention(64, 4, batch_first=True).eval()
attention_shapes = [list(v.shape) for v in attention.state_dict().values()]
attention.load_state_dict(dict(zip(attention.state_dict().keys(),
                                   drawn(attention_shapes, 300, 0.1))))
attention_x = torch.randn(3, 20, 64, generator=g(3))
attention_no_grad = fast_path(attention, attention_x, attention_x, attention_x,
                              need_weights=False)[0]
*/
std::vector<float> attention_output() {
  const auto attention = loaded(fp::nn::MultiheadAttention(64, 4, {.batch_first = true}),
                                drawn({{192, 64}, {192}, {64, 64}, {64}}, 300, 0.1f));
  const fp::Tensor x = randn({3, 20, 64}, 3);
  auto [out, weights] = attention.forward(x, x, x, {.need_weights = false});
  return values(out);
}

TEST(GradMode, MultiheadAttentionEqualsPythonsFastPath) {
  const auto expected = truth<std::vector<float>>("values(attention_no_grad)");
  EXPECT_PYTHON(attention_output(), expected);
  EXPECT_PYTHON(on_new_thread(attention_output), expected);
}

}  // namespace
