// fp::nn's recurrent layers and packed sequences against torch.nn's: the
// same keys, and the same weights give the same outputs and states, bit for
// bit, for float32, float64, float16 and bfloat16, batched and unbatched,
// batch_first, bidirectional, stacked, with initial states and without,
// packed and padded; and bad input is refused with Python's messages.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from torch.nn.utils import rnn as rnn_utils
from truth_helpers import g, values, filled
torch.set_grad_enabled(False)

def doubles(t):
    return t.double().flatten().tolist()

def drawn(shape, seed, dtype=torch.float32):
    return torch.randn(shape, generator=g(seed)).to(dtype)
*/

namespace {

using fp_test::truth;

using nn_test::keys;
using nn_test::randn;
using nn_test::shape;

namespace rnn = fp::nn::utils::rnn;

std::vector<double> doubles(const fp::detail::TensorBase& t) {
  return t.to_vector<double>();
}

/// randn(shape, seed) converted to `dtype`, like the Python `drawn`.
fp::Tensor drawn(fp::IntList sizes, std::uint64_t seed, fp::DType dtype = fp::DType::F32) {
  return randn(sizes, seed).to(dtype);
}

template <class M>
M filled(M module) {
  module.load_state_dict(nn_test::filled(module));
  return module;
}

std::vector<int64_t> strides(const fp::detail::TensorBase& t) {
  return {t.strides().begin(), t.strides().end()};
}

TEST(LSTM, KeysArePyTorchs) {
  /*
  #|PYTHON
  m = nn.LSTM(3, 6, num_layers=2, bidirectional=True, proj_size=2)
  plain = nn.LSTM(3, 4, bias=False)
  */
  const fp::nn::LSTM m(3, 6, {.num_layers = 2, .bidirectional = true, .proj_size = 2});
  EXPECT_EQ(
      keys(m),
      (std::vector<std::string>{
          "weight_ih_l0",         "weight_hh_l0",         "bias_ih_l0",
          "bias_hh_l0",           "weight_hr_l0",         "weight_ih_l0_reverse",
          "weight_hh_l0_reverse", "bias_ih_l0_reverse",   "bias_hh_l0_reverse",
          "weight_hr_l0_reverse", "weight_ih_l1",         "weight_hh_l1",
          "bias_ih_l1",           "bias_hh_l1",           "weight_hr_l1",
          "weight_ih_l1_reverse", "weight_hh_l1_reverse", "bias_ih_l1_reverse",
          "bias_hh_l1_reverse",   "weight_hr_l1_reverse"}));  // #PYTHON list(m.state_dict().keys())
  EXPECT_EQ(shape(m.parameter("weight_ih_l1_reverse")),
            (std::vector<int64_t>{24, 4}));  // #PYTHON list(m.weight_ih_l1_reverse.shape)
  EXPECT_EQ(shape(m.parameter("weight_hr_l0")),
            (std::vector<int64_t>{2, 6}));  // #PYTHON list(m.weight_hr_l0.shape)
  const fp::nn::LSTM plain(3, 4, {.bias = false});
  EXPECT_EQ(keys(plain),
            (std::vector<std::string>{"weight_ih_l0",
                                      "weight_hh_l0"}));  // #PYTHON list(plain.state_dict().keys())
}

TEST(LSTM, StackedBidirectionalEqualsPython) {
  /*
  #|PYTHON
  m = filled(nn.LSTM(4, 5, num_layers=2, bidirectional=True))
  x = drawn((6, 3, 4), 1)
  out, (h, c) = m(x)
  */
  const auto m = filled(fp::nn::LSTM(4, 5, {.num_layers = 2, .bidirectional = true}));
  const fp::Tensor x = drawn({6, 3, 4}, 1);
  auto [out, state] = m(x);
  auto [h, c] = state;
  EXPECT_EQ(shape(out), (std::vector<int64_t>{6, 3, 10}));  // #PYTHON list(out.shape)
  EXPECT_EQ(shape(h), (std::vector<int64_t>{4, 3, 5}));     // #PYTHON list(h.shape)
  EXPECT_PYTHON(doubles(out), truth<std::vector<double>>("doubles(out)"));
  EXPECT_PYTHON(doubles(h), truth<std::vector<double>>("doubles(h)"));
  EXPECT_PYTHON(doubles(c), truth<std::vector<double>>("doubles(c)"));
}

TEST(LSTM, BatchFirstInitialStateAndProjection) {
  /*
  #|PYTHON
  m = filled(nn.LSTM(3, 6, batch_first=True, proj_size=4, num_layers=2))
  x = drawn((2, 5, 3), 2)
  h0 = drawn((2, 2, 4), 3)
  c0 = drawn((2, 2, 6), 4)
  out, (h, c) = m(x, (h0, c0))
  out2, (h2, c2) = m(x[:, 2:], (h, c))
  */
  const auto m = filled(fp::nn::LSTM(3, 6, {.num_layers = 2, .batch_first = true, .proj_size = 4}));
  const fp::Tensor x = drawn({2, 5, 3}, 2), h0 = drawn({2, 2, 4}, 3), c0 = drawn({2, 2, 6}, 4);
  auto [out, state] = m(x, fp::nn::LSTM::StateView{h0, c0});
  EXPECT_EQ(strides(out), (std::vector<int64_t>{4, 8, 1}));  // #PYTHON list(out.stride())
  EXPECT_PYTHON(doubles(out), truth<std::vector<double>>("doubles(out)"));
  EXPECT_PYTHON(doubles(std::get<0>(state)), truth<std::vector<double>>("doubles(h)"));
  EXPECT_PYTHON(doubles(std::get<1>(state)), truth<std::vector<double>>("doubles(c)"));
  // The state of one call carried into the next, on a non-contiguous input.
  const fp::TensorView rest = x.i(fp::all, fp::slice(2, fp::end));
  auto [out2, state2] = m(rest, state);
  EXPECT_PYTHON(doubles(out2), truth<std::vector<double>>("doubles(out2)"));
  EXPECT_PYTHON(doubles(std::get<1>(state2)), truth<std::vector<double>>("doubles(c2)"));
}

TEST(LSTM, UnbatchedAndNoBias) {
  /*
  #|PYTHON
  m = filled(nn.LSTM(3, 4, bias=False, bidirectional=True))
  x = drawn((5, 3), 5)
  out, (h, c) = m(x)
  h0 = drawn((2, 4), 6)
  out0, (h1, c1) = m(x, (h0, h0))
  */
  const auto m = filled(fp::nn::LSTM(3, 4, {.bias = false, .bidirectional = true}));
  const fp::Tensor x = drawn({5, 3}, 5), h0 = drawn({2, 4}, 6);
  auto [out, state] = m(x);
  EXPECT_EQ(shape(out), (std::vector<int64_t>{5, 8}));                 // #PYTHON list(out.shape)
  EXPECT_EQ(shape(std::get<1>(state)), (std::vector<int64_t>{2, 4}));  // #PYTHON list(c.shape)
  EXPECT_PYTHON(doubles(out), truth<std::vector<double>>("doubles(out)"));
  EXPECT_PYTHON(doubles(std::get<0>(state)), truth<std::vector<double>>("doubles(h)"));
  auto [out0, state0] = m(x, fp::nn::LSTM::StateView{h0, h0});
  EXPECT_PYTHON(doubles(out0), truth<std::vector<double>>("doubles(out0)"));
  EXPECT_PYTHON(doubles(std::get<1>(state0)), truth<std::vector<double>>("doubles(c1)"));
}

TEST(Recurrent, EveryLayerAndCellInEveryDtype) {
  /*
  #|PYTHON
  table = []
  for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16]:
      x = drawn((4, 2, 3), 7, dt)
      lstm = filled(nn.LSTM(3, 5, num_layers=2)).to(dt)
      gru = filled(nn.GRU(3, 5, bidirectional=True, batch_first=True)).to(dt)
      tanh = filled(nn.RNN(3, 5)).to(dt)
      relu = filled(nn.RNN(3, 5, nonlinearity="relu", num_layers=2, bias=False)).to(dt)
      lstm_cell = filled(nn.LSTMCell(3, 5)).to(dt)
      gru_cell = filled(nn.GRUCell(3, 5)).to(dt)
      rnn_cell = filled(nn.RNNCell(3, 5, nonlinearity="relu")).to(dt)
      x2 = x[0]
      h = drawn((2, 5), 8, dt)
      table.append([doubles(lstm(x)[0]), doubles(lstm(x)[1][1]), doubles(gru(x)[0]),
                    doubles(gru(x)[1]), doubles(tanh(x)[0]), doubles(relu(x)[1]),
                    doubles(lstm_cell(x2, (h, h))[1]), doubles(gru_cell(x2, h)),
                    doubles(rnn_cell(x2)), doubles(rnn_cell(x2[1], h[0]))])
  */
  const auto table = truth<std::vector<std::vector<std::vector<double>>>>("table");
  const fp::DType dtypes[] = {fp::DType::F32, fp::DType::F64, fp::DType::F16, fp::DType::BF16};
  for (std::size_t d = 0; d < std::size(dtypes); ++d) {
    const fp::DType dtype = dtypes[d];
    SCOPED_TRACE(std::string(fp::name(dtype)));
    const std::vector<std::vector<double>>& expected = table.at(d);
    const fp::Tensor x = drawn({4, 2, 3}, 7, dtype);
    auto lstm = filled(fp::nn::LSTM(3, 5, {.num_layers = 2}));
    auto gru = filled(fp::nn::GRU(3, 5, {.batch_first = true, .bidirectional = true}));
    auto tanh = filled(fp::nn::RNN(3, 5));
    auto relu = filled(fp::nn::RNN(3, 5, {.num_layers = 2, .nonlinearity = "relu", .bias = false}));
    auto lstm_cell = filled(fp::nn::LSTMCell(3, 5));
    auto gru_cell = filled(fp::nn::GRUCell(3, 5));
    auto rnn_cell = filled(fp::nn::RNNCell(3, 5, {.nonlinearity = "relu"}));
    for (fp::nn::ModuleBase* m : std::initializer_list<fp::nn::ModuleBase*>{
             &lstm, &gru, &tanh, &relu, &lstm_cell, &gru_cell, &rnn_cell})
      m->to(dtype);
    const fp::TensorView x2 = x.i(0);
    const fp::Tensor h = drawn({2, 5}, 8, dtype);
    EXPECT_PYTHON(doubles(std::get<0>(lstm(x))), expected.at(0));
    EXPECT_PYTHON(doubles(std::get<1>(std::get<1>(lstm(x)))), expected.at(1));
    EXPECT_PYTHON(doubles(std::get<0>(gru(x))), expected.at(2));
    EXPECT_PYTHON(doubles(std::get<1>(gru(x))), expected.at(3));
    EXPECT_PYTHON(doubles(std::get<0>(tanh(x))), expected.at(4));
    EXPECT_PYTHON(doubles(std::get<1>(relu(x))), expected.at(5));
    EXPECT_PYTHON(doubles(std::get<1>(lstm_cell(x2, fp::nn::LSTM::StateView{h, h}))),
                  expected.at(6));
    EXPECT_PYTHON(doubles(gru_cell(x2, h)), expected.at(7));
    EXPECT_PYTHON(doubles(rnn_cell(x2)), expected.at(8));
    EXPECT_PYTHON(doubles(rnn_cell(x2.i(1), h.i(0))), expected.at(9));
    EXPECT_EQ(std::get<0>(lstm(x)).dtype(), dtype);
  }
}

TEST(GRU, KeysAndInitialState) {
  /*
  #|PYTHON
  m = filled(nn.GRU(2, 3, num_layers=2, bidirectional=True, batch_first=True))
  x = drawn((2, 4, 2), 9)
  h0 = drawn((4, 2, 3), 10)
  out, h = m(x, h0)
  */
  const auto m =
      filled(fp::nn::GRU(2, 3, {.num_layers = 2, .batch_first = true, .bidirectional = true}));
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{
                "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
                "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse", "weight_ih_l1",
                "weight_hh_l1", "bias_ih_l1", "bias_hh_l1", "weight_ih_l1_reverse",
                "weight_hh_l1_reverse", "bias_ih_l1_reverse",
                "bias_hh_l1_reverse"}));  // #PYTHON list(m.state_dict().keys())
  const fp::Tensor x = drawn({2, 4, 2}, 9), h0 = drawn({4, 2, 3}, 10);
  auto [out, h] = m(x, h0);
  EXPECT_PYTHON(doubles(out), truth<std::vector<double>>("doubles(out)"));
  EXPECT_PYTHON(doubles(h), truth<std::vector<double>>("doubles(h)"));
}

TEST(RNN, KeysUnbatchedAndInitialState) {
  /*
  #|PYTHON
  m = filled(nn.RNN(2, 3, nonlinearity="relu", num_layers=3))
  x = drawn((4, 2), 11)
  h0 = drawn((3, 3), 12)
  out, h = m(x, h0)
  */
  const auto m = filled(fp::nn::RNN(2, 3, {.num_layers = 3, .nonlinearity = "relu"}));
  EXPECT_EQ(keys(m), (std::vector<std::string>{
                         "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l1",
                         "weight_hh_l1", "bias_ih_l1", "bias_hh_l1", "weight_ih_l2", "weight_hh_l2",
                         "bias_ih_l2", "bias_hh_l2"}));  // #PYTHON list(m.state_dict().keys())
  const fp::Tensor x = drawn({4, 2}, 11), h0 = drawn({3, 3}, 12);
  auto [out, h] = m(x, h0);
  EXPECT_EQ(shape(h), (std::vector<int64_t>{3, 3}));  // #PYTHON list(h.shape)
  EXPECT_PYTHON(doubles(out), truth<std::vector<double>>("doubles(out)"));
  EXPECT_PYTHON(doubles(h), truth<std::vector<double>>("doubles(h)"));
}

TEST(PackedSequence, PackPadAndUnpackLikePython) {
  /*
  #|PYTHON
  a = drawn((4, 3), 13)
  b = drawn((2, 3), 14)
  c = drawn((3, 3), 15)
  padded = rnn_utils.pad_sequence([a, b, c], batch_first=True, padding_value=-1.5)
  left = rnn_utils.pad_sequence([a, b, c], padding_side="left")
  packed = rnn_utils.pack_padded_sequence(padded, [4, 2, 3], batch_first=True,
                                          enforce_sorted=False)
  back, lengths = rnn_utils.pad_packed_sequence(packed, batch_first=True, total_length=6,
                                                padding_value=2.0)
  seq = rnn_utils.pack_sequence([a, c, b])
  unpacked = rnn_utils.unpack_sequence(packed)
  */
  const fp::Tensor a = drawn({4, 3}, 13), b = drawn({2, 3}, 14), c = drawn({3, 3}, 15);
  const fp::Tensor padded = rnn::pad_sequence(std::vector<fp::Tensor>{a, b, c},
                                              {.batch_first = true, .padding_value = -1.5});
  EXPECT_EQ(shape(padded), (std::vector<int64_t>{3, 4, 3}));  // #PYTHON list(padded.shape)
  EXPECT_PYTHON(doubles(padded), truth<std::vector<double>>("doubles(padded)"));
  const fp::Tensor left =
      rnn::pad_sequence(std::vector<fp::Tensor>{a, b, c}, {.padding_side = "left"});
  EXPECT_PYTHON(doubles(left), truth<std::vector<double>>("doubles(left)"));

  const rnn::PackedSequence packed =
      rnn::pack_padded_sequence(padded, {4, 2, 3}, {.batch_first = true, .enforce_sorted = false});
  EXPECT_PYTHON(doubles(packed.data), truth<std::vector<double>>("doubles(packed.data)"));
  EXPECT_EQ(packed.batch_sizes.to_vector<int64_t>(),
            (std::vector<int64_t>{3, 3, 2, 1}));  // #PYTHON packed.batch_sizes.tolist()
  EXPECT_EQ(packed.sorted_indices.to_vector<int64_t>(),
            (std::vector<int64_t>{0, 2, 1}));  // #PYTHON packed.sorted_indices.tolist()
  EXPECT_EQ(packed.unsorted_indices.to_vector<int64_t>(),
            (std::vector<int64_t>{0, 2, 1}));  // #PYTHON packed.unsorted_indices.tolist()

  auto [back, lengths] = rnn::pad_packed_sequence(
      packed, {.batch_first = true, .padding_value = 2.0, .total_length = 6});
  EXPECT_EQ(shape(back), (std::vector<int64_t>{3, 6, 3}));     // #PYTHON list(back.shape)
  EXPECT_EQ(strides(back), (std::vector<int64_t>{18, 3, 1}));  // #PYTHON list(back.stride())
  EXPECT_PYTHON(doubles(back), truth<std::vector<double>>("doubles(back)"));
  EXPECT_EQ(lengths.to_vector<int64_t>(),
            (std::vector<int64_t>{4, 2, 3}));  // #PYTHON lengths.tolist()
  EXPECT_EQ(lengths.dtype(), fp::DType::I64);  // #PYTHON lengths.dtype

  const rnn::PackedSequence seq = rnn::pack_sequence(std::vector<fp::Tensor>{a, c, b});
  EXPECT_PYTHON(doubles(seq.data), truth<std::vector<double>>("doubles(seq.data)"));
  EXPECT_FALSE(seq.sorted_indices.is_defined());
  const std::vector<fp::Tensor> unpacked = rnn::unpack_sequence(packed);
  ASSERT_EQ(unpacked.size(), 3u);
  EXPECT_PYTHON(doubles(unpacked[1]), truth<std::vector<double>>("doubles(unpacked[1])"));
  EXPECT_EQ(shape(unpacked[2]), (std::vector<int64_t>{3, 3}));  // #PYTHON list(unpacked[2].shape)
}

TEST(PackedSequence, RecurrentLayersTakeAndReturnIt) {
  /*
  #|PYTHON
  x = drawn((5, 3, 2), 16)
  lengths = torch.tensor([3, 5, 2])
  packed = rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=False)
  lstm = filled(nn.LSTM(2, 4, num_layers=2, bidirectional=True, proj_size=3))
  out, (h, c) = lstm(packed)
  padded_out, out_lengths = rnn_utils.pad_packed_sequence(out)
  h0 = drawn((4, 3, 3), 17)
  c0 = drawn((4, 3, 4), 18)
  out_given, (h_given, c_given) = lstm(packed, (h0, c0))
  gru = filled(nn.GRU(2, 4))
  gru_out, gru_h = gru(packed, drawn((1, 3, 4), 19))
  rnn = filled(nn.RNN(2, 4, bidirectional=True))
  rnn_out, rnn_h = rnn(rnn_utils.pack_sequence([x[:, 1], x[:3, 0]]))
  */
  const fp::Tensor x = drawn({5, 3, 2}, 16);
  const rnn::PackedSequence packed =
      rnn::pack_padded_sequence(x, fp::tensor({3L, 5L, 2L}), {.enforce_sorted = false});
  const auto lstm =
      filled(fp::nn::LSTM(2, 4, {.num_layers = 2, .bidirectional = true, .proj_size = 3}));
  auto [out, state] = lstm(packed);
  EXPECT_PYTHON(doubles(out.data), truth<std::vector<double>>("doubles(out.data)"));
  EXPECT_EQ(out.unsorted_indices.to_vector<int64_t>(),
            (std::vector<int64_t>{1, 0, 2}));  // #PYTHON out.unsorted_indices.tolist()
  EXPECT_PYTHON(doubles(std::get<0>(state)), truth<std::vector<double>>("doubles(h)"));
  EXPECT_PYTHON(doubles(std::get<1>(state)), truth<std::vector<double>>("doubles(c)"));
  auto [padded_out, out_lengths] = rnn::pad_packed_sequence(out);
  EXPECT_PYTHON(doubles(padded_out), truth<std::vector<double>>("doubles(padded_out)"));
  const fp::Tensor h0 = drawn({4, 3, 3}, 17), c0 = drawn({4, 3, 4}, 18);
  auto [out_given, state_given] = lstm(packed, fp::nn::LSTM::StateView{h0, c0});
  EXPECT_PYTHON(doubles(out_given.data), truth<std::vector<double>>("doubles(out_given.data)"));
  EXPECT_PYTHON(doubles(std::get<1>(state_given)), truth<std::vector<double>>("doubles(c_given)"));

  const auto gru = filled(fp::nn::GRU(2, 4));
  auto [gru_out, gru_h] = gru(packed, drawn({1, 3, 4}, 19));
  EXPECT_PYTHON(doubles(gru_out.data), truth<std::vector<double>>("doubles(gru_out.data)"));
  EXPECT_PYTHON(doubles(gru_h), truth<std::vector<double>>("doubles(gru_h)"));
  const auto rnn_layer = filled(fp::nn::RNN(2, 4, {.bidirectional = true}));
  const fp::Tensor first{x.i(fp::all, 1)}, second{x.i(fp::slice(0, 3), 0)};
  auto [rnn_out, rnn_h] = rnn_layer(rnn::pack_sequence(std::vector<fp::Tensor>{first, second}));
  EXPECT_PYTHON(doubles(rnn_out.data), truth<std::vector<double>>("doubles(rnn_out.data)"));
  EXPECT_PYTHON(doubles(rnn_h), truth<std::vector<double>>("doubles(rnn_h)"));
}

TEST(RecurrentCells, KeysBatchedAndUnbatched) {
  /*
  #|PYTHON
  lstm = filled(nn.LSTMCell(3, 4))
  gru = filled(nn.GRUCell(3, 4, bias=False))
  rnn = filled(nn.RNNCell(3, 4))
  x = drawn((2, 3), 20)
  h = drawn((2, 4), 21)
  lh, lc = lstm(x)
  lh1, lc1 = lstm(x[0], (h[0], h[1]))
  gh = gru(x, h)
  rh = rnn(x[1])
  */
  const auto lstm = filled(fp::nn::LSTMCell(3, 4));
  const auto gru = filled(fp::nn::GRUCell(3, 4, {.bias = false}));
  const auto rnn_cell = filled(fp::nn::RNNCell(3, 4));
  EXPECT_EQ(keys(lstm),
            (std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih",
                                      "bias_hh"}));  // #PYTHON list(lstm.state_dict().keys())
  EXPECT_EQ(keys(gru), (std::vector<std::string>{
                           "weight_ih", "weight_hh"}));  // #PYTHON list(gru.state_dict().keys())
  const fp::Tensor x = drawn({2, 3}, 20), h = drawn({2, 4}, 21);
  auto [lh, lc] = lstm(x);
  EXPECT_PYTHON(doubles(lh), truth<std::vector<double>>("doubles(lh)"));
  EXPECT_PYTHON(doubles(lc), truth<std::vector<double>>("doubles(lc)"));
  auto [lh1, lc1] = lstm(x.i(0), fp::nn::LSTM::StateView{h.i(0), h.i(1)});
  EXPECT_EQ(shape(lh1), (std::vector<int64_t>{4}));  // #PYTHON list(lh1.shape)
  EXPECT_PYTHON(doubles(lc1), truth<std::vector<double>>("doubles(lc1)"));
  EXPECT_PYTHON(doubles(gru(x, h)), truth<std::vector<double>>("doubles(gh)"));
  EXPECT_PYTHON(doubles(rnn_cell(x.i(1))), truth<std::vector<double>>("doubles(rh)"));
  // A cell whose forward returns one tensor runs in a Sequential.
  fp::nn::Sequential seq{filled(fp::nn::RNNCell(3, 4))};
  EXPECT_PYTHON(doubles(seq(x)), doubles(rnn_cell(x)));
}

TEST(RecurrentErrors, BadInputIsRefusedWithPythonsWords) {
  const fp::nn::LSTM lstm(3, 4, {.num_layers = 2});
  const fp::Tensor x = drawn({5, 2, 3}, 1);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::LSTM: LSTM: Expected input to be 2D or 3D, got 4D instead",
                  lstm(drawn({1, 5, 2, 3}, 1)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::LSTM: input.size(-1) must be equal to input_size. Expected 3, got 2",
                  lstm(drawn({5, 2, 2}, 1)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::LSTM: RNN input dtype (torch.float64) does not match weight dtype "
                  "(torch.float32). Convert input: input.to(torch.float32), or convert model: "
                  "model.to(torch.float64)",
                  lstm(x.to(fp::DType::F64)));
  const fp::Tensor h = drawn({2, 2, 4}, 2), wrong = drawn({2, 3, 4}, 3);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::LSTM: Expected hidden[1] size (2, 2, 4), got [2, 3, 4]",
                  lstm(x, fp::nn::LSTM::StateView{h, wrong}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::LSTM: For batched 3-D input, hx and cx should also be 3-D but got "
                  "(2-D, 3-D) tensors",
                  lstm(x, fp::nn::LSTM::StateView{h.i(0), h}));
  const fp::nn::GRU gru(3, 4);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::GRU: Expected hidden size (1, 2, 4), got [1, 2, 5]",
                  gru(x, drawn({1, 2, 5}, 4)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::GRU: For unbatched 2-D input, hx should also be 2-D but got 3-D tensor",
                  gru(x.i(0), drawn({1, 2, 4}, 4)));
  const fp::nn::RNN rnn_layer(3, 4);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::RNN: RNN: Expected input to be 2D or 3D, got 1D tensor instead",
                  rnn_layer(x.i(0, 0)));
  const fp::nn::GRUCell cell(3, 4);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::GRUCell: GRUCell: Expected input to be 1D or 2D, got 3D instead",
                  cell(x));
  const fp::nn::LSTMCell lstm_cell(3, 4);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::LSTMCell: LSTMCell: Expected hx[1] to be 1D or 2D, got 3D instead",
                  lstm_cell(x.i(0), fp::nn::LSTM::StateView{h.i(0), h}));
  // libtorch's own checks come through with its message.
  EXPECT_TORCH_ERROR("hidden", cell(x.i(0), drawn({2, 5}, 4)));
  // A module path in front when the layer runs inside a model.
  fp::nn::ModuleDict model;
  model.insert("encoder", fp::nn::LSTM(3, 4));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn::LSTM: input.size(-1)",
                  model.at<fp::nn::LSTM>("encoder")(drawn({5, 2, 2}, 1)));
}

TEST(RecurrentErrors, ConstructorsCheckLikePython) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::LSTM: proj_size has to be smaller than hidden_size",
                  fp::nn::LSTM(3, 4, {.proj_size = 4}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::GRU: dropout should be a number in range [0, 1] representing the "
                  "probability of an element being zeroed",
                  fp::nn::GRU(3, 4, {.dropout = 1.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::RNN: Unknown nonlinearity 'gelu'. Select from 'tanh' or 'relu'.",
                  fp::nn::RNN(3, 4, {.nonlinearity = "gelu"}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn::RNN: hidden_size must be greater than zero",
                  fp::nn::RNN(3, 0));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::nn::utils::rnn::pad_packed_sequence: Expected total_length to be at least "
      "the length of the longest sequence in input, but got total_length=1 and max "
      "sequence length being 2",
      rnn::pad_packed_sequence(rnn::pack_sequence(std::vector<fp::Tensor>{drawn({2, 1}, 1)}),
                               {.total_length = 1}));
}

TEST(RecurrentErrors, DropoutIsOffInEvalMode) {
  /*
  #|PYTHON
  m = filled(nn.GRU(2, 3, num_layers=3, dropout=0.5)).eval()
  x = drawn((4, 1, 2), 22)
  out, h = m(x)
  */
  const auto m = filled(fp::nn::GRU(2, 3, {.num_layers = 3, .dropout = 0.5}));
  auto [out, h] = m(drawn({4, 1, 2}, 22));
  EXPECT_PYTHON(doubles(out), truth<std::vector<double>>("doubles(out)"));
}

}  // namespace
