// How a C++ function becomes a boxed libtorch kernel: its parameters and
// result are read as a schema (KernelSignature), each argument libtorch hands
// over is unboxed into the parameter's type, and the result is boxed back.
// Used by fp::library::Library::impl (library/library.h).
//
//   schema type   C++ parameter                                 C++ result
//   Tensor        fp::TensorView, const fp::Tensor&, fp::Tensor  fp::Tensor
//   Tensor(a!)    fp::TensorMutView                              -
//   int, SymInt   std::int64_t                                   std::int64_t
//   float         double                                         double
//   bool          bool                                           bool
//   str           std::string_view, std::string                  std::string
//   ScalarType    fp::DType                                      fp::DType
//   Device        fp::Device                                     fp::Device
//   int[]         std::vector<std::int64_t>                      same
//   float[]       std::vector<double>                            same
//   Tensor[]      std::vector<fp::TensorView>, std::vector<fp::Tensor>   std::vector<fp::Tensor>
//   T?            std::optional<parameter of T>                  -
//   (A, B)        -                                              std::tuple<A, B>
//   ()            -                                              void
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "flash_powder/abi/library.h"
#include "flash_powder/abi/schema_types.h"
#include "flash_powder/core/detail/tensor_access.h"
#include "flash_powder/core/tensor.h"

namespace fp::library::detail {

// --- parameters -------------------------------------------------------------

/// KernelParam<T>: the schema type a parameter of type T stands for
/// (`spelling`), the value kept for the call (`Stored`) and how it is made
/// from what libtorch passed (`unbox`).
template <class T, class Enable = void>
struct KernelParam;  // no mapping: a compile error names T

template <>
struct KernelParam<TensorView> {
  static std::string spelling() { return "Tensor"; }
  using Stored = TensorView;
  static Stored unbox(abi::Returned&& value) {
    return fp::detail::TensorAccess::view(std::get<abi::TensorHandle>(std::move(value.value)),
                                          nullptr, "a kernel argument");
  }
};

template <>
struct KernelParam<TensorMutView> {
  static std::string spelling() { return "Tensor(a!)"; }
  using Stored = TensorMutView;
  static Stored unbox(abi::Returned&& value) {
    return fp::detail::TensorAccess::mut_view(std::get<abi::TensorHandle>(std::move(value.value)),
                                              nullptr, "a kernel argument");
  }
};

/// A Tensor parameter is the caller's tensor as an independent value: a lazy
/// copy, so that the kernel changing it never changes the caller's.
template <>
struct KernelParam<Tensor> {
  static std::string spelling() { return "Tensor"; }
  using Stored = Tensor;
  static Stored unbox(abi::Returned&& value) {
    return fp::detail::independent(std::get<abi::TensorHandle>(std::move(value.value)));
  }
};

template <class T>
struct PlainParam {
  using Stored = T;
  static Stored unbox(abi::Returned&& value) { return std::get<T>(std::move(value.value)); }
};

/// The plain types a kernel takes: int, float, bool, ScalarType, Device,
/// str, named as the one table of schema types names them (schema_types.h).
template <class T>
inline constexpr bool kernel_takes_plain_v =
    abi::PlainSchemaValue<T> && !std::is_same_v<T, abi::RawGenerator> &&
    !std::is_same_v<T, Layout> && !std::is_same_v<T, MemoryFormat>;

template <class T>
requires kernel_takes_plain_v<T>
struct KernelParam<T> : PlainParam<T> {
  static std::string spelling() { return std::string(abi::SchemaValue<T>::name); }
};
/// The view reads the string kept for the call.
template <>
struct KernelParam<std::string_view> : KernelParam<std::string> {};
/// int[] and float[].
template <class T>
requires(std::is_same_v<T, std::int64_t> ||
         std::is_same_v<T, double>) struct KernelParam<std::vector<T>>
    : PlainParam<std::vector<T>> {
  static std::string spelling() { return std::string(abi::SchemaValue<T>::name) + "[]"; }
};

template <class T>
requires(std::is_same_v<T, TensorView> ||
         std::is_same_v<T, Tensor>) struct KernelParam<std::vector<T>> {
  static std::string spelling() { return "Tensor[]"; }
  using Stored = std::vector<T>;
  static Stored unbox(abi::Returned&& value) {
    Stored tensors;
    for (auto& handle : std::get<std::vector<abi::TensorHandle>>(std::move(value.value))) {
      abi::Returned one{std::move(handle)};
      tensors.push_back(KernelParam<T>::unbox(std::move(one)));
    }
    return tensors;
  }
};

template <class T>
struct KernelParam<std::optional<T>> {
  static std::string spelling() { return KernelParam<T>::spelling() + "?"; }
  using Stored = std::optional<typename KernelParam<T>::Stored>;
  static Stored unbox(abi::Returned&& value) {
    if (std::holds_alternative<abi::None>(value.value)) return std::nullopt;
    return KernelParam<T>::unbox(std::move(value));
  }
};

/// The parameter type without const and reference: `const Tensor&` -> Tensor.
template <class P>
using ParamOf = KernelParam<std::remove_cvref_t<P>>;

// --- results ----------------------------------------------------------------

template <class R, class Enable = void>
struct KernelResult {
  static_assert(!std::is_same_v<R, TensorView> && !std::is_same_v<R, TensorMutView>,
                "a kernel returns an fp::Tensor, not a view: a result may not share memory "
                "with an argument");
  /// The schema type of the result, e.g. "Tensor".
  static std::string spelling() { return ParamOf<R>::spelling(); }
  static std::vector<abi::Arg> box(const R& value) { return {abi::to_arg(value)}; }
};

template <>
struct KernelResult<void> {
  static std::string spelling() { return "()"; }
};

template <class... Rs>
struct KernelResult<std::tuple<Rs...>> {
  static std::string spelling() {
    std::string text = "(";
    ((text += KernelResult<Rs>::spelling() + ", "), ...);
    text.resize(text.size() - 2);
    return text + ")";
  }
  static std::vector<abi::Arg> box(const std::tuple<Rs...>& values) {
    return std::apply(
        [](const auto&... each) { return std::vector<abi::Arg>{abi::to_arg(each)...}; }, values);
  }
};

// --- the kernel's own schema ----------------------------------------------------

/// The schema a C++ function stands for, e.g.
/// `kernel(Tensor a0, Tensor(b!) a1, float a2) -> Tensor` for
/// `fp::Tensor f(fp::TensorView, fp::TensorMutView, double)`.
template <class Function>
struct KernelSignature;

template <class R, class... Ps>
struct KernelSignature<R (*)(Ps...)> {
  using Result = R;
  using Params = std::tuple<Ps...>;

  static std::string text() {
    std::string arguments;
    std::size_t index = 0;
    ((arguments += (index == 0 ? "" : ", ") + argument<Ps>(index), ++index), ...);
    return "kernel(" + arguments + ") -> " + KernelResult<R>::spelling();
  }

 private:
  /// Each written tensor gets its own alias set, as schemas spell it.
  template <class P>
  static std::string argument(std::size_t index) {
    std::string type = ParamOf<P>::spelling();
    const auto alias = type.find("(a!)");
    if (alias != std::string::npos) type.replace(alias, 4, "(w" + std::to_string(index) + "!)");
    return type + " a" + std::to_string(index);
  }
};

template <class R, class... Ps>
struct KernelSignature<R (*)(Ps...) noexcept> : KernelSignature<R (*)(Ps...)> {};

/// The schema of `Kernel`, parsed once.
template <auto Kernel>
const abi::Schema& kernel_schema() {
  static const abi::Schema schema =
      abi::Schema::parse(KernelSignature<decltype(Kernel)>::text(), "fp_kernel");
  return schema;
}

// --- checks and the boxed entry point -------------------------------------------

/// Throws fp::Error when `op`'s schema and the kernel's differ in a way that
/// would misread an argument or result; `key` and `op` name it in the message.
void check_kernel_matches(const abi::Schema& op, const abi::Schema& kernel, std::string_view key);

/// What is known about one kernel function, shared by every op it is bound to.
struct KernelState {
  /// The first op it was bound to whose schema was unknown at the time
  /// (defined in another file or in Python): checked at the first call.
  std::string unchecked_op;
  std::string key;
  std::atomic<bool> checked = false;
};

/// Runs the pending check of `state` once, where the op's schema is known by now.
void check_on_first_call(KernelState& state, const abi::Schema& kernel);

template <auto Kernel>
KernelState& kernel_state() {
  static KernelState state;
  return state;
}

/// Hands each stored argument to the kernel: by reference where it takes a
/// reference, moved where it takes a value.
template <class P, class Stored>
decltype(auto) pass(Stored& stored) {
  if constexpr (std::is_lvalue_reference_v<P>) {
    return static_cast<Stored&>(stored);
  } else {
    return std::move(stored);
  }
}

template <auto Kernel, class... Ps, std::size_t... I>
void run_kernel(abi::KernelStack& stack, std::tuple<Ps...>*, std::index_sequence<I...>) {
  using Result = typename KernelSignature<decltype(Kernel)>::Result;
  // Arguments in order; the stack frees whatever is not taken if one throws.
  std::tuple<typename ParamOf<Ps>::Stored...> stored{ParamOf<Ps>::unbox(stack.take(I))...};
  if constexpr (std::is_void_v<Result>) {
    Kernel(pass<Ps>(std::get<I>(stored))...);
    stack.put_results({});
  } else {
    const Result result = Kernel(pass<Ps>(std::get<I>(stored))...);
    const std::vector<abi::Arg> boxed = KernelResult<Result>::box(result);
    stack.put_results(boxed);
  }
}

/// The boxed kernel libtorch calls. An exception (the kernel's fp::Error, a
/// mismatch) leaves through libtorch, which turns it into a RuntimeError in
/// Python and an fp::Error in fp::dispatch; the arguments are freed on the way.
template <auto Kernel>
void boxed_kernel(std::uint64_t* stack, std::uint64_t arguments, std::uint64_t returns) {
  const abi::Schema& schema = kernel_schema<Kernel>();
  // Owned first, so that a failing check below still frees the arguments.
  abi::KernelStack owned(stack, arguments, returns, schema);
  KernelState& state = kernel_state<Kernel>();
  if (!state.checked) check_on_first_call(state, schema);
  using Params = typename KernelSignature<decltype(Kernel)>::Params;
  run_kernel<Kernel>(owned, static_cast<Params*>(nullptr),
                     std::make_index_sequence<std::tuple_size_v<Params>>{});
}

}  // namespace fp::library::detail
