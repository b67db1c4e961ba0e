// The ops flash_powder's layers call with a `str` argument, without sending
// the string through torch_call_dispatcher (string_free.h says why and how).
#include "aten/string_free.h"

#include <array>
#include <atomic>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "abi/direct.h"
#include "abi/scalar_shims.h"
#include "aten/torch_refusal.h"
#include "flash_powder/abi/runtime.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/detail/tensor_access.h"
#include "flash_powder/core/operators.h"

namespace fp::aten::detail {
namespace {

using fp::detail::TensorAccess;

// 0: as the loaded torch needs, 1: forced off, 2: forced on.
std::atomic<int> forced{0};

abi::TensorHandle handle_of(Tensor&& tensor) noexcept {
  return TensorAccess::release(std::move(tensor));
}

/// `tensor` in `dtype`: itself when it has it already.
Tensor converted(const TensorArg& tensor, DType dtype) {
  if (abi::dtype(tensor.raw()) == dtype) return Tensor(abi::share(tensor.raw()));
  return aten::_to_copy(tensor, dtype);
}

/// The dtypes whose gelu the route gives bit for bit. Not bfloat16: there the
/// copy inside `_addmm_activation` canonicalises a NaN input's payload where
/// gelu's vector loop keeps it (lengths 16-31 with AVX-512), so a NaN's bits
/// could differ.
bool is_gelu_dtype(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16;
}

/// The value of an `int[N]` argument at `i`: one number stands for all.
std::int64_t expanded(IntList values, std::size_t i) {
  return values.size() == 1 ? values[0] : values[i];
}

Tensor numeric_conv(std::int64_t spatial_dims, const TensorArg& input, const TensorArg& weight,
                    const std::optional<TensorArg>& bias, IntList stride, IntList padding,
                    IntList dilation, std::int64_t groups) {
  switch (spatial_dims) {
    case 1:
      return aten::conv1d(input, weight, bias, stride, padding, dilation, groups);
    case 2:
      return aten::conv2d(input, weight, bias, stride, padding, dilation, groups);
    default:
      return aten::conv3d(input, weight, bias, stride, padding, dilation, groups);
  }
}

}  // namespace

bool string_free_routes_enabled() noexcept {
  const int force = forced.load(std::memory_order_relaxed);
  return force == 0 ? torch_leaks_string_arguments() : force == 2;
}

void force_string_free_routes(std::optional<bool> on) noexcept {
  forced.store(!on ? 0 : (*on ? 2 : 1), std::memory_order_relaxed);
}

abi::TensorHandle string_free_gelu(const TensorArg& self, std::string_view approximate) {
  if (!string_free_routes_enabled() || approximate != "none") return {};
  const abi::RawTensor x = self.raw();
  if (!abi::all_plain_cpu({x}) || !abi::is_contiguous(x) || !is_gelu_dtype(abi::dtype(x))) {
    return {};
  }
  const std::int64_t n = abi::numel(x);
  if (n == 0) return {};
  const DType dtype = abi::dtype(x);
  const std::array<std::int64_t, 2> row_sizes{1, n};
  const std::array<std::int64_t, 2> row_strides{n, 1};
  const abi::TensorHandle row = abi::reinterpret(x, row_sizes, row_strides, 0);
  const std::array<std::int64_t, 2> left_sizes{1, 0};
  const std::array<std::int64_t, 2> right_sizes{0, n};
  const abi::TensorHandle left = abi::empty_strided(left_sizes, row_strides, dtype, Device::cpu());
  const abi::TensorHandle right =
      abi::empty_strided(right_sizes, row_strides, dtype, Device::cpu());
  abi::RawTensor raw = nullptr;
  abi::check(abi::scalar_shims(DeviceType::CPU)
                 ->addmm_activation(row.get(), left.get(), right.get(), 1.0, 1.0, 1, &raw),
             "aten::gelu");
  const abi::TensorHandle result(raw);
  const auto sizes = abi::sizes(x);
  return abi::reinterpret(result.get(), sizes, fp::detail::contiguous_strides(sizes), 0);
}

abi::TensorHandle string_free_div(const TensorArg& self, const TensorArg& other,
                                  std::optional<std::string_view> rounding_mode) {
  if (!string_free_routes_enabled()) return {};
  if (rounding_mode && *rounding_mode != "floor" && *rounding_mode != "trunc") return {};
  return unless_torch_refuses([&]() -> abi::TensorHandle {
    if (!rounding_mode) return handle_of(aten::div_Tensor(self, other));
    if (*rounding_mode == "floor") return handle_of(aten::floor_divide(self, other));
    const DType common = aten::result_type_Tensor(self, other);
    if (is_floating_point(common)) {
      // The kernel computes float16 and bfloat16 in float32, then rounds.
      const bool reduced = common == DType::F16 || common == DType::BF16;
      const DType compute = reduced ? DType::F32 : common;
      Tensor truncated =
          aten::trunc(aten::div_Tensor(converted(self, compute), converted(other, compute)));
      return handle_of(reduced ? aten::_to_copy(truncated, common) : std::move(truncated));
    }
    if (is_integral(common, false)) {
      // a - fmod(a, b) is a multiple of b, so floor division is exact there.
      const Tensor a = converted(self, common);
      const Tensor b = converted(other, common);
      return handle_of(aten::floor_divide(a - aten::fmod_Tensor(a, b), b));
    }
    return {};
  });
}

bool string_free_div_(const MutableTensor& self, const TensorArg& other,
                      std::optional<std::string_view> rounding_mode) {
  const TensorArg source = TensorAccess::unchecked(self.raw());
  abi::TensorHandle result = string_free_div(source, other, rounding_mode);
  if (!result) return false;
  // What the in-place op requires of its result; where it fails, the op
  // itself says so.
  const bool fits = aten::can_cast(abi::dtype(result.get()), abi::dtype(self.raw())) &&
                    abi::sizes(result.get()).size() == abi::sizes(self.raw()).size() &&
                    std::ranges::equal(abi::sizes(result.get()), abi::sizes(self.raw()));
  if (!fits) return false;
  aten::copy_(self, Tensor(std::move(result)));
  return true;
}

abi::TensorHandle string_free_pad(const TensorArg& self, IntList pad, std::string_view mode,
                                  std::optional<double> value) {
  return abi::pad(self.raw(), pad, std::string(mode).c_str(), value, "aten::pad");
}

abi::TensorHandle string_free_conv(std::int64_t spatial_dims, const TensorArg& input,
                                   const TensorArg& weight, const std::optional<TensorArg>& bias,
                                   IntList stride, std::string_view padding, IntList dilation,
                                   std::int64_t groups) {
  if (!string_free_routes_enabled()) return {};
  const auto dims = static_cast<std::size_t>(spatial_dims);
  if (padding == "valid") {
    const std::vector<std::int64_t> zeros(dims, 0);
    return handle_of(
        numeric_conv(spatial_dims, input, weight, bias, stride, zeros, dilation, groups));
  }
  const auto weight_sizes = abi::sizes(weight.raw());
  const bool valid_lists = (stride.size() == 1 || stride.size() == dims) &&
                           (dilation.size() == 1 || dilation.size() == dims);
  if (padding != "same" || weight_sizes.size() != dims + 2 || !valid_lists) return {};
  for (std::size_t i = 0; i < dims; ++i) {
    if (expanded(stride, i) != 1) return {};  // PyTorch refuses strided "same"
  }
  // PyTorch's _convolution_same: the total padding of each dimension split in
  // two, the odd element on the right, padded beforehand (F.pad's order:
  // the last dimension first).
  std::vector<std::int64_t> left(dims);
  std::vector<std::int64_t> extra_right(2 * dims, 0);
  bool symmetric = true;
  for (std::size_t i = 0; i < dims; ++i) {
    const std::int64_t total = expanded(dilation, i) * (weight_sizes[i + 2] - 1);
    left[i] = total / 2;
    const std::int64_t delta = total - 2 * left[i];
    extra_right[2 * (dims - 1 - i) + 1] = delta;
    symmetric = symmetric && delta == 0;
  }
  if (symmetric) {
    return handle_of(
        numeric_conv(spatial_dims, input, weight, bias, stride, left, dilation, groups));
  }
  const Tensor padded(abi::pad(input.raw(), extra_right, "constant", 0.0, "aten::conv"));
  return handle_of(
      numeric_conv(spatial_dims, padded, weight, bias, stride, left, dilation, groups));
}

// --- fp::dispatch's calls ----------------------------------------------------------

namespace {

/// The captured arguments of one fp::dispatch call, read as the typed
/// wrapper's parameters; any that is not (a missing required one, another
/// type) makes the route step aside.
class Captured {
 public:
  explicit Captured(std::span<const abi::Arg> args) : args_(args) {}

  bool given(std::size_t i) const {
    return i < args_.size() && !std::holds_alternative<abi::None>(args_[i].value);
  }
  std::optional<TensorArg> tensor(std::size_t i) const {
    const auto* raw = get<abi::RawTensor>(i);
    if (raw == nullptr || *raw == nullptr) return std::nullopt;
    return TensorAccess::unchecked(*raw);
  }
  std::optional<std::string_view> text(std::size_t i) const {
    const auto* value = get<std::string>(i);
    if (value == nullptr) return std::nullopt;
    return std::string_view(*value);
  }
  std::optional<std::int64_t> integer(std::size_t i) const {
    const auto* value = get<std::int64_t>(i);
    if (value == nullptr) return std::nullopt;
    return *value;
  }
  std::optional<double> real(std::size_t i) const {
    if (const auto* value = get<double>(i)) return *value;
    if (const auto* value = get<std::int64_t>(i)) return static_cast<double>(*value);
    return std::nullopt;
  }
  /// An `int[]` argument: a list, or one number.
  std::optional<std::vector<std::int64_t>> integers(std::size_t i) const {
    if (const auto* list = get<std::vector<std::int64_t>>(i)) return *list;
    if (const auto* one = get<std::int64_t>(i)) return std::vector<std::int64_t>{*one};
    return std::nullopt;
  }

 private:
  template <class T>
  const T* get(std::size_t i) const {
    return i < args_.size() ? std::get_if<T>(&args_[i].value) : nullptr;
  }
  std::span<const abi::Arg> args_;
};

std::optional<abi::ReturnedValues> one_result(Tensor&& result) {
  abi::ReturnedValues values;
  values.push_back(abi::Returned{TensorAccess::release(std::move(result))});
  return values;
}

std::optional<abi::ReturnedValues> dispatched_conv(std::int64_t spatial_dims,
                                                   std::span<const abi::Arg> args) {
  // conv<N>d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[N] stride=1,
  //                  str padding="valid", SymInt[N] dilation=1, SymInt groups=1)
  const Captured call(args);
  const auto input = call.tensor(0);
  const auto weight = call.tensor(1);
  if (!input || !weight || args.size() > 7) return std::nullopt;
  const std::optional<TensorArg> bias = call.given(2) ? call.tensor(2) : std::nullopt;
  if (call.given(2) && !bias) return std::nullopt;
  const auto stride = call.given(3) ? call.integers(3) : std::vector<std::int64_t>{1};
  const auto padding = call.given(4) ? call.text(4) : std::string_view("valid");
  const auto dilation = call.given(5) ? call.integers(5) : std::vector<std::int64_t>{1};
  const auto groups = call.given(6) ? call.integer(6) : std::int64_t{1};
  if (!stride || !padding || !dilation || !groups) return std::nullopt;
  switch (spatial_dims) {
    case 1:
      return one_result(
          aten::conv1d_padding(*input, *weight, bias, *stride, *padding, *dilation, *groups));
    case 2:
      return one_result(
          aten::conv2d_padding(*input, *weight, bias, *stride, *padding, *dilation, *groups));
    default:
      return one_result(
          aten::conv3d_padding(*input, *weight, bias, *stride, *padding, *dilation, *groups));
  }
}

}  // namespace

std::optional<abi::ReturnedValues> dispatched_gelu(std::span<const abi::Arg> args) {
  // gelu(Tensor self, *, str approximate='none')
  const Captured call(args);
  const auto self = call.tensor(0);
  const auto approximate = call.given(1) ? call.text(1) : std::string_view("none");
  if (!self || !approximate || args.size() > 2) return std::nullopt;
  return one_result(aten::gelu(*self, *approximate));
}

std::optional<abi::ReturnedValues> dispatched_div_Tensor_mode(std::span<const abi::Arg> args) {
  // div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode)
  const Captured call(args);
  const auto self = call.tensor(0);
  const auto other = call.tensor(1);
  if (!self || !other || args.size() != 3) return std::nullopt;
  const std::optional<std::string_view> mode = call.given(2) ? call.text(2) : std::nullopt;
  if (call.given(2) && !mode) return std::nullopt;
  return one_result(aten::div_Tensor_mode(*self, *other, mode));
}

std::optional<abi::ReturnedValues> dispatched_pad(std::span<const abi::Arg> args) {
  // pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None)
  const Captured call(args);
  const auto self = call.tensor(0);
  const auto pad = call.integers(1);
  const auto mode = call.given(2) ? call.text(2) : std::string_view("constant");
  const std::optional<double> value = call.given(3) ? call.real(3) : std::nullopt;
  if (!self || !pad || !mode || (call.given(3) && !value) || args.size() > 4) return std::nullopt;
  return one_result(aten::pad(*self, *pad, *mode, value));
}

std::optional<abi::ReturnedValues> dispatched_conv1d_padding(std::span<const abi::Arg> args) {
  return dispatched_conv(1, args);
}
std::optional<abi::ReturnedValues> dispatched_conv2d_padding(std::span<const abi::Arg> args) {
  return dispatched_conv(2, args);
}
std::optional<abi::ReturnedValues> dispatched_conv3d_padding(std::span<const abi::Arg> args) {
  return dispatched_conv(3, args);
}

}  // namespace fp::aten::detail
