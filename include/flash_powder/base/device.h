// fp::Device: where a tensor's memory lives, like torch.device.
//
// A vocabulary header: it depends on nothing, so every layer may use it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace fp {

/// The kind of device. Python: `torch.device(...).type`.
enum class DeviceType : std::int8_t { CPU, CUDA, Meta, XPU, MPS, PrivateUse1 };

/// A device and its index, e.g. cuda:1. Python: `torch.device`.
/// https://pytorch.org/docs/stable/tensor_attributes.html#torch-device
struct Device {
  /// The kind: CPU, CUDA, ...
  DeviceType type = DeviceType::CPU;
  /// -1 means "the current device of that type", as in `torch.device("cuda")`.
  std::int8_t index = -1;

  /// The CPU. Python: `torch.device("cpu")`.
  static constexpr Device cpu() { return {DeviceType::CPU, -1}; }
  /// CUDA device `index`. Python: `torch.device("cuda", index)`.
  static constexpr Device cuda(std::int8_t index = 0) { return {DeviceType::CUDA, index}; }
  /// Shapes and dtypes without memory. Python: `torch.device("meta")`.
  static constexpr Device meta() { return {DeviceType::Meta, -1}; }

  /// Parses "cpu", "cuda", "cuda:1", "meta", "xpu:0", "mps" like `torch.device(str)`.
  /// Throws fp::Error on anything else.
  static Device parse(std::string_view text);

  /// Whether this is the CPU.
  constexpr bool is_cpu() const { return type == DeviceType::CPU; }
  /// Whether this is a CUDA device.
  constexpr bool is_cuda() const { return type == DeviceType::CUDA; }
  /// Whether an index was given (`cuda:0`, not `cuda`).
  constexpr bool has_index() const { return index >= 0; }

  /// Like Python's `str(device)`: "cpu", "cuda:0", "meta".
  std::string str() const;

  /// Same type and index.
  friend constexpr bool operator==(const Device&, const Device&) = default;
};

/// Python's name for a device type: "cpu", "cuda", "meta", "xpu", "mps", "privateuseone".
std::string_view name(DeviceType type);

/// Prints like Python's `str(device)`.
std::ostream& operator<<(std::ostream& out, const Device& device);

}  // namespace fp
