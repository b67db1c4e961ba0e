// Indexing expressions: what goes between the brackets of `t[...]` in Python.
//
//     t.i(1)                          t[1]
//     t.i(-1, fp::all)                t[-1, :]
//     t.i(fp::slice(0, 2))            t[0:2]
//     t.i(fp::slice(fp::end, fp::end, 2))   t[::2]
//     t.i(fp::slice(1, fp::end))      t[1:]
//     t.i(fp::ellipsis, 0)            t[..., 0]
//     t.i(fp::newaxis)                t[None]
//     t.index(rows)                   t[rows]          (rows: an integer or bool tensor)
//     t.index(fp::all, cols)          t[:, cols]
//
// `i` and `i_mut` take integers, slices, fp::all, fp::ellipsis and
// fp::newaxis: the expressions for which PyTorch always returns a view. Tensor
// indices (advanced indexing) make a copy in PyTorch, so they go to `index`,
// which returns a new Tensor, and `index_put_`.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <variant>

#include "flash_powder/core/tensor_arg.h"

namespace fp {

/// An omitted slice bound, like the empty side of Python's `a:` or `:b`.
struct SliceEnd {};
/// The omitted bound: `fp::slice(1, fp::end)` is `1:`.
inline constexpr SliceEnd end{};

/// One bound of a slice: an index (negative counts from the end) or fp::end.
class SliceBound {
 public:
  // Implicit on purpose: an index, End or None, like a Python slice bound.
  // NOLINTBEGIN(google-explicit-constructor)
  /// An index; negative counts from the end.
  constexpr SliceBound(std::int64_t index) : index_(index) {}
  /// An index; negative counts from the end.
  constexpr SliceBound(int index) : index_(index) {}
  /// Omitted (fp::end).
  constexpr SliceBound(SliceEnd) {}
  /// Omitted (std::nullopt, Python's None).
  constexpr SliceBound(std::nullopt_t) {}
  // NOLINTEND(google-explicit-constructor)
  /// The index, or nullopt when omitted.
  constexpr std::optional<std::int64_t> index() const { return index_; }

 private:
  std::optional<std::int64_t> index_;
};

/// Python's `start:stop:step`. Bounds clamp and wrap like Python's; the step
/// must be positive (as in PyTorch).
struct Slice {
  /// The first index, or nullopt for the start.
  std::optional<std::int64_t> start;
  /// The index after the last, or nullopt for the end.
  std::optional<std::int64_t> stop;
  /// The step, >= 1.
  std::int64_t step = 1;
};

/// `fp::slice(0, 2)` is `0:2`; `fp::slice(1, fp::end)` is `1:`;
/// `fp::slice(fp::end, fp::end, 2)` is `::2`.
constexpr Slice slice(SliceBound start, SliceBound stop = end, std::int64_t step = 1) {
  return {start.index(), stop.index(), step};
}

/// Python's `:` (a whole dimension).
struct All {};
/// `:`, a whole dimension: `t.i(fp::all, 0)` is `t[:, 0]`.
inline constexpr All all{};
/// Python's `...`.
struct Ellipsis {};
/// `...`: `t.i(fp::ellipsis, 0)` is `t[..., 0]`.
inline constexpr Ellipsis ellipsis{};
/// Python's `None` inside brackets: a new dimension of size 1.
struct NewAxis {};
/// `None` in an index: `t.i(fp::newaxis)` is `t[None]`.
inline constexpr NewAxis newaxis{};

/// One item of a basic (view-making) index expression.
using ViewIndex = std::variant<std::int64_t, Slice, All, Ellipsis, NewAxis>;

/// One item of an advanced index expression: a basic item or a tensor.
using TensorIndex = std::variant<std::int64_t, Slice, All, Ellipsis, NewAxis, TensorArg>;

namespace detail {
template <class T>
ViewIndex to_view_index(const T& item) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<std::int64_t>(item);
  } else {
    static_assert(std::is_same_v<T, Slice> || std::is_same_v<T, All> ||
                      std::is_same_v<T, Ellipsis> || std::is_same_v<T, NewAxis>,
                  "i()/i_mut() take integers, fp::slice, fp::all, fp::ellipsis, fp::newaxis; "
                  "index tensors go to index()");
    return item;
  }
}

template <class T>
TensorIndex to_tensor_index(const T& item) {
  if constexpr (std::is_same_v<T, Tensor> || std::is_same_v<T, TensorView> ||
                std::is_same_v<T, TensorMutView> || std::is_same_v<T, TensorArg>) {
    return std::conditional_t<true, TensorArg, T>(item);
  } else {
    return std::visit([](const auto& basic) -> TensorIndex { return basic; }, to_view_index(item));
  }
}
}  // namespace detail

}  // namespace fp
