#include "flash_powder/nn/layers/rnn.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/arguments.h"
#include "flash_powder/core/factory.h"
#include "nn/messages.h"
#include "parameters.h"

// torch/nn/modules/rnn.py, step by step (eval mode).
//
// Why this file is long: RNN, GRU, LSTM and the three cells share one base
// (input checks, packed sequences, initial states, parameters), whose parts
// only make sense together.

namespace fp::nn {
namespace {

std::string torch_dtype(DType dtype) {
  return "torch." + std::string(name(dtype));
}

std::string layer_name(const std::string& mode) {
  if (mode == "LSTM" || mode == "GRU") return mode;
  return "RNN";
}

/// Python's `_apply_permutation`: hx.index_select(1, permutation) when there is one.
Tensor permuted(TensorView hx, const Tensor& permutation) {
  if (!permutation.is_defined()) return Tensor(hx);
  return aten::index_select(hx, 1, permutation);
}

/// The first batch size of a PackedSequence (its largest batch).
std::int64_t max_batch_of(const PackedSequence& input, const std::string& layer) {
  const Tensor& sizes = input.batch_sizes;
  if (!sizes.is_defined() || sizes.dim() != 1 || sizes.numel() == 0 || !sizes.device().is_cpu() ||
      sizes.dtype() != DType::I64 || !input.data.is_defined()) {
    detail::fail(layer,
                 "a PackedSequence needs data and batch_sizes (a non-empty 1-D int64 CPU "
                 "tensor); make it with pack_padded_sequence or pack_sequence");
  }
  return sizes.at<std::int64_t>({0});
}

}  // namespace

namespace detail {

RNNBase::RNNBase(std::string mode, std::int64_t input_size, std::int64_t hidden_size,
                 std::int64_t num_layers, bool bias, bool batch_first, double dropout,
                 bool bidirectional, std::int64_t proj_size, std::optional<Device> device,
                 std::optional<DType> dtype)
    : mode(std::move(mode)),
      input_size(input_size),
      hidden_size(hidden_size),
      num_layers(num_layers),
      bias(bias),
      batch_first(batch_first),
      dropout(dropout),
      bidirectional(bidirectional),
      proj_size(proj_size) {
  // Python's checks, in its order and words.
  if (!(dropout >= 0.0 && dropout <= 1.0)) {
    fail(
        "dropout should be a number in range [0, 1] representing the probability of an element "
        "being zeroed");
  }
  if (input_size <= 0) fail("input_size must be greater than zero");
  if (hidden_size <= 0) fail("hidden_size must be greater than zero");
  if (num_layers <= 0) fail("num_layers must be greater than zero");
  if (proj_size < 0) {
    fail("proj_size should be a positive integer or zero to disable projections");
  }
  if (proj_size >= hidden_size) fail("proj_size has to be smaller than hidden_size");

  std::int64_t gate_size = hidden_size;
  if (this->mode == "LSTM") gate_size = 4 * hidden_size;
  if (this->mode == "GRU") gate_size = 3 * hidden_size;
  const TensorOptions options = layer_options(dtype, device);
  // PyTorch's reset_parameters: every parameter uniform(-1/sqrt(hidden), 1/sqrt(hidden)).
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  const std::int64_t real_hidden = proj_size > 0 ? proj_size : hidden_size;
  for (std::int64_t layer = 0; layer < num_layers; ++layer) {
    for (std::int64_t direction = 0; direction < directions(); ++direction) {
      const std::int64_t layer_input = layer == 0 ? input_size : real_hidden * directions();
      const std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      const auto add = [&](const char* name, IntList sizes) {
        flat_weights_names.push_back(name + suffix);
        flat_weights.push_back(uniform_init(sizes, bound, options));
      };
      add("weight_ih", {gate_size, layer_input});
      add("weight_hh", {gate_size, real_hidden});
      if (bias) {
        add("bias_ih", {gate_size});
        add("bias_hh", {gate_size});
      }
      if (proj_size > 0) add("weight_hr", {proj_size, hidden_size});
    }
  }
}

void RNNBase::visit(Visitor& visitor) {
  for (std::size_t i = 0; i < flat_weights.size(); ++i)
    visitor.parameter(flat_weights_names[i], flat_weights[i]);
}

Tensor& RNNBase::parameter(std::string_view name) {
  for (std::size_t i = 0; i < flat_weights.size(); ++i) {
    if (flat_weights_names[i] == name) return flat_weights[i];
  }
  fail("has no parameter \"" + std::string(name) + "\"");
}

const Tensor& RNNBase::parameter(std::string_view name) const {
  return const_cast<RNNBase&>(*this).parameter(name);
}

void RNNBase::fail(const std::string& message) const {
  detail::fail(layer_name(mode), message);
}

void RNNBase::check_input(TensorView input, bool packed) const {
  const DType weight_dtype = flat_weights.front().dtype();
  if (input.dtype() != weight_dtype) {
    fail("RNN input dtype (" + torch_dtype(input.dtype()) + ") does not match weight dtype (" +
         torch_dtype(weight_dtype) + "). Convert input: input.to(" + torch_dtype(weight_dtype) +
         "), or convert model: model.to(" + torch_dtype(input.dtype()) + ")");
  }
  const std::int64_t expected = packed ? 2 : 3;
  if (input.dim() != expected) {
    fail("input must have " + std::to_string(expected) + " dimensions, got " +
         std::to_string(input.dim()));
  }
  if (input.size(-1) != input_size) {
    fail("input.size(-1) must be equal to input_size. Expected " + std::to_string(input_size) +
         ", got " + std::to_string(input.size(-1)));
  }
}

void RNNBase::check_hidden_size(TensorView hx, std::int64_t batch, std::int64_t size,
                                const char* message) const {
  const std::vector<std::int64_t> expected{num_layers * directions(), batch, size};
  if (!std::ranges::equal(hx.sizes(), expected)) {
    fail(std::string(message) + " " + tuple_text(expected) + ", got " + list_text(hx.sizes()));
  }
}

RNNBase::Result RNNBase::run(TensorView input, const Tensor* batch_sizes, TensorView hx,
                             std::optional<TensorView> cx) const {
  // PyTorch's parameters require grad, and at::linear's matmul then folds a
  // non-contiguous first-layer input into a matrix with a copy (then mm and
  // add) where it would otherwise take bmm: other roundings. So the first
  // layer's input weights go in as lazy copies that require grad, exactly
  // when that fold can happen (a padded input that is not contiguous in
  // [time, batch, feature] order). Grad mode is off, so nothing is recorded.
  std::vector<Tensor> grad_weights;
  std::vector<TensorView> weights(flat_weights.begin(), flat_weights.end());
  if (batch_sizes == nullptr) {
    const TensorView time_major = batch_first ? input.transpose(0, 1) : input;
    if (!time_major.is_contiguous()) {
      const auto per_direction = std::size_t{2} + (bias ? 2U : 0U) + (proj_size > 0 ? 1U : 0U);
      grad_weights.reserve(2);
      for (std::int64_t direction = 0; direction < directions(); ++direction) {
        const std::size_t index = static_cast<std::size_t>(direction) * per_direction;
        Tensor& weight = grad_weights.emplace_back(flat_weights[index]);
        aten::requires_grad_(weight, true);
        weights[index] = weight;
      }
    }
  }
  const TensorList params(weights);
  const bool train = false;  // eval mode: no dropout between layers
  if (mode == "LSTM") {
    auto [output, h, c] = batch_sizes != nullptr
                              ? aten::lstm_data(input, *batch_sizes, {hx, *cx}, params, bias,
                                                num_layers, dropout, train, bidirectional)
                              : aten::lstm_input(input, {hx, *cx}, params, bias, num_layers,
                                                 dropout, train, bidirectional, batch_first);
    return {std::move(output), std::move(h), std::move(c)};
  }
  using PaddedOp = std::tuple<Tensor, Tensor> (*)(TensorArg, TensorArg, const TensorList&, bool,
                                                  std::int64_t, double, bool, bool, bool);
  using PackedOp = std::tuple<Tensor, Tensor> (*)(
      TensorArg, TensorArg, TensorArg, const TensorList&, bool, std::int64_t, double, bool, bool);
  PaddedOp padded = &aten::gru_input;
  PackedOp packed = &aten::gru_data;
  if (mode == "RNN_TANH") {
    padded = &aten::rnn_tanh_input;
    packed = &aten::rnn_tanh_data;
  } else if (mode == "RNN_RELU") {
    padded = &aten::rnn_relu_input;
    packed = &aten::rnn_relu_data;
  }
  auto [output, h] =
      batch_sizes != nullptr
          ? packed(input, *batch_sizes, hx, params, bias, num_layers, dropout, train, bidirectional)
          : padded(input, hx, params, bias, num_layers, dropout, train, bidirectional, batch_first);
  return {std::move(output), std::move(h), Tensor()};
}

}  // namespace detail

std::tuple<Tensor, Tensor> detail::RNNBase::forward_one_state(TensorView input,
                                                              std::optional<TensorView> hx) const {
  const std::string name = layer_name(mode);
  if (input.dim() != 2 && input.dim() != 3) {
    fail(name + ": Expected input to be 2D or 3D, got " + std::to_string(input.dim()) + "D" +
         (name == "RNN" ? " tensor instead" : " instead"));
  }
  const bool batched = input.dim() == 3;
  const std::int64_t batch_dim = batch_first ? 0 : 1;
  const TensorView x = batched ? input : input.unsqueeze(batch_dim);
  std::optional<TensorView> h = std::move(hx);
  if (!batched && h) {
    if (h->dim() != 2) {
      fail("For unbatched 2-D input, hx should also be 2-D but got " + std::to_string(h->dim()) +
           "-D tensor");
    }
    h = h->unsqueeze(1);
  } else if (batched && h && h->dim() != 3) {
    fail("For batched 3-D input, hx should also be 3-D but got " + std::to_string(h->dim()) +
         "-D tensor");
  }
  const std::int64_t batch = x.size(batch_dim);
  Tensor zeros_state;
  if (!h) {
    zeros_state = zeros({num_layers * directions(), batch, hidden_size},
                        TensorOptions(x.dtype(), x.device()));
    h = zeros_state;
  }
  check_input(x, false);
  check_hidden_size(*h, batch, hidden_size, "Expected hidden size");
  Result result = run(x, nullptr, *h, std::nullopt);
  if (!batched) {
    return {Tensor(result.output.squeeze(batch_dim)), Tensor(result.h.squeeze(1))};
  }
  return {std::move(result.output), std::move(result.h)};
}

std::tuple<PackedSequence, Tensor> detail::RNNBase::forward_one_state(
    const PackedSequence& input, std::optional<TensorView> hx) const {
  const std::int64_t batch = max_batch_of(input, layer_name(mode));
  const Tensor h = hx ? permuted(*hx, input.sorted_indices)
                      : zeros({num_layers * directions(), batch, hidden_size},
                              TensorOptions(input.data.dtype(), input.data.device()));
  check_input(input.data, true);
  check_hidden_size(h, batch, hidden_size, "Expected hidden size");
  Result result = run(input.data, &input.batch_sizes, h, std::nullopt);
  return {PackedSequence{std::move(result.output), input.batch_sizes, input.sorted_indices,
                         input.unsorted_indices},
          permuted(result.h, input.unsorted_indices)};
}

// --- RNN ---------------------------------------------------------------------

namespace {
std::string rnn_mode(const std::string& nonlinearity) {
  if (nonlinearity == "tanh") return "RNN_TANH";
  if (nonlinearity == "relu") return "RNN_RELU";
  detail::fail("RNN", "Unknown nonlinearity '" + nonlinearity + "'. Select from 'tanh' or 'relu'.");
}
}  // namespace

RNN::RNN(std::int64_t input_size, std::int64_t hidden_size, const RNNOptions& options)
    : RNNBase(rnn_mode(options.nonlinearity), input_size, hidden_size, options.num_layers,
              options.bias, options.batch_first, options.dropout, options.bidirectional, 0,
              options.device, options.dtype),
      nonlinearity(options.nonlinearity) {}

std::tuple<Tensor, Tensor> RNN::forward(TensorView input, std::optional<TensorView> hx) const {
  return forward_one_state(input, std::move(hx));
}

std::tuple<PackedSequence, Tensor> RNN::forward(const PackedSequence& input,
                                                std::optional<TensorView> hx) const {
  return forward_one_state(input, std::move(hx));
}

// --- GRU ---------------------------------------------------------------------

GRU::GRU(std::int64_t input_size, std::int64_t hidden_size, const GRUOptions& options)
    : RNNBase("GRU", input_size, hidden_size, options.num_layers, options.bias, options.batch_first,
              options.dropout, options.bidirectional, 0, options.device, options.dtype) {}

std::tuple<Tensor, Tensor> GRU::forward(TensorView input, std::optional<TensorView> hx) const {
  return forward_one_state(input, std::move(hx));
}

std::tuple<PackedSequence, Tensor> GRU::forward(const PackedSequence& input,
                                                std::optional<TensorView> hx) const {
  return forward_one_state(input, std::move(hx));
}

// --- LSTM --------------------------------------------------------------------

LSTM::LSTM(std::int64_t input_size, std::int64_t hidden_size, const LSTMOptions& options)
    : RNNBase("LSTM", input_size, hidden_size, options.num_layers, options.bias,
              options.batch_first, options.dropout, options.bidirectional, options.proj_size,
              options.device, options.dtype) {}

std::tuple<Tensor, LSTM::State> LSTM::forward(TensorView input, std::optional<StateView> hx) const {
  if (input.dim() != 2 && input.dim() != 3) {
    fail("LSTM: Expected input to be 2D or 3D, got " + std::to_string(input.dim()) + "D instead");
  }
  const bool batched = input.dim() == 3;
  const std::int64_t batch_dim = batch_first ? 0 : 1;
  const TensorView x = batched ? input : input.unsqueeze(batch_dim);
  const std::int64_t batch = x.size(batch_dim);
  const std::int64_t real_hidden = proj_size > 0 ? proj_size : hidden_size;
  Tensor h, c;
  if (!hx) {
    const TensorOptions options(x.dtype(), x.device());
    h = zeros({num_layers * directions(), batch, real_hidden}, options);
    c = zeros({num_layers * directions(), batch, hidden_size}, options);
  } else {
    const TensorView& h0 = std::get<0>(*hx);
    const TensorView& c0 = std::get<1>(*hx);
    const std::int64_t rank = batched ? 3 : 2;
    if (h0.dim() != rank || c0.dim() != rank) {
      fail(std::string(batched ? "For batched 3-D input, hx and cx should also be 3-D"
                               : "For unbatched 2-D input, hx and cx should also be 2-D") +
           " but got (" + std::to_string(h0.dim()) + "-D, " + std::to_string(c0.dim()) +
           "-D) tensors");
    }
    h = batched ? Tensor(h0) : Tensor(h0.unsqueeze(1));
    c = batched ? Tensor(c0) : Tensor(c0.unsqueeze(1));
  }
  check_input(x, false);
  check_hidden_size(h, batch, real_hidden, "Expected hidden[0] size");
  check_hidden_size(c, batch, hidden_size, "Expected hidden[1] size");
  Result result = run(x, nullptr, h, TensorView(c));
  if (!batched) {
    return {Tensor(result.output.squeeze(batch_dim)),
            State{Tensor(result.h.squeeze(1)), Tensor(result.c.squeeze(1))}};
  }
  return {std::move(result.output), State{std::move(result.h), std::move(result.c)}};
}

std::tuple<PackedSequence, LSTM::State> LSTM::forward(const PackedSequence& input,
                                                      std::optional<StateView> hx) const {
  const std::int64_t batch = max_batch_of(input, "LSTM");
  const std::int64_t real_hidden = proj_size > 0 ? proj_size : hidden_size;
  Tensor h, c;
  if (!hx) {
    const TensorOptions options(input.data.dtype(), input.data.device());
    h = zeros({num_layers * directions(), batch, real_hidden}, options);
    c = zeros({num_layers * directions(), batch, hidden_size}, options);
  } else {
    h = permuted(std::get<0>(*hx), input.sorted_indices);
    c = permuted(std::get<1>(*hx), input.sorted_indices);
  }
  // Python checks only an input it was not given packed; libtorch would
  // check the rest in other words.
  check_input(input.data, true);
  check_hidden_size(h, batch, real_hidden, "Expected hidden[0] size");
  check_hidden_size(c, batch, hidden_size, "Expected hidden[1] size");
  Result result = run(input.data, &input.batch_sizes, h, TensorView(c));
  return {PackedSequence{std::move(result.output), input.batch_sizes, input.sorted_indices,
                         input.unsorted_indices},
          State{permuted(result.h, input.unsorted_indices),
                permuted(result.c, input.unsorted_indices)}};
}

// --- cells -------------------------------------------------------------------

namespace detail {

RNNCellBase::RNNCellBase(const char* name, std::int64_t input_size, std::int64_t hidden_size,
                         bool bias, std::int64_t chunks, std::optional<Device> device,
                         std::optional<DType> dtype)
    : input_size(input_size), hidden_size(hidden_size), bias(bias) {
  if (input_size < 0 || hidden_size < 0) {
    detail::fail(name, "input_size and hidden_size must not be negative");
  }
  const TensorOptions options = layer_options(dtype, device);
  const double bound = hidden_size > 0 ? 1.0 / std::sqrt(static_cast<double>(hidden_size)) : 0.0;
  weight_ih = uniform_init({chunks * hidden_size, input_size}, bound, options);
  weight_hh = uniform_init({chunks * hidden_size, hidden_size}, bound, options);
  if (bias) {
    bias_ih = uniform_init({chunks * hidden_size}, bound, options);
    bias_hh = uniform_init({chunks * hidden_size}, bound, options);
  }
}

void RNNCellBase::visit_parameters(Visitor& visitor) {
  visitor.parameter("weight_ih", weight_ih);
  visitor.parameter("weight_hh", weight_hh);
  visitor.parameter("bias_ih", bias_ih);
  visitor.parameter("bias_hh", bias_hh);
}

bool RNNCellBase::check_ranks(const char* name, TensorView input,
                              std::initializer_list<std::optional<TensorView>> states,
                              const char* state_name) const {
  if (input.dim() != 1 && input.dim() != 2) {
    detail::fail(name, std::string(name) + ": Expected input to be 1D or 2D, got " +
                           std::to_string(input.dim()) + "D instead");
  }
  int index = 0;
  for (const auto& state : states) {
    if (state && state->dim() != 1 && state->dim() != 2) {
      const std::string which = states.size() > 1
                                    ? std::string(state_name) + "[" + std::to_string(index) + "]"
                                    : std::string(state_name);
      detail::fail(name, std::string(name) + ": Expected " + which + " to be 1D or 2D, got " +
                             std::to_string(state->dim()) + "D instead");
    }
    ++index;
  }
  return input.dim() == 2;
}

}  // namespace detail

namespace {

/// One step of RNNCell or GRUCell: Python's forward around `op`.
template <class Op>
Tensor cell_step(const detail::RNNCellBase& cell, Op op, TensorView input,
                 std::optional<TensorView> hx, bool batched) {
  const TensorView x = batched ? input : input.unsqueeze(0);
  Tensor h;
  if (!hx) {
    h = zeros({x.size(0), cell.hidden_size}, TensorOptions(x.dtype(), x.device()));
  } else {
    h = batched ? Tensor(*hx) : Tensor(hx->unsqueeze(0));
  }
  Tensor result = op(x, h, cell.weight_ih, cell.weight_hh, detail::optional_view(cell.bias_ih),
                     detail::optional_view(cell.bias_hh));
  if (!batched) return Tensor(result.squeeze(0));
  return result;
}

}  // namespace

RNNCell::RNNCell(std::int64_t input_size, std::int64_t hidden_size, const RNNCellOptions& options)
    : RNNCellBase("RNNCell", input_size, hidden_size, options.bias, 1, options.device,
                  options.dtype),
      nonlinearity(options.nonlinearity) {
  if (nonlinearity != "tanh" && nonlinearity != "relu") {
    detail::fail("RNNCell", "Unknown nonlinearity: " + nonlinearity);
  }
}

Tensor RNNCell::forward(TensorView input) const {
  return forward(input, std::nullopt);
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): hx by value like every layer's forward
Tensor RNNCell::forward(TensorView input, std::optional<TensorView> hx) const {
  const bool batched = check_ranks("RNNCell", input, {hx}, "hidden");
  if (nonlinearity == "tanh") {
    return cell_step(*this, &aten::rnn_tanh_cell, input, hx, batched);
  }
  return cell_step(*this, &aten::rnn_relu_cell, input, hx, batched);
}

GRUCell::GRUCell(std::int64_t input_size, std::int64_t hidden_size, const GRUCellOptions& options)
    : RNNCellBase("GRUCell", input_size, hidden_size, options.bias, 3, options.device,
                  options.dtype) {}

Tensor GRUCell::forward(TensorView input) const {
  return forward(input, std::nullopt);
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): hx by value like every layer's forward
Tensor GRUCell::forward(TensorView input, std::optional<TensorView> hx) const {
  const bool batched = check_ranks("GRUCell", input, {hx}, "hidden");
  return cell_step(*this, &aten::gru_cell, input, hx, batched);
}

LSTMCell::LSTMCell(std::int64_t input_size, std::int64_t hidden_size,
                   const LSTMCellOptions& options)
    : RNNCellBase("LSTMCell", input_size, hidden_size, options.bias, 4, options.device,
                  options.dtype) {}

std::tuple<Tensor, Tensor> LSTMCell::forward(
    TensorView input, std::optional<std::tuple<TensorView, TensorView>> hx) const {
  std::optional<TensorView> h0, c0;
  if (hx) {
    h0 = std::get<0>(*hx);
    c0 = std::get<1>(*hx);
  }
  const bool batched = check_ranks("LSTMCell", input, {h0, c0}, "hx");
  const TensorView x = batched ? input : input.unsqueeze(0);
  Tensor h, c;
  if (!hx) {
    h = zeros({x.size(0), hidden_size}, TensorOptions(x.dtype(), x.device()));
    c = h;
  } else {
    h = batched ? Tensor(*h0) : Tensor(h0->unsqueeze(0));
    c = batched ? Tensor(*c0) : Tensor(c0->unsqueeze(0));
  }
  auto [h1, c1] = aten::lstm_cell(x, {h, c}, weight_ih, weight_hh, detail::optional_view(bias_ih),
                                  detail::optional_view(bias_hh));
  if (!batched) return {Tensor(h1.squeeze(0)), Tensor(c1.squeeze(0))};
  return {std::move(h1), std::move(c1)};
}

}  // namespace fp::nn
