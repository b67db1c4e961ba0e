// Arguments and results of dispatched ops, before and after StableIValue boxing.
//
// libtorch's dispatcher takes a stack of 64-bit StableIValues whose meaning
// depends on the op's schema (a tensor handle, an int, a list handle, ...). A
// C++ value is first captured as an `Arg`; `fp::dispatch` then boxes it for the
// schema type it meets, so an int can fill a `float` argument, a vector a
// fixed-size `int[2]`, and a wrong type is an fp::Error instead of a crash.
// Results come back as `Returned`, which owns whatever libtorch handed over.
//
// How a C++ value becomes an Arg, and a Returned a C++ value, is in
// abi/arg_traits.h and abi/return_traits.h; other layers teach the dispatcher
// their types by specialising those traits (core does so for fp::Tensor, ...).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "flash_powder/abi/error.h"
#include "flash_powder/abi/generator_handle.h"
#include "flash_powder/abi/tensor_handle.h"

namespace fp::abi {

/// The absent value: Python's None, C++'s std::nullopt.
struct None {
  /// All Nones are equal.
  friend constexpr bool operator==(None, None) = default;
};

/// What the owner of a tensor argument says about writing to it. abi knows
/// nothing of views; the layer that makes them (core's borrow checker,
/// detail::BorrowState) implements this, and fp::dispatch asks it before an
/// op writes to a `Tensor(a!)` argument.
class WriteGuard {
 public:
  /// Throws (fp::BorrowError) if `operation` may not write the owner now;
  /// `own_arguments` of the call's arguments are views of this same owner.
  virtual void check_write(const char* operation, int own_arguments) const = 0;

 protected:
  ~WriteGuard() = default;
};

/// One argument on its way to the dispatcher. Tensors and generators are
/// borrowed: the caller keeps them alive until the call returns.
/// A null RawTensor inside `tensors` stands for None (a `Tensor?[]` element).
struct Arg {
  /// Every kind of value an op argument can be.
  using Value =
      std::variant<None, RawTensor, std::int64_t, double, bool, DType, Layout, MemoryFormat, Device,
                   std::string, RawGenerator, std::vector<std::int64_t>, std::vector<double>,
                   std::vector<bool>, std::vector<RawTensor>>;
  /// The argument's value.
  Value value;

  // --- what keeps fp::dispatch honest about tensors (set by core's ArgTraits) ---
  /// The caller lent this tensor for writing: a non-const fp::Tensor or an
  /// fp::TensorMutView. Only such tensors may fill a `Tensor(a!)` argument.
  bool writable = false;
  /// For an owner (Tensor, TensorMutView): the guard its views register with
  /// (core's borrow checker); null when none exists or checks are compiled out.
  const WriteGuard* owner_guard = nullptr;
  /// For a view: the guard of the owner it was taken from.
  const WriteGuard* viewed_guard = nullptr;

  /// How the value reads in an error message, e.g. "int", "Tensor[]".
  std::string_view type_name() const;
};

/// One result of a dispatched op; owns the handles libtorch returned.
struct Returned {
  /// Every kind of value an op result can be.
  using Value =
      std::variant<None, TensorHandle, std::int64_t, double, bool, DType, Layout, MemoryFormat,
                   Device, std::string, GeneratorHandle, std::vector<TensorHandle>,
                   std::vector<std::int64_t>, std::vector<double>, std::vector<bool>>;
  /// The result's value (owning its handles).
  Value value;
  /// The schema marks this result as (possibly) sharing memory with an
  /// argument, e.g. `transpose -> Tensor(a)` or in-place `add_ -> Tensor(a!)`.
  bool aliases_argument = false;
  /// Then: the guard of that argument's owner (which a view of it registers
  /// with), or null when it has none (a raw handle, checks compiled out).
  const WriteGuard* alias_guard = nullptr;

  /// How the value reads in an error message, e.g. "Tensor".
  std::string_view type_name() const;
};

/// The values of one call's results: the first few in place (an op returns
/// one to three, mostly), more on the heap; so a call allocates nothing for them.
class ReturnedValues {
 public:
  ReturnedValues() = default;
  /// Takes `other`'s values; `other` is left empty.
  ReturnedValues(ReturnedValues&& other) noexcept
      : inline_(std::move(other.inline_)), heap_(std::move(other.heap_)), size_(other.size_) {
    other.size_ = 0;
  }
  /// Takes `other`'s values; `other` is left empty.
  ReturnedValues& operator=(ReturnedValues&& other) noexcept {
    inline_ = std::move(other.inline_);
    heap_ = std::move(other.heap_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }
  ReturnedValues(const ReturnedValues&) = delete;
  ReturnedValues& operator=(const ReturnedValues&) = delete;
  ~ReturnedValues() = default;

  /// The number of results.
  std::size_t size() const noexcept { return size_; }
  /// Whether there are none.
  bool empty() const noexcept { return size_ == 0; }
  /// The result at `i` (< size()).
  Returned& operator[](std::size_t i) noexcept {
    return i < inline_size ? inline_[i] : heap_[i - inline_size];
  }
  /// The result at `i` (< size()).
  const Returned& operator[](std::size_t i) const noexcept {
    return i < inline_size ? inline_[i] : heap_[i - inline_size];
  }
  /// The first result.
  Returned& front() noexcept { return (*this)[0]; }
  /// The last result.
  Returned& back() noexcept { return (*this)[size_ - 1]; }
  /// Appends a result.
  void push_back(Returned&& value) {
    if (size_ < inline_size) {
      inline_[size_] = std::move(value);
    } else {
      heap_.push_back(std::move(value));
    }
    ++size_;
  }

 private:
  static constexpr std::size_t inline_size = 4;
  std::array<Returned, inline_size> inline_;
  std::vector<Returned> heap_;
  std::size_t size_ = 0;
};

/// The results of one call, with the schema they were produced by (for messages).
struct Results {
  /// The results, in the schema's order.
  ReturnedValues values;
  std::string_view op;      ///< "aten::max.dim" (a Schema's, which lives as long as the process)
  std::string_view schema;  ///< "max.dim(Tensor self, int dim, bool keepdim=False) -> ..."

  /// Throws fp::Error("<op>: <problem>; the schema is <schema>").
  [[noreturn]] void fail(std::string_view problem) const;
};

}  // namespace fp::abi

#include "flash_powder/abi/arg_traits.h"
#include "flash_powder/abi/return_traits.h"
