// Recurrent layers: torch.nn.RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell.
// https://pytorch.org/docs/stable/nn.html#recurrent-layers
//
//     fp::nn::LSTM lstm(40, 128, {.num_layers = 2, .bidirectional = true, .batch_first = true});
//     auto [output, state] = lstm(x);                 // Python: output, (h_n, c_n) = lstm(x)
//     auto [h_n, c_n] = state;
//     auto [next, next_state] = lstm(y, state);       // the state carried on
//     fp::nn::GRU gru(8, 16);
//     auto [out, h] = gru(packed);                    // a PackedSequence in, one out
//
// They run ATen's own recurrent kernels (aten::lstm, aten::gru, aten::rnn_tanh,
// aten::rnn_relu and their cells), with the parameters in PyTorch's flat order,
// so results equal Python's under torch.no_grad() in eval mode bit for bit
// (dropout between layers is off in eval mode, as in Python), on the CPU and,
// with cuDNN, on CUDA. State-dict keys are PyTorch's: `weight_ih_l0`,
// `weight_hh_l0_reverse`, `bias_ih_l1`, `weight_hr_l0` (LSTM with proj_size).
//
// Inputs are [time, batch, feature] ([batch, time, feature] with batch_first),
// or [time, feature] unbatched (then states are [layers * directions, hidden]
// and the outputs unbatched too), or a PackedSequence.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/nn/utils/rnn.h"

namespace fp::nn {

/// The keyword arguments of torch.nn.RNN, with PyTorch's defaults.
struct RNNOptions {
  /// The number of stacked layers.
  std::int64_t num_layers = 1;
  /// "tanh" or "relu".
  std::string nonlinearity = "tanh";
  /// Whether the layers have biases (`bias_ih_l*`, `bias_hh_l*`).
  bool bias = true;
  /// Inputs and outputs are [batch, time, feature] rather than [time, batch, feature].
  bool batch_first = false;
  /// Between layers in training only; kept for fidelity (0 <= dropout <= 1).
  double dropout = 0.0;
  /// Run each layer in both directions and concatenate.
  bool bidirectional = false;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};

/// The keyword arguments of torch.nn.LSTM, with PyTorch's defaults.
struct LSTMOptions {
  /// The number of stacked layers.
  std::int64_t num_layers = 1;
  /// Whether the layers have biases (`bias_ih_l*`, `bias_hh_l*`).
  bool bias = true;
  /// Inputs and outputs are [batch, time, feature] rather than [time, batch, feature].
  bool batch_first = false;
  /// Between layers in training only; kept for fidelity (0 <= dropout <= 1).
  double dropout = 0.0;
  /// Run each layer in both directions and concatenate.
  bool bidirectional = false;
  /// > 0: the hidden state is projected to this size (`weight_hr_l*`).
  std::int64_t proj_size = 0;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};

/// The keyword arguments of torch.nn.GRU, with PyTorch's defaults.
struct GRUOptions {
  /// The number of stacked layers.
  std::int64_t num_layers = 1;
  /// Whether the layers have biases (`bias_ih_l*`, `bias_hh_l*`).
  bool bias = true;
  /// Inputs and outputs are [batch, time, feature] rather than [time, batch, feature].
  bool batch_first = false;
  /// Between layers in training only; kept for fidelity (0 <= dropout <= 1).
  double dropout = 0.0;
  /// Run each layer in both directions and concatenate.
  bool bidirectional = false;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};

namespace detail {

/// What RNN, LSTM and GRU share (Python's RNNBase); use those.
class RNNBase : public ModuleBase {
 public:
  /// "LSTM", "GRU", "RNN_TANH" or "RNN_RELU".
  std::string mode;
  /// The size of each input step.
  std::int64_t input_size;
  /// The size of the hidden state.
  std::int64_t hidden_size;
  /// The number of stacked layers.
  std::int64_t num_layers;
  /// Whether the layers have biases.
  bool bias;
  /// Inputs and outputs are [batch, time, feature].
  bool batch_first;
  /// The dropout between layers (training only).
  double dropout;
  /// Whether each layer runs in both directions.
  bool bidirectional;
  /// The size of the projected hidden state of an LSTM (0: none).
  std::int64_t proj_size;

  /// The parameters in PyTorch's order (`_flat_weights`), under
  /// `flat_weights_names` (`weight_ih_l0`, `weight_hh_l0`, `bias_ih_l0`, ...).
  std::vector<Tensor> flat_weights;
  /// The names of flat_weights, in order.
  std::vector<std::string> flat_weights_names;

  void visit(Visitor& visitor) override;
  /// The parameter called `name` (e.g. "weight_ih_l0"); throws fp::Error if none is.
  Tensor& parameter(std::string_view name);
  /// The same, read-only.
  const Tensor& parameter(std::string_view name) const;

 protected:
  /// Makes the parameters of `mode` (see the members of the same names).
  RNNBase(std::string mode, std::int64_t input_size, std::int64_t hidden_size,
          std::int64_t num_layers, bool bias, bool batch_first, double dropout, bool bidirectional,
          std::int64_t proj_size, std::optional<Device> device, std::optional<DType> dtype);

  /// One call of the ATen op: `hx` (and `cx` for LSTM) already in [layers *
  /// directions, batch, size] form. Returns (output, h_n, c_n).
  struct Result {
    Tensor output, h, c;
  };
  /// 2 when bidirectional, else 1.
  std::int64_t directions() const { return bidirectional ? 2 : 1; }
  /// PyTorch's check_input and check_hidden_size; throws fp::Error in its words.
  void check_input(TensorView input, bool packed) const;
  /// Throws fp::Error with `message` unless `hx` is [layers * directions, batch, size].
  void check_hidden_size(TensorView hx, std::int64_t batch, std::int64_t size,
                         const char* message) const;
  /// Runs the layer on a padded input (3-D) or packed data (2-D, with batch_sizes).
  Result run(TensorView input, const Tensor* batch_sizes, TensorView hx,
             std::optional<TensorView> cx) const;
  /// RNN's and GRU's forward (Python's RNN.forward and GRU.forward agree).
  std::tuple<Tensor, Tensor> forward_one_state(TensorView input,
                                               std::optional<TensorView> hx) const;
  /// The same for a packed sequence.
  std::tuple<PackedSequence, Tensor> forward_one_state(const PackedSequence& input,
                                                       std::optional<TensorView> hx) const;
  /// Throws fp::Error("fp::nn::<LSTM|GRU|RNN>: <message>").
  [[noreturn]] void fail(const std::string& message) const;
};

}  // namespace detail

/// An Elman RNN with tanh or ReLU. forward returns (output, h_n).
/// https://pytorch.org/docs/stable/generated/torch.nn.RNN.html
class RNN : public detail::RNNBase {
 public:
  /// Throws fp::Error for sizes < 1, an unknown nonlinearity or a dropout
  /// outside [0, 1], with Python's messages.
  RNN(std::int64_t input_size, std::int64_t hidden_size, const RNNOptions& options = {});

  /// "tanh" or "relu".
  std::string nonlinearity;

  /// (output [time, batch, directions * hidden], h_n [layers * directions,
  /// batch, hidden]); `hx` defaults to zeros.
  std::tuple<Tensor, Tensor> forward(TensorView input,
                                     std::optional<TensorView> hx = std::nullopt) const;
  /// A PackedSequence in, a PackedSequence out (in the input's order).
  std::tuple<PackedSequence, Tensor> forward(const PackedSequence& input,
                                             std::optional<TensorView> hx = std::nullopt) const;
  FP_MODULE_CALL()
};

/// Long short-term memory. forward returns (output, (h_n, c_n)).
/// https://pytorch.org/docs/stable/generated/torch.nn.LSTM.html
class LSTM : public detail::RNNBase {
 public:
  /// Throws fp::Error for sizes < 1, proj_size < 0 or >= hidden_size, or a
  /// dropout outside [0, 1], with Python's messages.
  LSTM(std::int64_t input_size, std::int64_t hidden_size, const LSTMOptions& options = {});

  /// The state (h, c): h [layers * directions, batch, proj_size or hidden],
  /// c [layers * directions, batch, hidden].
  using State = std::tuple<Tensor, Tensor>;
  /// The state as views, for passing one in.
  using StateView = std::tuple<TensorView, TensorView>;

  /// (output, (h_n, c_n)); `hx` = (h_0, c_0) defaults to zeros. A State
  /// returned by an earlier call can be passed as it is.
  std::tuple<Tensor, State> forward(TensorView input,
                                    std::optional<StateView> hx = std::nullopt) const;
  /// A PackedSequence in, a PackedSequence out (in the input's order).
  std::tuple<PackedSequence, State> forward(const PackedSequence& input,
                                            std::optional<StateView> hx = std::nullopt) const;
  FP_MODULE_CALL()
};

/// Gated recurrent unit. forward returns (output, h_n).
/// https://pytorch.org/docs/stable/generated/torch.nn.GRU.html
class GRU : public detail::RNNBase {
 public:
  /// Throws fp::Error for sizes < 1 or a dropout outside [0, 1], with Python's messages.
  GRU(std::int64_t input_size, std::int64_t hidden_size, const GRUOptions& options = {});

  /// (output [time, batch, directions * hidden], h_n [layers * directions, batch, hidden]);
  /// `hx` defaults to zeros.
  std::tuple<Tensor, Tensor> forward(TensorView input,
                                     std::optional<TensorView> hx = std::nullopt) const;
  /// A PackedSequence in, a PackedSequence out (in the input's order).
  std::tuple<PackedSequence, Tensor> forward(const PackedSequence& input,
                                             std::optional<TensorView> hx = std::nullopt) const;
  FP_MODULE_CALL()
};

/// The keyword arguments of the cells, with PyTorch's defaults.
struct RNNCellOptions {
  /// Whether the cell has biases.
  bool bias = true;
  /// "tanh" or "relu".
  std::string nonlinearity = "tanh";
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};
/// The keyword arguments of LSTMCell and GRUCell, with PyTorch's defaults.
struct LSTMCellOptions {
  /// Whether the cell has biases.
  bool bias = true;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};
/// GRUCell's keyword arguments: those of LSTMCell.
using GRUCellOptions = LSTMCellOptions;

namespace detail {
/// What the cells share (Python's RNNCellBase): `weight_ih`, `weight_hh`,
/// `bias_ih`, `bias_hh`.
class RNNCellBase {
 public:
  /// The size of the input.
  std::int64_t input_size;
  /// The size of the hidden state.
  std::int64_t hidden_size;
  /// Whether the cell has biases.
  bool bias;
  /// [chunks * hidden_size, input_size].
  Tensor weight_ih;
  /// [chunks * hidden_size, hidden_size].
  Tensor weight_hh;
  /// [chunks * hidden_size] (undefined without bias).
  Tensor bias_ih;
  /// [chunks * hidden_size] (undefined without bias).
  Tensor bias_hh;

 protected:
  /// Makes the parameters of a cell whose gates are `chunks` (1, 3 or 4) blocks.
  RNNCellBase(const char* name, std::int64_t input_size, std::int64_t hidden_size, bool bias,
              std::int64_t chunks, std::optional<Device> device, std::optional<DType> dtype);
  /// Reports the parameters in PyTorch's order.
  void visit_parameters(Visitor& visitor);
  /// Python's checks of the input's and hidden state's rank; returns
  /// whether the input is batched.
  bool check_ranks(const char* name, TensorView input,
                   std::initializer_list<std::optional<TensorView>> states,
                   const char* state_name) const;
};
}  // namespace detail

/// One step of an Elman RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh).
/// https://pytorch.org/docs/stable/generated/torch.nn.RNNCell.html
class RNNCell : public Module, public detail::RNNCellBase {
 public:
  /// Throws fp::Error for sizes < 1 or an unknown nonlinearity, with Python's messages.
  RNNCell(std::int64_t input_size, std::int64_t hidden_size, const RNNCellOptions& options = {});
  /// "tanh" or "relu".
  std::string nonlinearity;

  void visit(Visitor& visitor) override { visit_parameters(visitor); }
  /// h' [batch, hidden] (or [hidden] for an unbatched input); hx defaults to zeros.
  Tensor forward(TensorView input) const override;
  /// The same with a hidden state (std::nullopt: zeros).
  Tensor forward(TensorView input, std::optional<TensorView> hx) const;
  FP_MODULE_CALL()
};

/// One step of an LSTM; forward returns (h', c').
/// https://pytorch.org/docs/stable/generated/torch.nn.LSTMCell.html
class LSTMCell : public ModuleBase, public detail::RNNCellBase {
 public:
  /// Throws fp::Error for sizes < 1, with Python's messages.
  LSTMCell(std::int64_t input_size, std::int64_t hidden_size, const LSTMCellOptions& options = {});

  void visit(Visitor& visitor) override { visit_parameters(visitor); }
  /// (h', c') [batch, hidden] (or [hidden] for an unbatched input); `hx` = (h, c) defaults to zeros.
  std::tuple<Tensor, Tensor> forward(
      TensorView input, std::optional<std::tuple<TensorView, TensorView>> hx = std::nullopt) const;
  FP_MODULE_CALL()
};

/// One step of a GRU.
/// https://pytorch.org/docs/stable/generated/torch.nn.GRUCell.html
class GRUCell : public Module, public detail::RNNCellBase {
 public:
  /// Throws fp::Error for sizes < 1, with Python's messages.
  GRUCell(std::int64_t input_size, std::int64_t hidden_size, const GRUCellOptions& options = {});

  void visit(Visitor& visitor) override { visit_parameters(visitor); }
  Tensor forward(TensorView input) const override;
  /// The same with a hidden state (std::nullopt: zeros).
  Tensor forward(TensorView input, std::optional<TensorView> hx) const;
  FP_MODULE_CALL()
};

}  // namespace fp::nn
