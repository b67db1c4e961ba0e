// The call machinery of the generated fp::aten wrappers (aten/call.h): each
// parameter type boxed for its schema argument, and results turned into C++
// values.
#include "aten/call.h"

#include <string>
#include <string_view>
#include <utility>

#include "flash_powder/abi/schema.h"
#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/detail/tensor_access.h"

namespace fp::aten::detail {
namespace {  // what Call's members box each parameter type into

/// None, for optional arguments without a value.
abi::Arg none() {
  return {abi::None{}};
}

// --- arguments -> abi::Arg -------------------------------------------------------------

abi::Arg arg(const std::optional<TensorArg>& tensor) {
  return tensor ? fp::detail::TensorAccess::to_arg(*tensor) : none();
}
abi::Arg arg(const std::optional<MutableTensor>& tensor) {
  return tensor ? fp::detail::TensorAccess::to_arg(*tensor) : none();
}

abi::Arg arg(const TensorList& tensors) {
  std::vector<abi::RawTensor> raw;
  raw.reserve(tensors.size());
  for (const auto& tensor : tensors.items())
    raw.push_back(tensor.raw());
  return {std::move(raw)};
}

abi::Arg arg(const OptionalTensorList& tensors) {
  // A null handle stands for None in a `Tensor?[]`.
  std::vector<abi::RawTensor> raw;
  for (const auto& tensor : tensors.items())
    raw.push_back(tensor ? tensor->raw() : nullptr);
  return {std::move(raw)};
}

abi::Arg arg(const MutableTensorList& tensors) {
  std::vector<abi::RawTensor> raw;
  for (const auto& tensor : tensors.items())
    raw.push_back(tensor.raw());
  abi::Arg result{std::move(raw)};
  result.writable = true;  // every item is a non-const Tensor or a TensorMutView
  return result;
}

abi::Arg arg(std::string_view value) {
  return {std::string(value)};
}
abi::Arg arg(Layout value) {
  return {value};
}
abi::Arg arg(Device value) {
  return {value};
}
abi::Arg arg(MemoryFormat value) {
  return {value};
}

abi::Arg arg(IntList values) {
  return {values.vec()};
}
abi::Arg arg(const OptionalIntList& values) {
  return values ? arg(*values) : none();
}
abi::Arg arg(ArrayRef<double> values) {
  return {values.vec()};
}
abi::Arg arg(const OptionalArrayRef<double>& values) {
  return values ? arg(*values) : none();
}

abi::Arg int_list(IntList values, std::size_t fixed_size) {
  if (values.size() == 1 && fixed_size > 1) {
    return {std::vector<std::int64_t>(fixed_size, values[0])};
  }
  return arg(values);
}

abi::Arg int_list(const OptionalIntList& values, std::size_t fixed_size) {
  return values ? int_list(*values, fixed_size) : none();
}

abi::Arg bool_list(std::span<const bool> values) {
  return {std::vector<bool>(values.begin(), values.end())};
}

}  // namespace

// --- Call ----------------------------------------------------------------------------------

Call& Call::push(const abi::Arg& value) {
  op_.value(value);
  return *this;
}

namespace {
abi::Lending lending_of(const abi::Arg& arg) {
  return {arg.writable, arg.owner_guard, arg.viewed_guard};
}
}  // namespace

// The common kinds go straight to their boxing; the rest through an abi::Arg.
Call& Call::lent(const TensorArg& tensor) {
  const abi::Arg captured = fp::detail::TensorAccess::to_arg(tensor);
  op_.tensor(std::get<abi::RawTensor>(captured.value), lending_of(captured));
  return *this;
}
Call& Call::arg(const MutableTensor& tensor) {
  const abi::Arg captured = fp::detail::TensorAccess::to_arg(tensor);
  op_.tensor(std::get<abi::RawTensor>(captured.value), lending_of(captured));
  return *this;
}
Call& Call::arg(DType value) {
  op_.dtype(value);
  return *this;
}

namespace {
template <class T>
bool is_none(const std::optional<T>& value) {
  return !value.has_value();
}
template <class T>
bool is_none(const OptionalArrayRef<T>& value) {
  return !value.has_value();
}
}  // namespace

#define FP_CALL_ARG(Type)            \
  Call& Call::arg(Type value) {      \
    return push(detail::arg(value)); \
  }
FP_CALL_ARG(const TensorList&)
FP_CALL_ARG(const OptionalTensorList&)
FP_CALL_ARG(const MutableTensorList&)
FP_CALL_ARG(std::string_view)
FP_CALL_ARG(Layout)
FP_CALL_ARG(Device)
FP_CALL_ARG(MemoryFormat)
FP_CALL_ARG(IntList)
FP_CALL_ARG(ArrayRef<double>)
#undef FP_CALL_ARG

// Optional values: None without making an Arg.
#define FP_CALL_OPTIONAL_ARG(Type)     \
  Call& Call::arg(Type value) {        \
    if (is_none(value)) return none(); \
    return push(detail::arg(value));   \
  }
FP_CALL_OPTIONAL_ARG(const std::optional<TensorArg>&)
FP_CALL_OPTIONAL_ARG(const std::optional<MutableTensor>&)
FP_CALL_OPTIONAL_ARG(const OptionalIntList&)
FP_CALL_OPTIONAL_ARG(const OptionalArrayRef<double>&)
#undef FP_CALL_OPTIONAL_ARG

// The values of optional arguments, boxed as the schema's optional type.
#define FP_CALL_SOME(Type)                                           \
  Call& Call::some(Type value) {                                     \
    return push({abi::Arg::Value(std::in_place_type<Type>, value)}); \
  }
FP_CALL_SOME(std::int64_t)
FP_CALL_SOME(double)
FP_CALL_SOME(bool)
FP_CALL_SOME(DType)
FP_CALL_SOME(Layout)
FP_CALL_SOME(Device)
FP_CALL_SOME(MemoryFormat)
FP_CALL_SOME(abi::RawGenerator)
#undef FP_CALL_SOME

Call& Call::some(std::string_view value) {
  return push(detail::arg(value));
}

Call& Call::int_list(IntList values, std::size_t fixed_size) {
  return push(detail::int_list(values, fixed_size));
}

Call& Call::int_list(const OptionalIntList& values, std::size_t fixed_size) {
  if (!values) return none();
  return push(detail::int_list(values, fixed_size));
}

Call& Call::bool_list(std::span<const bool> values) {
  return push(detail::bool_list(values));
}

// --- the borrow check of written lists ---------------------------------------------------

template <class Visit>
void Input::each(Visit&& visit) const {
  switch (kind_) {
    case Kind::Tensor: {
      const auto& tensor = *static_cast<const TensorArg*>(pointer_);
      visit(tensor.raw(), &tensor);
      return;
    }
    case Kind::OptionalTensor: {
      const auto& tensor = *static_cast<const std::optional<TensorArg>*>(pointer_);
      if (tensor) visit(tensor->raw(), &*tensor);
      return;
    }
    case Kind::Mutable:
      visit(static_cast<const MutableTensor*>(pointer_)->raw(), nullptr);
      return;
    case Kind::OptionalMutable: {
      const auto& tensor = *static_cast<const std::optional<MutableTensor>*>(pointer_);
      if (tensor) visit(tensor->raw(), nullptr);
      return;
    }
    case Kind::List:
      for (const auto& tensor : static_cast<const TensorList*>(pointer_)->items()) {
        visit(tensor.raw(), &tensor);
      }
      return;
    case Kind::OptionalList:
      for (const auto& tensor : static_cast<const OptionalTensorList*>(pointer_)->items()) {
        if (tensor) visit(tensor->raw(), &*tensor);
      }
      return;
    case Kind::MutableList:
      for (const auto& tensor : static_cast<const MutableTensorList*>(pointer_)->items()) {
        visit(tensor.raw(), nullptr);
      }
      return;
  }
}

void check_mutation(const MutableTensor& tensor, const char* operation,
                    std::initializer_list<Input> inputs) {
  bool any_views = false;
  for (const Input& input : inputs) {
    input.each([&](abi::RawTensor, const TensorArg* argument) {
      any_views = any_views ||
                  (argument != nullptr && fp::detail::TensorAccess::viewing(*argument) != nullptr);
    });
  }
  // Only views register with a borrow state, so without views among the
  // arguments there is nothing to count (and no state needs making).
  int own_arguments = 0;
  if (any_views) {
    const fp::detail::BorrowState* state = fp::detail::TensorAccess::borrow_state(tensor);
    for (const Input& input : inputs) {
      input.each([&](abi::RawTensor, const TensorArg* argument) {
        own_arguments += argument != nullptr && state != nullptr &&
                         fp::detail::TensorAccess::viewing(*argument) == state;
      });
    }
  }
  fp::detail::TensorAccess::check_mutation(tensor, operation, own_arguments);
}

void check_mutation(const std::optional<MutableTensor>& tensor, const char* operation,
                    std::initializer_list<Input> inputs) {
  if (tensor) check_mutation(*tensor, operation, inputs);
}

void check_mutation(const MutableTensorList& tensors, const char* operation,
                    std::initializer_list<Input> inputs) {
  for (const MutableTensor& tensor : tensors.items())
    check_mutation(tensor, operation, inputs);
}

// --- results -> C++ values ----------------------------------------------------------------

namespace {

template <class T>
T take(Call& call, std::size_t i, const char* wanted) {
  abi::Returned result = call.op().take(i);
  if (auto* value = std::get_if<T>(&result.value)) return std::move(*value);
  call.op().fail("returned " + std::string(result.type_name()) + " as result " + std::to_string(i) +
                 ", expected " + wanted);
}

/// Whether `result` is (the memory of) one of the call's tensor arguments: a
/// composite op may hand an input back (`atleast_1d`, `type_as`, `_unsafe_view`).
bool aliases_an_input(abi::RawTensor result, std::initializer_list<Input> inputs) {
  const void* data = abi::data_start(result);
  if (data == nullptr) return false;
  bool found = false;
  for (const Input& input : inputs) {
    input.each([&](abi::RawTensor raw, const TensorArg*) {
      found = found || (raw != nullptr && abi::data_start(raw) == data);
    });
    if (found) return true;
  }
  return false;
}

Tensor independent_tensor(abi::TensorHandle handle, std::initializer_list<Input> inputs) {
  Tensor result(std::move(handle));
  if (aliases_an_input(result.raw(), inputs)) return result.to_owned();
  return result;
}

}  // namespace

Tensor tensor_result(Call& call, std::size_t i, std::initializer_list<Input> inputs) {
  return independent_tensor(call.op().take_tensor(i), inputs);
}

std::vector<Tensor> tensors_result(Call& call, std::size_t i, std::initializer_list<Input> inputs) {
  auto handles = take<std::vector<abi::TensorHandle>>(call, i, "Tensor[]");
  std::vector<Tensor> tensors;
  tensors.reserve(handles.size());
  for (auto& handle : handles)
    tensors.push_back(independent_tensor(std::move(handle), inputs));
  return tensors;
}

namespace {

/// `view` with its conjugation and negation applied to the data, or null when
/// it carries neither bit. Views of a tensor without these bits never
/// acquire them, so only the ops that set them (generate_ops.py,
/// SETS_LAZY_BITS) need this.
abi::TensorHandle resolved_lazy_bits(abi::RawTensor view) {
  const TensorArg result = fp::detail::TensorAccess::unchecked(view);
  if (!aten::is_conj(result) && !aten::is_neg(result)) return {};
  const TensorView resolved = aten::resolve_neg(aten::resolve_conj(result));
  return abi::share(resolved.raw());
}

}  // namespace

TensorView view_result(Call& call, std::size_t i, const TensorArg& of, const char* origin) {
  return fp::detail::TensorAccess::view(call.op().take_tensor(i),
                                        fp::detail::TensorAccess::borrowed_from(of), origin);
}

TensorView resolved_view_result(Call& call, std::size_t i, const TensorArg& of,
                                const char* origin) {
  auto handle = call.op().take_tensor(i);
  // Resolving copies, so the result no longer aliases `of`: a TensorView
  // owning its data, which reads the same as the view would.
  if (auto resolved = resolved_lazy_bits(handle.get())) {
    return TensorView(Tensor(std::move(resolved)));
  }
  return fp::detail::TensorAccess::view(std::move(handle),
                                        fp::detail::TensorAccess::borrowed_from(of), origin);
}

TensorView direct_view(abi::TensorHandle handle, const TensorArg& of, const char* origin) {
  return fp::detail::TensorAccess::view(std::move(handle),
                                        fp::detail::TensorAccess::borrowed_from(of), origin);
}

std::vector<TensorView> views_result(Call& call, std::size_t i, const TensorArg& of,
                                     const char* origin) {
  auto handles = take<std::vector<abi::TensorHandle>>(call, i, "Tensor[]");
  fp::detail::BorrowState* owner = fp::detail::TensorAccess::borrowed_from(of);
  std::vector<TensorView> views;
  views.reserve(handles.size());
  for (auto& handle : handles)
    views.push_back(fp::detail::TensorAccess::view(std::move(handle), owner, origin));
  return views;
}

std::int64_t int_result(Call& call, std::size_t i) {
  return take<std::int64_t>(call, i, "int");
}

double float_result(Call& call, std::size_t i) {
  abi::Returned result = call.op().take(i);
  if (auto* integer = std::get_if<std::int64_t>(&result.value)) {
    return static_cast<double>(*integer);
  }
  if (auto* real = std::get_if<double>(&result.value)) return *real;
  call.op().fail("returned " + std::string(result.type_name()) + " as result " + std::to_string(i) +
                 ", expected float");
}

bool bool_result(Call& call, std::size_t i) {
  return take<bool>(call, i, "bool");
}

DType dtype_result(Call& call, std::size_t i) {
  return take<DType>(call, i, "ScalarType");
}

std::vector<std::int64_t> ints_result(Call& call, std::size_t i) {
  return take<std::vector<std::int64_t>>(call, i, "int[]");
}

}  // namespace fp::aten::detail
