// The methods of the tensor types (declared in core/tensor.h), built on the
// generated fp::aten wrappers. Numbers become 0-dim tensors (core/scalar.h).
#include <string>

#include "arithmetic.h"
#include "flash_powder/aten/aten.h"

namespace fp {
namespace detail {
namespace {

std::optional<TensorArg> optional_arg(const std::optional<Tensor>& tensor) {
  if (!tensor) return std::nullopt;
  return TensorArg(*tensor);
}

std::optional<Tensor> optional_number(const std::optional<Scalar>& value, TensorArg beside) {
  if (!value) return std::nullopt;
  return ops::number(*value, beside);
}

}  // namespace

TensorArg TensorBase::as_arg() const {
  return detail::TensorAccess::unchecked(*this);
}

TensorView view_of(const ViewSource& source, abi::TensorHandle handle, const char* origin) {
  (void)source.raw;
  return detail::TensorAccess::view(std::move(handle), source.owner, origin);
}

// --- conversions ---------------------------------------------------------------

Tensor TensorBase::to(TensorOptions options, bool non_blocking) const {
  // _to_copy always copies, which is the point: `to` never aliases here.
  return aten::_to_copy(as_arg(), options.dtype(), options.layout(), options.device(),
                        options.pinned_memory() ? std::optional<bool>(true) : std::nullopt,
                        non_blocking);
}

Tensor TensorBase::clone() const {
  return aten::clone(as_arg());
}
Tensor TensorBase::cpu() const {
  return to(Device::cpu());
}
Tensor TensorBase::cuda(std::int8_t index) const {
  return to(Device::cuda(index));
}

Tensor TensorBase::contiguous() const {
  // Already contiguous, PyTorch returns the tensor itself; the independent
  // value with the same memory is a lazy copy, which copies nothing until
  // either side is written.
  if (is_contiguous()) return to_owned();
  return aten::clone(as_arg(), MemoryFormat::Contiguous);
}

Tensor TensorBase::reshape(IntList shape) const {
  return Tensor(aten::reshape(as_arg(), shape));
}

Tensor TensorBase::flatten(std::int64_t start_dim, std::int64_t end_dim) const {
  return Tensor(aten::flatten_using_ints(as_arg(), start_dim, end_dim));
}

// --- arithmetic -------------------------------------------------------------------

Tensor TensorBase::add(TensorArg other) const {
  return ops::add(as_arg(), other);
}
Tensor TensorBase::add(Scalar other) const {
  return add(ops::number(other, as_arg()));
}
Tensor TensorBase::sub(TensorArg other) const {
  return ops::sub(as_arg(), other);
}
Tensor TensorBase::sub(Scalar other) const {
  return sub(ops::number(other, as_arg()));
}
Tensor TensorBase::mul(TensorArg other) const {
  return aten::mul_Tensor(as_arg(), other);
}
Tensor TensorBase::mul(Scalar other) const {
  return mul(ops::number(other, as_arg()));
}

Tensor TensorBase::div(TensorArg other, std::optional<std::string_view> rounding_mode) const {
  return aten::div_Tensor_mode(as_arg(), other, rounding_mode);
}
Tensor TensorBase::div(Scalar other, std::optional<std::string_view> rounding_mode) const {
  return div(ops::number(other, as_arg()), rounding_mode);
}

Tensor TensorBase::remainder(TensorArg other) const {
  return aten::remainder_Tensor(as_arg(), other);
}
Tensor TensorBase::remainder(Scalar other) const {
  return remainder(ops::number(other, as_arg()));
}
Tensor TensorBase::fmod(TensorArg other) const {
  return aten::fmod_Tensor(as_arg(), other);
}
Tensor TensorBase::fmod(Scalar other) const {
  return fmod(ops::number(other, as_arg()));
}
Tensor TensorBase::pow(TensorArg exponent) const {
  return aten::pow_Tensor_Tensor(as_arg(), exponent);
}
Tensor TensorBase::pow(Scalar exponent) const {
  return ops::pow(as_arg(), exponent);
}

Tensor TensorBase::neg() const {
  return aten::neg(as_arg());
}
Tensor TensorBase::abs() const {
  return aten::abs(as_arg());
}
Tensor TensorBase::sqrt() const {
  return aten::sqrt(as_arg());
}
Tensor TensorBase::rsqrt() const {
  return aten::rsqrt(as_arg());
}
Tensor TensorBase::exp() const {
  return aten::exp(as_arg());
}
Tensor TensorBase::log() const {
  return aten::log(as_arg());
}
Tensor TensorBase::sin() const {
  return aten::sin(as_arg());
}
Tensor TensorBase::cos() const {
  return aten::cos(as_arg());
}
Tensor TensorBase::tanh() const {
  return aten::tanh(as_arg());
}
Tensor TensorBase::sigmoid() const {
  return aten::sigmoid(as_arg());
}
Tensor TensorBase::floor() const {
  return aten::floor(as_arg());
}
Tensor TensorBase::ceil() const {
  return aten::ceil(as_arg());
}
Tensor TensorBase::round(std::int64_t decimals) const {
  return decimals == 0 ? aten::round(as_arg()) : aten::round_decimals(as_arg(), decimals);
}

// --- comparisons ------------------------------------------------------------------

Tensor TensorBase::eq(TensorArg other) const {
  return aten::eq_Tensor(as_arg(), other);
}
Tensor TensorBase::eq(Scalar other) const {
  return eq(ops::number(other, as_arg()));
}
Tensor TensorBase::ne(TensorArg other) const {
  return aten::ne_Tensor(as_arg(), other);
}
Tensor TensorBase::ne(Scalar other) const {
  return ne(ops::number(other, as_arg()));
}
Tensor TensorBase::lt(TensorArg other) const {
  return aten::lt_Tensor(as_arg(), other);
}
Tensor TensorBase::lt(Scalar other) const {
  return lt(ops::number(other, as_arg()));
}
Tensor TensorBase::le(TensorArg other) const {
  return aten::le_Tensor(as_arg(), other);
}
Tensor TensorBase::le(Scalar other) const {
  return le(ops::number(other, as_arg()));
}
Tensor TensorBase::gt(TensorArg other) const {
  return aten::gt_Tensor(as_arg(), other);
}
Tensor TensorBase::gt(Scalar other) const {
  return gt(ops::number(other, as_arg()));
}
Tensor TensorBase::ge(TensorArg other) const {
  return aten::ge_Tensor(as_arg(), other);
}
Tensor TensorBase::ge(Scalar other) const {
  return ge(ops::number(other, as_arg()));
}

bool TensorBase::is_equal(TensorArg other) const {
  return aten::equal(as_arg(), other);
}
bool TensorBase::allclose(TensorArg other, double rtol, double atol, bool equal_nan) const {
  return aten::allclose(as_arg(), other, rtol, atol, equal_nan);
}

// --- reductions ---------------------------------------------------------------------

Tensor TensorBase::sum(std::optional<DType> dtype) const {
  return aten::sum(as_arg(), dtype);
}
Tensor TensorBase::sum(IntList dims, bool keepdim, std::optional<DType> dtype) const {
  return aten::sum_dim_IntList(as_arg(), dims, keepdim, dtype);
}
Tensor TensorBase::mean(std::optional<DType> dtype) const {
  return aten::mean(as_arg(), dtype);
}
Tensor TensorBase::mean(IntList dims, bool keepdim, std::optional<DType> dtype) const {
  return aten::mean_dim(as_arg(), dims, keepdim, dtype);
}
Tensor TensorBase::prod(std::optional<DType> dtype) const {
  return aten::prod(as_arg(), dtype);
}
Tensor TensorBase::prod(std::int64_t dim, bool keepdim, std::optional<DType> dtype) const {
  return aten::prod_dim_int(as_arg(), dim, keepdim, dtype);
}
Tensor TensorBase::min() const {
  return aten::min(as_arg());
}
std::tuple<Tensor, Tensor> TensorBase::min(std::int64_t dim, bool keepdim) const {
  return aten::min_dim(as_arg(), dim, keepdim);
}
Tensor TensorBase::max() const {
  return aten::max(as_arg());
}
std::tuple<Tensor, Tensor> TensorBase::max(std::int64_t dim, bool keepdim) const {
  return aten::max_dim(as_arg(), dim, keepdim);
}
Tensor TensorBase::amin(IntList dims, bool keepdim) const {
  return aten::amin(as_arg(), dims, keepdim);
}
Tensor TensorBase::amax(IntList dims, bool keepdim) const {
  return aten::amax(as_arg(), dims, keepdim);
}
Tensor TensorBase::argmin(std::optional<std::int64_t> dim, bool keepdim) const {
  return aten::argmin(as_arg(), dim, keepdim);
}
Tensor TensorBase::argmax(std::optional<std::int64_t> dim, bool keepdim) const {
  return aten::argmax(as_arg(), dim, keepdim);
}
Tensor TensorBase::std(const std::optional<std::vector<std::int64_t>>& dims, bool unbiased,
                       bool keepdim) const {
  return aten::std_dim(as_arg(), dims, unbiased, keepdim);
}
Tensor TensorBase::var(const std::optional<std::vector<std::int64_t>>& dims, bool unbiased,
                       bool keepdim) const {
  return aten::var_dim(as_arg(), dims, unbiased, keepdim);
}
std::tuple<Tensor, Tensor> TensorBase::topk(std::int64_t k, std::int64_t dim, bool largest,
                                            bool sorted) const {
  return aten::topk(as_arg(), k, dim, largest, sorted);
}
std::tuple<Tensor, Tensor> TensorBase::sort(std::int64_t dim, bool descending) const {
  return aten::sort(as_arg(), dim, descending);
}
Tensor TensorBase::cumsum(std::int64_t dim, std::optional<DType> dtype) const {
  return aten::cumsum(as_arg(), dim, dtype);
}

// --- selection and linear algebra -------------------------------------------------

Tensor TensorBase::where(TensorArg condition, TensorArg other) const {
  return aten::where_self(condition, as_arg(), other);
}
Tensor TensorBase::where(TensorArg condition, Scalar other) const {
  return where(condition, ops::number(other, as_arg()));
}
Tensor TensorBase::masked_fill(TensorArg mask, TensorArg value) const {
  return aten::masked_fill_Tensor(as_arg(), mask, value);
}
Tensor TensorBase::masked_fill(TensorArg mask, Scalar value) const {
  return masked_fill(mask, ops::number(value, as_arg()));
}
Tensor TensorBase::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  auto low = optional_number(min, as_arg());
  auto high = optional_number(max, as_arg());
  // clamp.Tensor wants its bounds on self's device: unlike binary ops, it
  // refuses a CPU number beside a CUDA tensor.
  const Device here = device();
  if (!here.is_cpu()) {
    if (low) low = low->to(here);
    if (high) high = high->to(here);
  }
  return clamp(optional_arg(low), optional_arg(high));
}
Tensor TensorBase::clamp(std::optional<TensorArg> min, std::optional<TensorArg> max) const {
  if (!min && !max) {
    throw Error(ErrorCode::BadArgument, "clamp: At least one of 'min' or 'max' must not be None");
  }
  return aten::clamp_Tensor(as_arg(), min, max);
}
Tensor TensorBase::matmul(TensorArg other) const {
  return aten::matmul(as_arg(), other);
}
Tensor TensorBase::mm(TensorArg other) const {
  return aten::mm(as_arg(), other);
}
Tensor TensorBase::bmm(TensorArg other) const {
  return aten::bmm(as_arg(), other);
}

// --- views ----------------------------------------------------------------------------

namespace {
template <class Derived>
TensorArg arg_of(const ViewOps<Derived>& self) {
  return TensorArg(static_cast<const Derived&>(self));
}
}  // namespace

template <class Derived>
TensorView ViewOps<Derived>::view(IntList shape) const {
  return aten::view(arg_of(*this), shape);
}
template <class Derived>
TensorView ViewOps<Derived>::permute(IntList dims) const {
  return aten::permute(arg_of(*this), dims);
}
template <class Derived>
TensorView ViewOps<Derived>::transpose(std::int64_t dim0, std::int64_t dim1) const {
  return aten::transpose_int(arg_of(*this), dim0, dim1);
}
template <class Derived>
TensorView ViewOps<Derived>::squeeze() const {
  return aten::squeeze(arg_of(*this));
}
template <class Derived>
TensorView ViewOps<Derived>::squeeze(std::int64_t dim) const {
  return aten::squeeze_dim(arg_of(*this), dim);
}
template <class Derived>
TensorView ViewOps<Derived>::unsqueeze(std::int64_t dim) const {
  return aten::unsqueeze(arg_of(*this), dim);
}
template <class Derived>
TensorView ViewOps<Derived>::narrow(std::int64_t dim, std::int64_t start,
                                    std::int64_t length) const {
  return aten::narrow(arg_of(*this), dim, start, length);
}
template <class Derived>
TensorView ViewOps<Derived>::select(std::int64_t dim, std::int64_t index) const {
  return aten::select_int(arg_of(*this), dim, index);
}
template <class Derived>
TensorView ViewOps<Derived>::expand(IntList sizes) const {
  return aten::expand(arg_of(*this), sizes);
}
template <class Derived>
std::vector<TensorView> ViewOps<Derived>::chunk(std::int64_t chunks, std::int64_t dim) const {
  return aten::chunk(arg_of(*this), chunks, dim);
}
template <class Derived>
std::vector<TensorView> ViewOps<Derived>::split(std::int64_t size, std::int64_t dim) const {
  return aten::split_Tensor(arg_of(*this), size, dim);
}
template <class Derived>
std::vector<TensorView> ViewOps<Derived>::split(IntList sizes, std::int64_t dim) const {
  return aten::split_with_sizes(arg_of(*this), sizes, dim);
}
template <class Derived>
std::vector<TensorView> ViewOps<Derived>::unbind(std::int64_t dim) const {
  return aten::unbind_int(arg_of(*this), dim);
}

template class ViewOps<TensorView>;
template class ViewOps<TensorMutView>;
template class ViewOps<Tensor>;

// --- in-place -------------------------------------------------------------------------

template <class Derived>
Derived& MutableAccess<Derived>::add_(TensorArg other) {
  Derived& self = static_cast<Derived&>(*this);
  if (!ops::add_in_place(self, other, 1)) ops::assign_in_place(self, ops::add(self, other), "add_");
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::add_(Scalar other) {
  Derived& self = static_cast<Derived&>(*this);
  return add_(ops::number(other, self));
}
template <class Derived>
Derived& MutableAccess<Derived>::sub_(TensorArg other) {
  Derived& self = static_cast<Derived&>(*this);
  if (!ops::add_in_place(self, other, -1))
    ops::assign_in_place(self, ops::sub(self, other), "sub_");
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::sub_(Scalar other) {
  Derived& self = static_cast<Derived&>(*this);
  return sub_(ops::number(other, self));
}
template <class Derived>
Derived& MutableAccess<Derived>::mul_(TensorArg other) {
  Derived& self = static_cast<Derived&>(*this);
  aten::mul_Tensor_(self, other);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::mul_(Scalar other) {
  Derived& self = static_cast<Derived&>(*this);
  return mul_(ops::number(other, self));
}
template <class Derived>
Derived& MutableAccess<Derived>::div_(TensorArg other,
                                      std::optional<std::string_view> rounding_mode) {
  Derived& self = static_cast<Derived&>(*this);
  aten::div_Tensor_mode_(self, other, rounding_mode);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::div_(Scalar other, std::optional<std::string_view> rounding_mode) {
  Derived& self = static_cast<Derived&>(*this);
  return div_(ops::number(other, self), rounding_mode);
}
template <class Derived>
Derived& MutableAccess<Derived>::remainder_(TensorArg other) {
  Derived& self = static_cast<Derived&>(*this);
  aten::remainder_Tensor_(self, other);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::remainder_(Scalar other) {
  Derived& self = static_cast<Derived&>(*this);
  return remainder_(ops::number(other, self));
}
template <class Derived>
Derived& MutableAccess<Derived>::pow_(TensorArg exponent) {
  Derived& self = static_cast<Derived&>(*this);
  aten::pow_Tensor_(self, exponent);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::pow_(Scalar exponent) {
  Derived& self = static_cast<Derived&>(*this);
  ops::assign_in_place(self, ops::pow(self, exponent), "pow_");
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::neg_() {
  Derived& self = static_cast<Derived&>(*this);
  aten::neg_(self);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::abs_() {
  Derived& self = static_cast<Derived&>(*this);
  aten::abs_(self);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::sqrt_() {
  Derived& self = static_cast<Derived&>(*this);
  aten::sqrt_(self);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::exp_() {
  Derived& self = static_cast<Derived&>(*this);
  aten::exp_(self);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::log_() {
  Derived& self = static_cast<Derived&>(*this);
  aten::log_(self);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  Derived& self = static_cast<Derived&>(*this);
  if (!min && !max)
    throw Error(ErrorCode::BadArgument, "clamp_: At least one of 'min' or 'max' must not be None");
  const auto low = optional_number(min, self);
  const auto high = optional_number(max, self);
  aten::clamp_Tensor_(self, optional_arg(low), optional_arg(high));
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::fill_(Scalar value) {
  Derived& self = static_cast<Derived&>(*this);
  return fill_(value.as_tensor_beside(self.dtype()));
}
template <class Derived>
Derived& MutableAccess<Derived>::fill_(TensorArg value) {
  Derived& self = static_cast<Derived&>(*this);
  aten::fill_Tensor_(self, value);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::zero_() {
  Derived& self = static_cast<Derived&>(*this);
  aten::zero_(self);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::copy_(TensorArg source) {
  Derived& self = static_cast<Derived&>(*this);
  aten::copy_(self, source);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::masked_fill_(TensorArg mask, Scalar value) {
  Derived& self = static_cast<Derived&>(*this);
  return masked_fill_(mask, ops::number(value, self));
}
template <class Derived>
Derived& MutableAccess<Derived>::masked_fill_(TensorArg mask, TensorArg value) {
  Derived& self = static_cast<Derived&>(*this);
  aten::masked_fill_Tensor_(self, mask, value);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::index_put_(std::initializer_list<TensorIndex> indices,
                                            TensorArg values, bool accumulate) {
  Derived& self = static_cast<Derived&>(*this);
  index_put(self, std::span<const TensorIndex>(indices.begin(), indices.size()), values,
            accumulate);
  return self;
}
template <class Derived>
Derived& MutableAccess<Derived>::index_put_(std::initializer_list<TensorIndex> indices,
                                            Scalar value) {
  Derived& self = static_cast<Derived&>(*this);
  // Like Python's `t[...] = number`: the number takes the tensor's dtype.
  return index_put_(indices, aten::_to_copy(ops::number(value, self), self.dtype()));
}

// Compound bitwise assignment: Python's `__iand__` and friends.
// The replacement is two function definitions, not an expression.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define FP_BITWISE_ASSIGNMENT(op, aten_function)                  \
  template <class Derived>                                        \
  Derived& MutableAccess<Derived>::operator op(TensorArg other) { \
    Derived& self = static_cast<Derived&>(*this);                 \
    aten::aten_function(self, other);                             \
    return self;                                                  \
  }                                                               \
  template <class Derived>                                        \
  Derived& MutableAccess<Derived>::operator op(Scalar other) {    \
    Derived& self = static_cast<Derived&>(*this);                 \
    return *this op ops::number(other, self);                     \
  }
// NOLINTEND(bugprone-macro-parentheses)
FP_BITWISE_ASSIGNMENT(&=, dunder_iand_Tensor)
FP_BITWISE_ASSIGNMENT(|=, dunder_ior_Tensor)
FP_BITWISE_ASSIGNMENT(^=, dunder_ixor_Tensor)
FP_BITWISE_ASSIGNMENT(<<=, dunder_ilshift_Tensor)
FP_BITWISE_ASSIGNMENT(>>=, dunder_irshift_Tensor)
#undef FP_BITWISE_ASSIGNMENT

template class MutableAccess<Tensor>;
template class MutableAccess<TensorMutView>;

}  // namespace detail
}  // namespace fp
