// What the generated fp::aten wrappers (src/aten/generated) call: a Call
// boxes each parameter type for its schema argument (abi::OpCall), runs the op,
// and the *_result functions turn its results into C++ values. Private to the
// library: no public header includes it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "abi/op_call.h"
#include "flash_powder/abi/ivalue.h"
#include "flash_powder/core/arguments.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp::aten::detail {

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
/// The same for a view op that can set a lazy conjugation or negation bit
/// (`conj`, `_neg_view`, ...): where the result has one, its values resolved
/// into memory of their own (a TensorView owning it), since data<T>() and
/// at<T>() read memory, which holds the values before the bit.
TensorView resolved_view_result(Call& call, std::size_t i, const TensorArg& of, const char* origin);
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

}  // namespace fp::aten::detail
