// fp::Tensor, fp::TensorView and fp::TensorMutView: tensors with the value
// semantics C++ programmers know from std::vector and std::span.
//
//   fp::Tensor        owns its data like std::vector<T>. Copying it makes an
//                     independent value (a lazy copy-on-write clone, so the copy
//                     is cheap until one side writes); moving is free.
//   fp::TensorView    reads like std::span<const T>: cheap to copy, never mutates.
//   fp::TensorMutView writes like std::span<T>, but move-only (a unique borrow);
//                     its writes reach the tensor it was taken from.
//
// Modifying one tensor never modifies another, unless it is a TensorMutView of
// it. Each view holds its own libtorch handle, so its memory stays valid even
// after its parent is gone. See core/borrow.h for the debug checks of the rest.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/abi/ivalue.h"
#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/core/borrow.h"
#include "flash_powder/core/element_type.h"

namespace fp {

class Tensor;
class TensorView;
class TensorMutView;

namespace detail {

/// What all three tensor types can do without mutating anything: metadata,
/// read access to the data, and every read-only operation.
class TensorBase {
 public:
  /// The libtorch handle, for calling C shim functions directly (not owned).
  abi::RawTensor raw() const noexcept { return handle_.get(); }

  // --- properties (Python: the torch.Tensor attribute of the same name) ----

  /// False for a default-constructed or moved-from tensor.
  bool is_defined() const noexcept { return handle_ && abi::is_defined(handle_.get()); }
  std::int64_t dim() const;
  /// Like `t.shape`. Valid while the tensor lives.
  std::span<const std::int64_t> sizes() const;
  std::span<const std::int64_t> strides() const;
  /// `t.size(d)`; negative `d` counts from the end. Throws on a bad dimension.
  std::int64_t size(std::int64_t d) const;
  /// `t.stride(d)`; negative `d` counts from the end.
  std::int64_t stride(std::int64_t d) const;
  std::int64_t numel() const;
  DType dtype() const;
  Device device() const;
  Layout layout() const;
  bool is_contiguous() const;
  std::int64_t storage_offset() const;
  std::size_t element_size() const { return fp::element_size(dtype()); }
  /// `t.nbytes`: numel() * element_size().
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * element_size(); }

  // --- read access to the data (CPU, contiguous, matching dtype) ------------

  /// All elements in memory order, like `std::span<const T>`. Throws fp::Error
  /// unless the tensor is on the CPU, contiguous and of dtype `dtype_of<T>`.
  template <Element T>
  std::span<const T> data() const {
    return {static_cast<const T*>(checked_data(dtype_of<T>, "data")),
            static_cast<std::size_t>(numel())};
  }
  /// The element at `indices` (negative ones count from the end); bounds checked.
  template <Element T>
  T at(std::span<const std::int64_t> indices) const {
    return *static_cast<const T*>(checked_element(dtype_of<T>, indices, "at"));
  }
  template <Element T>
  T at(std::initializer_list<std::int64_t> indices) const {
    return at<T>(std::span<const std::int64_t>(indices.begin(), indices.size()));
  }
  /// The only element converted to T, like `t.item()`; throws unless numel()==1.
  template <Element T>
  T item() const;
  /// A copy of the elements (any layout, CPU) converted to T, in row-major order.
  template <Element T>
  std::vector<T> to_vector() const;

  // --- conversions ---------------------------------------------------------

  /// A new, independent Tensor with the same values (a lazy clone).
  Tensor to_owned() const;

 protected:
  TensorBase() = default;
  explicit TensorBase(abi::TensorHandle handle) noexcept : handle_(std::move(handle)) {}
  TensorBase(TensorBase&&) noexcept = default;
  TensorBase& operator=(TensorBase&&) noexcept = default;
  ~TensorBase() = default;

  /// Throws fp::Error when this tensor is undefined.
  abi::RawTensor defined_raw(const char* operation) const;
  const void* checked_data(DType wanted, const char* operation) const;
  const void* checked_element(DType wanted, std::span<const std::int64_t> indices,
                              const char* operation) const;
  void* checked_mutable_data(DType wanted, const char* operation) const;
  void* checked_mutable_element(DType wanted, std::span<const std::int64_t> indices,
                                const char* operation) const;
  /// The element of a 1-element tensor converted to `wanted`, into `out`.
  void item_into(DType wanted, void* out) const;
  /// Copies all elements converted to `wanted` into `out` (numel() of them).
  void copy_out(DType wanted, void* out) const;

  abi::TensorHandle handle_;
};

/// The write access shared by Tensor and TensorMutView. `Derived` provides
/// `check_mutation(const char*)`, which the borrow checker implements.
template <class Derived>
class MutableAccess {
 public:
  /// All elements, writable, like `std::span<T>`. Same checks as data<T>().
  template <Element T>
  std::span<T> data_mut() {
    self().check_mutation("data_mut()");
    return {static_cast<T*>(self().checked_mutable_data(dtype_of<T>, "data_mut")),
            static_cast<std::size_t>(self().numel())};
  }
  /// A writable reference to the element at `indices`; bounds checked.
  template <Element T>
  T& at_mut(std::span<const std::int64_t> indices) {
    self().check_mutation("at_mut()");
    return *static_cast<T*>(self().checked_mutable_element(dtype_of<T>, indices, "at_mut"));
  }
  template <Element T>
  T& at_mut(std::initializer_list<std::int64_t> indices) {
    return at_mut<T>(std::span<const std::int64_t>(indices.begin(), indices.size()));
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace detail

/// A read-only view of a tensor, like `std::span<const T>` or std::string_view.
/// Cheap to copy; shares the data of the tensor it was taken from. Every
/// read-only operation takes a TensorView, and `const Tensor&` and
/// `TensorMutView` convert to it implicitly.
class TensorView : public detail::TensorBase {
 public:
  /// An undefined view.
  TensorView() = default;
  TensorView(const Tensor& tensor);         // NOLINT: implicit, like std::string -> string_view
  TensorView(const TensorMutView& view);    // NOLINT: implicit
  TensorView(const TensorView& other);
  TensorView(TensorView&& other) noexcept;
  TensorView& operator=(const TensorView& other);
  TensorView& operator=(TensorView&& other) noexcept;
  ~TensorView();

  /// Views are made from Tensors; a temporary would leave nothing to view.
  TensorView(Tensor&&) = delete;

  /// Internal: a view with its own handle that borrows from `owner` (may be null).
  TensorView(abi::TensorHandle handle, detail::BorrowState* owner, const char* origin);
  /// Internal: the state this view borrows from (null when unchecked).
  detail::BorrowState* borrowed_from() const noexcept { return owner_; }

 private:
  void release_borrow() noexcept;
  detail::BorrowState* owner_ = nullptr;
};

/// A writable view of a tensor, like `std::span<T>` but move-only: while it
/// lives it is the only way to reach its parent's data, and its writes reach
/// the parent.
class TensorMutView : public detail::TensorBase,
                      public detail::MutableAccess<TensorMutView> {
 public:
  TensorMutView(TensorMutView&& other) noexcept;
  TensorMutView& operator=(TensorMutView&& other) noexcept;
  TensorMutView(const TensorMutView&) = delete;
  TensorMutView& operator=(const TensorMutView&) = delete;
  ~TensorMutView();

  /// Internal: a view with its own handle that borrows `parent` exclusively.
  TensorMutView(abi::TensorHandle handle, detail::BorrowState* parent, const char* origin);
  /// Internal: the state views of this view register with (made on first use).
  detail::BorrowState* borrow_state() const;
  /// Internal: that state if it exists yet (null otherwise or when unchecked).
  detail::BorrowState* existing_borrow_state() const noexcept { return own_.load(); }
  /// Internal: throws fp::BorrowError if `operation` may not write now.
  void check_mutation(const char* operation, int own_arguments = 0) const;

 private:
  friend class detail::MutableAccess<TensorMutView>;
  void release_borrows() noexcept;
  detail::BorrowState* parent_ = nullptr;
  mutable std::atomic<detail::BorrowState*> own_{nullptr};
};

/// An owning tensor, like `std::vector<T>`: copies are independent values.
/// Python: `torch.Tensor`, minus the aliasing.
class Tensor : public detail::TensorBase, public detail::MutableAccess<Tensor> {
 public:
  /// An undefined tensor (no data); `is_defined()` is false.
  Tensor() = default;
  /// Takes ownership of a libtorch handle, e.g. one a custom op received.
  explicit Tensor(abi::TensorHandle handle) noexcept : TensorBase(std::move(handle)) {}
  /// An independent copy of a view's values, like `std::string{string_view}`.
  explicit Tensor(const TensorView& view);

  /// An independent value with the same contents (lazy copy-on-write clone).
  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

  /// Internal: the state views of this tensor register with (made on first use).
  detail::BorrowState* borrow_state() const;
  /// Internal: that state if it exists yet (null otherwise or when unchecked).
  detail::BorrowState* existing_borrow_state() const noexcept { return borrow_.load(); }
  /// Internal: throws fp::BorrowError if `operation` may not write now.
  void check_mutation(const char* operation, int own_arguments = 0) const;

 private:
  friend class detail::MutableAccess<Tensor>;
  mutable std::atomic<detail::BorrowState*> borrow_{nullptr};
};

static_assert(sizeof(Tensor) <= 2 * sizeof(void*), "fp::Tensor must stay two pointers wide");

// The borrow checks are inline so that builds without FP_BORROW_CHECK pay nothing.
inline void Tensor::check_mutation([[maybe_unused]] const char* operation,
                                   [[maybe_unused]] int own_arguments) const {
#if FP_BORROW_CHECK
  if (auto* state = borrow_.load(std::memory_order_acquire)) {
    state->check_mutation(operation, own_arguments);
  }
#endif
}

inline void TensorMutView::check_mutation([[maybe_unused]] const char* operation,
                                          [[maybe_unused]] int own_arguments) const {
#if FP_BORROW_CHECK
  if (auto* state = own_.load(std::memory_order_acquire)) {
    state->check_mutation(operation, own_arguments);
  }
#endif
}

template <Element T>
T detail::TensorBase::item() const {
  T value{};
  item_into(dtype_of<T>, &value);
  return value;
}

template <Element T>
std::vector<T> detail::TensorBase::to_vector() const {
  if constexpr (std::is_same_v<T, bool>) {
    // std::vector<bool> packs bits; go through bytes.
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(numel()));
    copy_out(DType::Bool, bytes.data());
    return std::vector<bool>(bytes.begin(), bytes.end());
  } else {
    std::vector<T> values(static_cast<std::size_t>(numel()));
    copy_out(dtype_of<T>, values.data());
    return values;
  }
}

}  // namespace fp

// --- teaching fp::dispatch about the tensor types ----------------------------
namespace fp::detail {
void check_borrow_mutation(const void* owner_state, const char* operation, int own_arguments);
/// An independent Tensor from a handle that may share memory with another.
Tensor independent(abi::TensorHandle handle);
}  // namespace fp::detail

namespace fp::abi {

template <class T>
  requires(std::is_same_v<T, Tensor> || std::is_same_v<T, TensorMutView>)
struct ArgTraits<T> {
  static constexpr bool is_tensor = true;
  static RawTensor raw(const T& tensor) { return tensor.raw(); }
  static Arg make(const T& tensor) {
    Arg arg{tensor.raw()};
    arg.owner_state = tensor.existing_borrow_state();
    arg.check_mutation = &fp::detail::check_borrow_mutation;
    return arg;
  }
  /// A non-const Tensor or TensorMutView: lent for writing.
  static Arg make_writable(T& tensor) {
    Arg arg = make(tensor);
    arg.writable = true;
    return arg;
  }
};

template <>
struct ArgTraits<TensorView> {
  static constexpr bool is_tensor = true;
  static RawTensor raw(const TensorView& view) { return view.raw(); }
  static Arg make(const TensorView& view) {
    Arg arg{view.raw()};
    arg.viewed_state = view.borrowed_from();
    return arg;
  }
};

template <>
struct ReturnTraits<Tensor> {
  static Tensor from_one(Returned&& value, const Results& results) {
    const bool shared = value.aliases_argument;
    TensorHandle handle =
        detail::take_alternative<TensorHandle>(std::move(value), results, "a Tensor");
    return shared ? fp::detail::independent(std::move(handle)) : Tensor(std::move(handle));
  }
  static Tensor take(Results&& results) {
    return from_one(std::move(detail::only_value(results, "Tensor")), results);
  }
};

template <>
struct ReturnTraits<std::vector<Tensor>> {
  static std::vector<Tensor> from_one(Returned&& value, const Results& results) {
    const bool shared = value.aliases_argument;
    auto handles = detail::take_alternative<std::vector<TensorHandle>>(std::move(value), results,
                                                                      "a list of Tensors");
    std::vector<Tensor> tensors;
    tensors.reserve(handles.size());
    for (auto& handle : handles) {
      tensors.push_back(shared ? fp::detail::independent(std::move(handle))
                               : Tensor(std::move(handle)));
    }
    return tensors;
  }
  static std::vector<Tensor> take(Results&& results) {
    return from_one(std::move(detail::only_value(results, "Tensor[]")), results);
  }
};

}  // namespace fp::abi
