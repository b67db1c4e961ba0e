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
//
// The three classes follow. What they share is in core/detail: metadata, data
// access and every read-only operation in tensor_base.h (detail::TensorBase),
// the view-making members in view_ops.h, the writing ones in
// mutable_access.h; how fp::dispatch passes and returns them in
// tensor_traits.h. What the library itself needs of them (the borrow state,
// views made from a raw handle) is private, reached through
// detail::TensorAccess (tensor_access.h). The methods are generated
// (core/detail/tensor_methods.h, from tools/generate_tensor_api.py).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "flash_powder/core/detail/mutable_access.h"
#include "flash_powder/core/detail/tensor_base.h"
#include "flash_powder/core/detail/view_ops.h"

namespace fp {

/// A read-only view of a tensor, like `std::span<const T>` or std::string_view.
/// Cheap to copy; shares the data of the tensor it was taken from. Every
/// read-only operation takes a TensorView, and `const Tensor&` and
/// `TensorMutView` convert to it implicitly.
class TensorView : public detail::TensorBase, public detail::ViewOps<TensorView> {
 public:
  /// An undefined view.
  TensorView() = default;
  // Implicit on purpose: like std::string to std::string_view.
  // NOLINTBEGIN(google-explicit-constructor)
  /// A view of all of `tensor` (implicit, like std::string to std::string_view).
  TensorView(const Tensor& tensor);
  /// A read-only view of what `view` sees.
  TensorView(const TensorMutView& view);
  // NOLINTEND(google-explicit-constructor)
  /// Another view of the same data.
  TensorView(const TensorView& other);
  /// Takes `other`'s view; `other` becomes undefined.
  TensorView(TensorView&& other) noexcept;
  /// Views what `other` views.
  TensorView& operator=(const TensorView& other);
  /// Takes `other`'s view; `other` becomes undefined.
  TensorView& operator=(TensorView&& other) noexcept;
  ~TensorView();

  /// A view of a temporary Tensor takes over its data: nothing else can reach
  /// that data any more, so nothing can change it, and the view's own handle
  /// keeps it alive. This is what lets `relu(conv2d(x, w))` take views.
  // Implicit on purpose: like std::string to std::string_view.
  // NOLINTBEGIN(google-explicit-constructor)
  TensorView(Tensor&& tensor) noexcept;
  // NOLINTEND(google-explicit-constructor)

 private:
  friend struct detail::TensorAccess;
  TensorView(abi::TensorHandle handle, detail::BorrowState* owner, const char* origin);
  void release_borrow() noexcept;
  detail::BorrowState* owner_ = nullptr;
};

/// A writable view of a tensor, like `std::span<T>` but move-only: while it
/// lives it is the only way to reach its parent's data, and its writes reach
/// the parent.
class TensorMutView : public detail::TensorBase,
                      public detail::ViewOps<TensorMutView>,
                      public detail::MutableAccess<TensorMutView> {
 public:
  /// Takes the borrow over; `other` becomes undefined.
  TensorMutView(TensorMutView&& other) noexcept;
  /// Ends this view's borrow and takes `other`'s.
  TensorMutView& operator=(TensorMutView&& other) noexcept;
  TensorMutView(const TensorMutView&) = delete;
  TensorMutView& operator=(const TensorMutView&) = delete;
  ~TensorMutView();

 private:
  friend struct detail::TensorAccess;
  friend class detail::MutableAccess<TensorMutView>;
  TensorMutView(abi::TensorHandle handle, detail::BorrowState* parent, const char* origin);
  detail::BorrowState* borrow_state() const;
  void check_mutation(const char* operation, int own_arguments = 0) const;
  void release_borrows() noexcept;
  detail::BorrowState* parent_ = nullptr;
  mutable std::atomic<detail::BorrowState*> own_{nullptr};
};

/// An owning tensor, like `std::vector<T>`: copies are independent values.
/// Python: `torch.Tensor`, minus the aliasing.
class Tensor : public detail::TensorBase,
               public detail::ViewOps<Tensor>,
               public detail::MutableAccess<Tensor> {
 public:
  /// An undefined tensor (no data); `is_defined()` is false.
  Tensor() = default;
  /// Takes ownership of a libtorch handle, e.g. one a custom op received.
  explicit Tensor(abi::TensorHandle handle) noexcept : TensorBase(std::move(handle)) {}
  /// An independent copy of a view's values, like `std::string{string_view}`.
  explicit Tensor(const TensorView& view);

  /// An independent value with the same contents (lazy copy-on-write clone).
  Tensor(const Tensor& other);
  /// Takes the data over; `other` becomes undefined (no copy).
  Tensor(Tensor&& other) noexcept;
  /// Becomes an independent copy of `other` (lazy copy-on-write).
  Tensor& operator=(const Tensor& other);
  /// Takes `other`'s data; `other` becomes undefined.
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

 private:
  friend struct detail::TensorAccess;
  friend class detail::MutableAccess<Tensor>;
  detail::BorrowState* borrow_state() const;
  void check_mutation(const char* operation, int own_arguments = 0) const;
  friend class TensorView;  // takes over a temporary's handle
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
  defined_raw("to_vector");
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

#include "flash_powder/core/detail/tensor_traits.h"
#include "flash_powder/core/tensor_inl.h"
