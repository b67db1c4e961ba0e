#include "arithmetic.h"

#include <cmath>
#include <string>

#include "abi/direct.h"
#include "abi/scalar_shims.h"
#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/borrow.h"
#include "flash_powder/core/factory.h"

namespace fp::detail {
namespace {

Tensor converted_to(TensorArg tensor, DType dtype) {
  if (abi::dtype(tensor.raw()) == dtype) return Tensor(abi::share(tensor.raw()));
  return aten::_to_copy(tensor, dtype);
}

/// `a + sign * b` for integer dtypes, exactly: `_foreach_addcmul` takes its
/// multiplier as a tensor, and integer arithmetic wraps like Python's.
Tensor integer_add(TensorArg a, TensorArg b, DType result, std::int64_t sign) {
  const Tensor left = converted_to(a, result);
  const Tensor right = converted_to(b, result);
  const Tensor one = aten::_to_copy(tensor(std::int64_t{1}), result);
  auto sums = aten::_foreach_addcmul_Tensor({left}, {right}, {one}, fp::tensor({sign}));
  return std::move(sums.front());
}

/// `a + alpha * b` of floating or complex tensors: libtorch's CPU kernel
/// directly when both are CPU tensors (abi/direct.h), else `sub(a, b,
/// alpha=-alpha)`, which runs the same kernel with the same alpha through the
/// dispatcher. A failure is reported by the dispatcher route, in its words.
abi::TensorHandle add_scaled(abi::RawTensor a, abi::RawTensor b, double alpha, const char* what) {
  if (abi::direct_routes_enabled() && abi::all_plain_cpu({a, b})) {
    abi::RawTensor sum = nullptr;
    // A failure (shapes that do not broadcast, ...) is reported by the route
    // below, in the dispatcher's words.
    if (abi::scalar_shims(DeviceType::CPU)->add_Tensor(a, b, alpha, &sum) == 0) {
      return abi::TensorHandle(sum);
    }
  }
  return abi::subtract(a, b, -alpha, what);
}

/// torch.result_type(a, b) of operands of these dtypes, without a
/// dispatcher call when they agree.
DType result_type(TensorArg a, DType a_type, TensorArg b, DType b_type) {
  return a_type == b_type ? a_type : aten::result_type_Tensor(a, b);
}

}  // namespace

Tensor add(TensorArg a, TensorArg b) {
  const DType a_type = abi::dtype(a.raw());
  const DType b_type = abi::dtype(b.raw());
  const DType result = result_type(a, a_type, b, b_type);
  // bool + bool is logical or in PyTorch.
  if (result == DType::Bool) return aten::logical_or(a, b);
  if (is_integral(result)) return integer_add(a, b, result, 1);
  // a - (-1) * b is exactly a + b: libtorch turns sub into add with -alpha.
  // sub refuses bool operands, so those become 0/1 of the result dtype first,
  // which is what add computes with anyway.
  const bool a_bool = a_type == DType::Bool;
  const bool b_bool = b_type == DType::Bool;
  if (!a_bool && !b_bool) return Tensor(add_scaled(a.raw(), b.raw(), 1.0, "add"));
  const Tensor left = a_bool ? converted_to(a, result) : Tensor(abi::share(a.raw()));
  const Tensor right = b_bool ? converted_to(b, result) : Tensor(abi::share(b.raw()));
  return Tensor(add_scaled(left.raw(), right.raw(), 1.0, "add"));
}

Tensor sub(TensorArg a, TensorArg b) {
  // PyTorch's sub_check, with its messages.
  const DType a_type = abi::dtype(a.raw());
  const DType b_type = abi::dtype(b.raw());
  const bool a_bool = a_type == DType::Bool;
  const bool b_bool = b_type == DType::Bool;
  if (a_bool && b_bool) {
    throw Error(
        ErrorCode::BadArgument,
        "sub: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
        "or `logical_xor()` operator instead.");
  }
  if (a_bool || b_bool) {
    throw Error(
        ErrorCode::BadArgument,
        "sub: Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
        "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  const DType result = result_type(a, a_type, b, b_type);
  if (is_integral(result)) return integer_add(a, b, result, -1);
  return Tensor(add_scaled(a.raw(), b.raw(), -1.0, "sub"));
}

Tensor number(const Scalar& value, TensorArg beside) {
  return value.as_tensor_beside(abi::dtype(beside.raw()));
}

// pow with a number exponent: libtorch's own Tensor_Scalar kernel wherever
// its backend shim takes the number as the double it is (a floating-point
// result: a float exponent, or a floating base), and the Tensor overload with
// a 0-dim exponent where the exponent is an integer of an integral base
// (integer powers are exact either way) or complex, or the device has no shim.
Tensor pow(TensorArg base, Scalar exponent) {
  const DType base_type = abi::dtype(base.raw());
  const bool integral_exponent =
      exponent.kind() == Scalar::Kind::Integer || exponent.kind() == Scalar::Kind::Bool;
  if (is_integral(base_type, true) && integral_exponent) {
    // PyTorch's check (pow.Tensor_Scalar's meta function), which the Tensor
    // overload does not make.
    if (exponent.to_int() < 0) {
      throw Error(ErrorCode::BadArgument,
                  "pow: Integers to negative integer powers are not allowed.");
    }
    return aten::pow_Tensor_Tensor(base, number(exponent, base));
  }
  const abi::ScalarShims* shims =
      abi::viewable(base.raw()) ? abi::scalar_shims(abi::device(base.raw()).type) : nullptr;
  if (shims == nullptr || exponent.kind() == Scalar::Kind::Complex) {
    return aten::pow_Tensor_Tensor(base, number(exponent, base));
  }
  abi::RawTensor powered = nullptr;
  abi::check(shims->pow_Tensor_Scalar(base.raw(), exponent.to_double(), &powered),
             "aten::pow.Tensor_Scalar");
  return Tensor(abi::TensorHandle(powered));
}

namespace {

/// Below this size the in-place route's longer call (a list op through the
/// dispatcher) costs more than the temporary it saves: about 1 us more for
/// 4 floats, even at 32 KiB, 2.4x faster at 1 MiB (one thread).
constexpr std::int64_t kInPlaceMinBytes = std::int64_t{64} * 1024;

/// Whether `self += sign * other` can run in place with the bits add + copy_
/// give (both operands the same real floating dtype on the CPU), and is
/// large enough for that to pay.
bool addable_in_place(const MutableTensor& self, TensorArg other) {
  const DType dtype = abi::dtype(self.raw());
  const bool real_floating =
      dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 || dtype == DType::BF16;
  return real_floating && abi::dtype(other.raw()) == dtype &&
         abi::all_plain_cpu({self.raw(), other.raw()}) &&
         abi::numel(self.raw()) * static_cast<std::int64_t>(element_size(dtype)) >=
             kInPlaceMinBytes;
}

/// A 0-dim 1 of `dtype` (filled, not converted: valgrind flags the
/// vectorised float-to-half conversion of a single element).
Tensor one_of(DType dtype) {
  return fp::ones({}, dtype);
}

}  // namespace

/// `self += sign * other` without a temporary: libtorch's in-place `add_`
/// takes a Scalar alpha, which cannot cross the stable ABI, but
/// `_foreach_addcmul_` takes its multiplier as a tensor. It computes
/// `self + sign * other * 1`, and multiplying by 1 or -1 is exact, so every
/// element is the correctly rounded `self + other` (or `self - other`), as in
/// add's kernel. False where that op refuses the operands (another shape,
/// overlapping memory), before writing anything: the caller then takes the
/// general route, which reports such cases in add's words.
bool add_in_place(MutableTensor self, TensorArg other, std::int64_t sign) {
  if (!addable_in_place(self, other)) return false;
  const Tensor one = one_of(abi::dtype(self.raw()));
  try {
    aten::_foreach_addcmul_Tensor_({self}, {other}, {one}, fp::tensor({sign}));
  } catch (const Error& error) {
    if (error.code() != ErrorCode::TorchError) throw;
    return false;
  }
  return true;
}

void assign_in_place(MutableTensor self, const Tensor& result, const char* operation) {
  const DType target = abi::dtype(self.raw());
  const DType computed = result.dtype();
  if (computed != target && !aten::can_cast(computed, target)) {
    throw Error(ErrorCode::BadArgument, std::string(operation) + ": result type " +
                                            std::string(scalar_type_name(computed)) +
                                            " can't be cast to the desired output type " +
                                            std::string(scalar_type_name(target)));
  }
  aten::copy_(self, result);
}

void add_assign(MutableTensor self, TensorArg other) {
  if (add_in_place(self, other, 1)) return;
  assign_in_place(self, add(TensorAccess::unchecked(self.raw()), other), "add_");
}

void sub_assign(MutableTensor self, TensorArg other) {
  if (add_in_place(self, other, -1)) return;
  assign_in_place(self, sub(TensorAccess::unchecked(self.raw()), other), "sub_");
}

namespace {

std::optional<Tensor> optional_number(const std::optional<Scalar>& value, TensorArg beside) {
  if (!value) return std::nullopt;
  return number(*value, beside);
}

std::optional<TensorArg> optional_arg(const std::optional<Tensor>& tensor) {
  if (!tensor) return std::nullopt;
  return TensorArg(*tensor);
}

[[noreturn]] void refuse_unbounded(const char* operation) {
  throw Error(ErrorCode::BadArgument,
              std::string(operation) + ": At least one of 'min' or 'max' must not be None");
}

}  // namespace

Tensor clamp(TensorArg self, std::optional<Scalar> min, std::optional<Scalar> max) {
  if (!min && !max) refuse_unbounded("clamp");
  auto low = optional_number(min, self);
  auto high = optional_number(max, self);
  // clamp.Tensor wants its bounds on self's device: unlike binary ops, it
  // refuses a CPU number beside a CUDA tensor.
  const Device here = abi::device(self.raw());
  if (!here.is_cpu()) {
    if (low) low = low->to(here);
    if (high) high = high->to(here);
  }
  return clamp(self, optional_arg(low), optional_arg(high));
}

Tensor clamp(TensorArg self, std::optional<TensorArg> min, std::optional<TensorArg> max) {
  if (!min && !max) refuse_unbounded("clamp");
  return aten::clamp_Tensor(self, min, max);
}

void clamp_(MutableTensor self, std::optional<Scalar> min, std::optional<Scalar> max) {
  if (!min && !max) refuse_unbounded("clamp_");
  const TensorArg current = TensorAccess::unchecked(self.raw());
  const auto low = optional_number(min, current);
  const auto high = optional_number(max, current);
  aten::clamp_Tensor_(self, optional_arg(low), optional_arg(high));
}

Tensor contiguous(TensorArg self) {
  // Already contiguous, PyTorch returns the tensor itself; the independent
  // value with the same memory is a lazy copy, which copies nothing until
  // either side is written.
  if (abi::is_contiguous(self.raw())) return independent(abi::share(self.raw()));
  return aten::clone(self, MemoryFormat::Contiguous);
}

}  // namespace fp::detail
