// Printing tensors exactly as Python's `repr(tensor)` does, and the print
// options that shape it (Python: torch.set_printoptions).
//
//     std::cout << fp::tensor({{1.5f, 2.f}, {3.f, 4.f}});
//     // tensor([[1.5000, 2.0000],
//     //         [3.0000, 4.0000]])
//
// The text is byte for byte what PyTorch prints for the same tensor: the same
// number format (fixed, scientific, or integral-valued floats as `1.`), the
// same summary of large tensors with `...`, the same line wrapping and the
// same suffixes (`dtype=...` for non-default dtypes, `device='cuda:0'`,
// `size=(0, 3)` for empty tensors, `tensor(..., device='meta', size=(2, 3))`).
// https://pytorch.org/docs/stable/generated/torch.set_printoptions.html
//
// Where Python has no answer, flash_powder picks one:
//   - an undefined tensor (default-constructed or moved from) prints as
//     `tensor(undefined)`;
//   - a 0-dim float4_e2m1fn_x2 tensor (Python raises) prints its byte as an
//     N-dim one does, e.g. `tensor(3., dtype=torch.float4_e2m1fn_x2)`;
//   - `requires_grad=True` and `grad_fn=<...>` never appear: the stable C ABI
//     cannot ask a tensor for them, and flash_powder runs inference only.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "flash_powder/core/tensor.h"

namespace fp {

/// How tensors print. The defaults are PyTorch's. Python: the keyword
/// arguments of `torch.set_printoptions` (profile="default").
/// https://pytorch.org/docs/stable/generated/torch.set_printoptions.html
struct PrintOptions {
  /// Digits after the decimal point of floating-point values (0..1000).
  int precision = 4;
  /// Tensors with more elements than this print summarised: only `edgeitems`
  /// at the start and end of each dimension, with `...` between (>= 0).
  std::int64_t threshold = 1000;
  /// Items kept at each end of a summarised dimension (>= 0). 0 prints a
  /// summarised tensor as `[...]`, and every non-empty tensor gets `size=(...)`.
  std::int64_t edgeitems = 3;
  /// Characters per line before a row of elements wraps (>= 1).
  int linewidth = 80;
  /// true: always scientific notation; false: never; unset: PyTorch's choice
  /// (scientific when the largest and smallest nonzero magnitudes are more
  /// than 1000 apart, above 1e8 or below 1e-4).
  std::optional<bool> sci_mode{};

  /// Equal when every field is.
  friend bool operator==(const PrintOptions&, const PrintOptions&) = default;
};

/// Replaces the options every later print uses, in every thread. Unlike Python,
/// every field is set (start from get_printoptions() to change one). Throws
/// fp::Error, changing nothing, when a field is out of its range.
/// Thread-safe: a print running meanwhile sees the old or the new options
/// whole, never a mixture. Python: `torch.set_printoptions(...)`.
/// https://pytorch.org/docs/stable/generated/torch.set_printoptions.html
void set_printoptions(const PrintOptions& options);

/// The options prints use now. Python: `torch._tensor_str.get_printoptions()`.
PrintOptions get_printoptions();

/// The text Python's `repr(tensor)` gives for the same tensor (a copy of the
/// printed elements is read, from any device). Accepts Tensor, TensorView and
/// TensorMutView. Python: `repr(tensor)` / `str(tensor)`.
/// https://pytorch.org/docs/stable/tensors.html
std::string to_string(const detail::TensorBase& tensor);

/// Writes to_string(tensor). Python: `print(tensor)`.
std::ostream& operator<<(std::ostream& out, const detail::TensorBase& tensor);

}  // namespace fp
