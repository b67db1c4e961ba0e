// Parameter types of op functions (the generated fp::aten::* and the ops built
// on them): how C++ callers hand tensors, lists and optional values to an op.
//
//   fp::TensorArg, fp::MutableTensor (core/tensor_arg.h) for single tensors
//   fp::TensorList         `Tensor[]`: a braced list, a vector or a span
//   fp::OptionalTensorList `Tensor?[]`: the same with std::nullopt for None
//   fp::MutableTensorList  `Tensor(a!)[]`: tensors the op writes
//   fp::OptionalIntList    `int[]?`: std::nullopt, one value, a braced list, a vector
//
// Like std::string_view and fp::IntList, these refer to the caller's values
// and are meant for parameters: they stay valid until the call returns, not
// beyond.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "flash_powder/abi/ivalue.h"
#include "flash_powder/abi/op_call.h"
#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp {

namespace abi {
struct Schema;
}  // namespace abi

/// `Tensor[]`: `{a, b}` (any TensorArg), `std::vector<Tensor>`,
/// `std::vector<TensorView>`, `std::span<const Tensor>`, `std::span<const TensorView>`.
class TensorList {
 public:
  TensorList() = default;
  // Implicit on purpose: a braced list or a container passes where PyTorch takes a list.
  // NOLINTBEGIN(google-explicit-constructor)
  TensorList(std::initializer_list<TensorArg> tensors) noexcept
      : items_(tensors.begin(), tensors.size()) {}
  TensorList(const std::vector<Tensor>& tensors) : TensorList(std::span<const Tensor>(tensors)) {}
  TensorList(const std::vector<TensorView>& views)
      : TensorList(std::span<const TensorView>(views)) {}
  TensorList(std::span<const Tensor> tensors);
  TensorList(std::span<const TensorView> views);
  // NOLINTEND(google-explicit-constructor)
  TensorList(const TensorList&) = delete;
  TensorList& operator=(const TensorList&) = delete;

  std::span<const TensorArg> items() const noexcept { return items_; }
  std::size_t size() const noexcept { return items_.size(); }

 private:
  std::vector<TensorArg> owned_;
  std::span<const TensorArg> items_;
};

/// `Tensor?[]` (e.g. the indices of `index.Tensor`): `{rows, std::nullopt}`,
/// or a vector of Tensors, TensorViews or optionals of them.
class OptionalTensorList {
 public:
  OptionalTensorList() = default;
  // Implicit on purpose: a braced list or a container passes where PyTorch takes a list.
  // NOLINTBEGIN(google-explicit-constructor)
  OptionalTensorList(std::initializer_list<std::optional<TensorArg>> tensors) noexcept
      : items_(tensors.begin(), tensors.size()) {}
  OptionalTensorList(const std::vector<Tensor>& tensors);
  OptionalTensorList(const std::vector<TensorView>& views);
  OptionalTensorList(const std::vector<std::optional<Tensor>>& tensors);
  OptionalTensorList(const std::vector<std::optional<TensorView>>& views);
  OptionalTensorList(std::span<const std::optional<TensorArg>> items) noexcept : items_(items) {}
  OptionalTensorList(const std::vector<std::optional<TensorArg>>& items) noexcept : items_(items) {}
  // NOLINTEND(google-explicit-constructor)
  OptionalTensorList(const OptionalTensorList&) = delete;
  OptionalTensorList& operator=(const OptionalTensorList&) = delete;

  std::span<const std::optional<TensorArg>> items() const noexcept { return items_; }

 private:
  std::vector<std::optional<TensorArg>> owned_;
  std::span<const std::optional<TensorArg>> items_;
};

/// `Tensor(a!)[]`, tensors an op writes (the `_foreach_*_` ops):
/// `{a, b}` (non-const Tensors or TensorMutViews), `std::vector<Tensor>&`,
/// `std::span<Tensor>`.
class MutableTensorList {
 public:
  // Implicit on purpose: a braced list or a container passes where PyTorch takes a list.
  // NOLINTBEGIN(google-explicit-constructor)
  MutableTensorList(std::initializer_list<MutableTensor> tensors)
      : items_(tensors.begin(), tensors.size()) {}
  MutableTensorList(std::vector<Tensor>& tensors) : MutableTensorList(std::span<Tensor>(tensors)) {}
  MutableTensorList(std::span<Tensor> tensors);
  // NOLINTEND(google-explicit-constructor)
  MutableTensorList(const std::vector<Tensor>&) = delete;
  MutableTensorList(const MutableTensorList&) = delete;
  MutableTensorList& operator=(const MutableTensorList&) = delete;

  std::span<const MutableTensor> items() const noexcept { return items_; }

 private:
  std::vector<MutableTensor> owned_;
  std::span<const MutableTensor> items_;
};

/// An optional list (`int[]?`, `float[]?`): std::nullopt (None), one value,
/// a braced list, a vector, an fp::ArrayRef. Unlike std::optional<IntList>,
/// a single `int` converts without dangling.
template <class T>
class OptionalArrayRef {
 public:
  constexpr OptionalArrayRef() = default;
  // Implicit on purpose: a braced list or a container passes where PyTorch takes a list.
  // NOLINTBEGIN(google-explicit-constructor)
  constexpr OptionalArrayRef(std::nullopt_t) noexcept {}
  constexpr OptionalArrayRef(const T& value) noexcept : value_(ArrayRef<T>(value)) {}
  constexpr OptionalArrayRef(std::initializer_list<T> values) noexcept
      : value_(ArrayRef<T>(values)) {}
  constexpr OptionalArrayRef(ArrayRef<T> values) noexcept : value_(values) {}
  constexpr OptionalArrayRef(std::span<const T> values) noexcept : value_(ArrayRef<T>(values)) {}
  template <class Alloc>
  constexpr OptionalArrayRef(const std::vector<T, Alloc>& values) noexcept
      : value_(ArrayRef<T>(values)) {}
  template <std::size_t N>
  constexpr OptionalArrayRef(const std::array<T, N>& values) noexcept
      : value_(ArrayRef<T>(values)) {}
  template <class Alloc>
  constexpr OptionalArrayRef(const std::optional<std::vector<T, Alloc>>& values) noexcept {
    if (values) value_ = ArrayRef<T>(*values);
  }
  // NOLINTEND(google-explicit-constructor)

  constexpr bool has_value() const noexcept { return value_.has_value(); }
  constexpr explicit operator bool() const noexcept { return value_.has_value(); }
  constexpr const ArrayRef<T>& operator*() const { return *value_; }
  constexpr const ArrayRef<T>* operator->() const { return &*value_; }

 private:
  std::optional<ArrayRef<T>> value_;
};

/// `int[]?`, e.g. the `dim` of `sum.dim_IntList`.
using OptionalIntList = OptionalArrayRef<std::int64_t>;

// ---------------------------------------------------------------------------
// Internal: what the generated wrappers (src/aten/generated) call.
namespace ops::detail {

/// One call of an op: each `arg()` takes one parameter type above and boxes
/// it for the schema's type of that argument (fp::abi::OpCall), `run()` calls
/// the op, and the `*_result` functions below take its results.
/// Everything is out of line, so that the ~2000 generated wrappers stay small
/// and quick to compile. The boxed values live in storage the wrapper keeps
/// on its stack (FixedCall): no allocation.
class Call {
 public:
  Call(const abi::Schema& schema, std::span<abi::BoxedValue> stack,
       std::span<abi::Lending> lendings)
      : op_(schema, stack, lendings) {}
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  ~Call() = default;

  Call& arg(const TensorArg& tensor) {
    // The borrow facts of a tensor only matter to an op that writes one.
    if (op_.checks_lendings()) return lent(tensor);
    op_.tensor(tensor.raw(), {});
    return *this;
  }
  Call& arg(const std::optional<TensorArg>& tensor);
  Call& arg(const MutableTensor& tensor);
  Call& arg(const std::optional<MutableTensor>& tensor);
  Call& arg(const TensorList& tensors);
  Call& arg(const OptionalTensorList& tensors);
  Call& arg(const MutableTensorList& tensors);
  Call& arg(std::int64_t value) {
    op_.integer(value);
    return *this;
  }
  Call& arg(double value) {
    op_.real(value);
    return *this;
  }
  Call& arg(bool value) {
    op_.boolean(value);
    return *this;
  }
  Call& arg(std::string_view value);
  Call& arg(DType value);
  Call& arg(Layout value);
  Call& arg(Device value);
  Call& arg(MemoryFormat value);
  Call& arg(const std::optional<std::int64_t>& value) { return value ? some(*value) : none(); }
  Call& arg(const std::optional<double>& value) { return value ? some(*value) : none(); }
  Call& arg(const std::optional<bool>& value) { return value ? some(*value) : none(); }
  Call& arg(const std::optional<std::string_view>& value) { return value ? some(*value) : none(); }
  Call& arg(const std::optional<DType>& value) { return value ? some(*value) : none(); }
  Call& arg(const std::optional<Layout>& value) { return value ? some(*value) : none(); }
  Call& arg(const std::optional<Device>& value) { return value ? some(*value) : none(); }
  Call& arg(const std::optional<MemoryFormat>& value) { return value ? some(*value) : none(); }
  Call& arg(const std::optional<abi::RawGenerator>& value) { return value ? some(*value) : none(); }
  Call& arg(IntList values);
  Call& arg(const OptionalIntList& values);
  Call& arg(ArrayRef<double> values);
  Call& arg(const OptionalArrayRef<double>& values);
  Call& int_list(IntList values, std::size_t fixed_size);
  Call& int_list(const OptionalIntList& values, std::size_t fixed_size);
  Call& bool_list(std::span<const bool> values);
  Call& none() {
    op_.none();
    return *this;
  }

  /// Runs the op; throws fp::Error on failure.
  void run() { op_.run(); }
  /// The call and, after run(), its results.
  abi::OpCall& op() noexcept { return op_; }

 private:
  Call& push(const abi::Arg& value);
  /// A tensor of an op that writes one, with its borrow facts.
  Call& lent(const TensorArg& tensor);
  /// The value of an optional argument (boxed inside an optional).
  Call& some(std::int64_t value);
  Call& some(double value);
  Call& some(bool value);
  Call& some(std::string_view value);
  Call& some(DType value);
  Call& some(Layout value);
  Call& some(Device value);
  Call& some(MemoryFormat value);
  Call& some(abi::RawGenerator value);

  abi::OpCall op_;
};

/// The room of a FixedCall, a base so that it exists before its Call.
template <std::size_t N>
struct CallStorage {
  std::array<abi::BoxedValue, N> boxed_values;
  std::array<abi::Lending, N> lendings;
};

/// A Call of an op with N arguments, holding their boxed values itself.
template <std::size_t N>
class FixedCall : private CallStorage<N>, public Call {
 public:
  // The boxed values are left uninitialised on purpose: the call writes
  // each before it reads it.
  explicit FixedCall(const abi::Schema& schema)
      : Call(schema, this->boxed_values, this->lendings) {}
};

/// The tensor arguments of a call, for the alias check of its results.
class Input {
 public:
  // Implicit on purpose: the generated ops list their tensor arguments as
  // `{self, other}`, of whichever tensor kinds the op takes.
  // NOLINTBEGIN(google-explicit-constructor)
  Input(const TensorArg& tensor) noexcept : pointer_(&tensor), kind_(Kind::Tensor) {}
  Input(const std::optional<TensorArg>& tensor) noexcept
      : pointer_(&tensor), kind_(Kind::OptionalTensor) {}
  Input(const MutableTensor& tensor) noexcept : pointer_(&tensor), kind_(Kind::Mutable) {}
  Input(const std::optional<MutableTensor>& tensor) noexcept
      : pointer_(&tensor), kind_(Kind::OptionalMutable) {}
  Input(const TensorList& tensors) noexcept : pointer_(&tensors), kind_(Kind::List) {}
  Input(const OptionalTensorList& tensors) noexcept
      : pointer_(&tensors), kind_(Kind::OptionalList) {}
  Input(const MutableTensorList& tensors) noexcept : pointer_(&tensors), kind_(Kind::MutableList) {}
  // NOLINTEND(google-explicit-constructor)

  /// Calls `visit(raw, argument)` for each tensor in it (`argument` is null
  /// for tensors the call writes).
  template <class Visit>
  void each(Visit&& visit) const;  // defined where used (src/core/arguments.cpp)

 private:
  enum class Kind : std::uint8_t {
    Tensor,
    OptionalTensor,
    Mutable,
    OptionalMutable,
    List,
    OptionalList,
    MutableList
  };
  const void* pointer_;
  Kind kind_;
};

/// Throws fp::BorrowError unless `tensor` may be written by `operation` now
/// (views among `inputs` are the call's own and allowed). fp::abi::call checks
/// the `Tensor(a!)` arguments of a schema itself; lists and the writes a schema
/// does not declare need this.
void check_mutation(const MutableTensor& tensor, const char* operation,
                    std::initializer_list<Input> inputs);
void check_mutation(const std::optional<MutableTensor>& tensor, const char* operation,
                    std::initializer_list<Input> inputs);
void check_mutation(const MutableTensorList& tensors, const char* operation,
                    std::initializer_list<Input> inputs);

// Results -> C++ values. `i` is the index of the result.
/// A new Tensor; a lazy copy if libtorch handed back (the memory of) an input.
Tensor tensor_result(Call& call, std::size_t i, std::initializer_list<Input> inputs);
/// A new Tensor from an op whose results are always newly allocated (the
/// functional form of a structured kernel): no alias check.
inline Tensor fresh_tensor_result(Call& call, std::size_t i) {
  return Tensor(call.op().take_tensor(i));
}
std::vector<Tensor> tensors_result(Call& call, std::size_t i, std::initializer_list<Input> inputs);
/// A view of `of`, registered with the borrow checker under `origin` (a literal).
TensorView view_result(Call& call, std::size_t i, const TensorArg& of, const char* origin);
std::vector<TensorView> views_result(Call& call, std::size_t i, const TensorArg& of,
                                     const char* origin);
/// A view of `of` that flash_powder made itself (src/aten/direct_routes.h),
/// registered like view_result's.
TensorView direct_view(abi::TensorHandle handle, const TensorArg& of, const char* origin);
std::int64_t int_result(Call& call, std::size_t i);
double float_result(Call& call, std::size_t i);
bool bool_result(Call& call, std::size_t i);
DType dtype_result(Call& call, std::size_t i);
std::vector<std::int64_t> ints_result(Call& call, std::size_t i);

}  // namespace ops::detail
}  // namespace fp
