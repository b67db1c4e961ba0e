// The routes around libtorch's dispatcher (abi/direct.h): which tensors may
// take them, and the C shims they call.
#include "direct.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/abi/error.h"
#include "flash_powder/abi/runtime.h"
#include "flash_powder/abi/schema.h"
#include "no_grad.h"
#include "torch_c.h"

namespace fp::abi {
namespace {

bool forced_by_environment() {
  const char* value = std::getenv("FP_FORCE_DISPATCHER");
  return value != nullptr && std::string_view(value) != "" && std::string_view(value) != "0";
}

/// Read once: the environment of a running process is not a switch.
const bool environment_forces_dispatcher = forced_by_environment();

thread_local int forcing_scopes = 0;

/// The codes of the loaded libtorch, read once.
struct Codes {
  std::int32_t strided = aoti_torch_layout_strided();
  std::int32_t cpu = aoti_torch_device_type_cpu();
  /// Indexed by dtype code: a dtype flash_powder knows (not a quantized one).
  std::array<bool, 64> known_dtype{};

  /// Read from the noexcept checks below, so it must not throw: to_code
  /// throws only for a value outside DType, and all_dtypes holds none.
  Codes() noexcept {
    try {
      for (DType dtype : all_dtypes) {
        const std::int32_t code = to_code(dtype);
        if (code >= 0 && code < static_cast<std::int32_t>(known_dtype.size())) {
          known_dtype[static_cast<std::size_t>(code)] = true;
        }
      }
    } catch (const Error&) {
      known_dtype = {};
    }
  }
};

const Codes& codes() {
  static const Codes read;
  return read;
}

bool known_dtype(RawTensor tensor) noexcept {
  std::int32_t code = -1;
  if (aoti_torch_get_dtype(tensor, &code) != AOTI_TORCH_SUCCESS) return false;
  const auto& known = codes().known_dtype;
  return code >= 0 && code < static_cast<std::int32_t>(known.size()) &&
         known[static_cast<std::size_t>(code)];
}

/// The dtype comes first: an undefined tensor's (ScalarType::Undefined) is
/// not one flash_powder knows, so no separate check for one is needed.
bool strided_known(RawTensor tensor) noexcept {
  if (tensor == nullptr || !known_dtype(tensor)) return false;
  std::int32_t layout = -1;
  return aoti_torch_get_layout(tensor, &layout) == AOTI_TORCH_SUCCESS && layout == codes().strided;
}

bool plain_cpu(RawTensor tensor) noexcept {
  if (!strided_known(tensor)) return false;
  std::int32_t type = -1;
  return aoti_torch_get_device_type(tensor, &type) == AOTI_TORCH_SUCCESS && type == codes().cpu;
}

}  // namespace

bool direct_routes_enabled() noexcept {
  return forcing_scopes == 0 && !environment_forces_dispatcher;
}

ForceDispatcher::ForceDispatcher() noexcept {
  ++forcing_scopes;
}

ForceDispatcher::~ForceDispatcher() {
  --forcing_scopes;
}

bool viewable(RawTensor tensor) noexcept {
  return strided_known(tensor);
}

bool all_plain_cpu(std::initializer_list<RawTensor> tensors) noexcept {
  return all_plain_cpu(std::span<const RawTensor>(tensors.begin(), tensors.size()));
}

bool all_plain_cpu(std::span<const RawTensor> tensors) noexcept {
  for (RawTensor tensor : tensors) {
    if (!plain_cpu(tensor)) return false;
  }
  return true;
}

TensorHandle reinterpret(RawTensor source, std::span<const std::int64_t> sizes,
                         std::span<const std::int64_t> strides, std::int64_t offset_increment) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch__reinterpret_tensor(source, static_cast<std::int64_t>(sizes.size()),
                                       sizes.data(), strides.data(), offset_increment, &result),
        "aoti_torch__reinterpret_tensor");
  return TensorHandle(result);
}

TensorHandle clone(RawTensor self, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_clone(self, &result), what);
  return TensorHandle(result);
}

TensorHandle pad(RawTensor self, std::span<const std::int64_t> pad, const char* mode,
                 std::optional<double> value, std::string_view what) {
  AtenTensorHandle result = nullptr;
  double fill = value.value_or(0.0);
  const NoGradScope no_grad;  // at::pad reaches the dispatcher's autograd layer
  check(aoti_torch_aten_pad(self, pad.data(), static_cast<std::int64_t>(pad.size()), mode,
                            value ? &fill : nullptr, &result),
        what);
  return TensorHandle(result);
}

namespace cpu {

TensorHandle contiguous_clone(RawTensor self, std::string_view what) {
  std::int64_t rank = 0;
  std::int64_t* sizes = nullptr;
  std::int32_t dtype = 0;
  check(aoti_torch_get_dim(self, &rank), what);
  check(aoti_torch_get_sizes(self, &sizes), what);
  check(aoti_torch_get_dtype(self, &dtype), what);
  // Contiguous strides as PyTorch's empty() gives them: an empty dimension
  // counts as one.
  std::array<std::int64_t, 16> inline_strides{};
  std::vector<std::int64_t> heap_strides;
  std::int64_t* strides = inline_strides.data();
  if (rank > static_cast<std::int64_t>(inline_strides.size())) {
    heap_strides.resize(static_cast<std::size_t>(rank));
    strides = heap_strides.data();
  }
  std::int64_t stride = 1;
  for (std::int64_t dim = rank - 1; dim >= 0; --dim) {
    strides[dim] = stride;
    stride *= std::max<std::int64_t>(sizes[dim], 1);
  }
  AtenTensorHandle raw = nullptr;
  check(aoti_torch_empty_strided(rank, sizes, strides, dtype, codes().cpu, 0, &raw), what);
  TensorHandle result(raw);
  check(aoti_torch_copy_(result.get(), self, /*non_blocking=*/0), what);
  return result;
}

TensorHandle mul_Tensor(RawTensor self, RawTensor other, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_mul_Tensor(self, other, &result), what);
  return TensorHandle(result);
}

TensorHandle abs(RawTensor self, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_abs(self, &result), what);
  return TensorHandle(result);
}

TensorHandle cat(std::span<const RawTensor> tensors, std::int64_t dim, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_cat(tensors.data(), static_cast<std::int64_t>(tensors.size()), dim, &result),
        what);
  return TensorHandle(result);
}

TensorHandle convolution(RawTensor input, RawTensor weight, RawTensor bias,
                         std::span<const std::int64_t> stride,
                         std::span<const std::int64_t> padding,
                         std::span<const std::int64_t> dilation, bool transposed,
                         std::span<const std::int64_t> output_padding, std::int64_t groups,
                         std::string_view what) {
  const auto length = [](std::span<const std::int64_t> list) {
    return static_cast<std::int64_t>(list.size());
  };
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_convolution(input, weight, bias == nullptr ? nullptr : &bias, stride.data(),
                                   length(stride), padding.data(), length(padding), dilation.data(),
                                   length(dilation), transposed ? 1 : 0, output_padding.data(),
                                   length(output_padding), groups, &result),
        what);
  return TensorHandle(result);
}

}  // namespace cpu
}  // namespace fp::abi
