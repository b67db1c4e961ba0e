// `t[...]` in C++: basic indexing (views), advanced indexing (copies) and
// index assignment, following PyTorch's own translation of an index
// expression into select / slice / unsqueeze / index ops
// (torch/csrc/autograd/python_variable_indexing.cpp, ATen/TensorIndexing.h).
#include <string>
#include <variant>

#include "arithmetic.h"
#include "flash_powder/aten/aten.h"

namespace fp::detail {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
// Clang 14 does not deduce an aggregate's template arguments (C++20's P1816).
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

/// A tensor handle standing for the intermediate results of an expression.
Tensor holding(abi::TensorHandle handle) {
  return Tensor(std::move(handle));
}

abi::TensorHandle handle_of(const TensorView& view) {
  return abi::share(view.raw());
}

template <class Item>
bool consumes_a_dimension(const Item& item) {
  return std::visit(
      Overloaded{[](std::int64_t) { return true; }, [](const Slice&) { return true; },
                 [](All) { return true; }, [](Ellipsis) { return false; },
                 [](NewAxis) { return false; }, [](const TensorArg&) { return true; }},
      item);
}

/// Checks the expression's shape and returns how many dimensions an
/// ellipsis stands for. (Like PyTorch, and unlike NumPy, several ellipses are
/// accepted; each stands for the same dimensions.)
template <class Item>
std::int64_t ellipsis_width(std::span<const Item> items, std::int64_t rank) {
  std::int64_t consumed = 0;
  for (const Item& item : items)
    consumed += consumes_a_dimension(item);
  if (consumed > rank) {
    throw Error(ErrorCode::BadArgument,
                "index: too many indices for tensor of dimension " + std::to_string(rank));
  }
  return rank - consumed;
}

/// One step of basic indexing applied to `current` at dimension `dim`.
struct BasicStep {
  Tensor& current;
  std::int64_t& dim;
  std::int64_t ellipsis;

  void operator()(std::int64_t index) const {
    const std::int64_t size = current.size(dim);
    if (index < -size || index >= size) {
      throw Error(ErrorCode::BadArgument,
                  "index: index " + std::to_string(index) + " is out of bounds for dimension " +
                      std::to_string(dim) + " with size " + std::to_string(size));
    }
    current =
        holding(handle_of(aten::select_int(detail::TensorAccess::unchecked(current), dim, index)));
  }
  void operator()(const Slice& slice) const {
    if (slice.step <= 0)
      throw Error(ErrorCode::BadArgument, "index: step must be greater than zero");
    current = holding(handle_of(aten::slice_Tensor(detail::TensorAccess::unchecked(current), dim,
                                                   slice.start, slice.stop, slice.step)));
    ++dim;
  }
  void operator()(All) const { ++dim; }
  void operator()(Ellipsis) const { dim += ellipsis; }
  void operator()(NewAxis) const {
    current = holding(handle_of(aten::unsqueeze(detail::TensorAccess::unchecked(current), dim)));
    ++dim;
  }
};

/// Applies the basic items of an expression and collects its index tensors
/// at the dimensions they index (None elsewhere), as PyTorch does.
struct Sliced {
  Tensor view;
  std::vector<std::optional<TensorArg>> tensor_indices;
};

Sliced apply_slicing(abi::RawTensor raw, std::span<const TensorIndex> items) {
  Sliced result{holding(abi::share(raw)), {}};
  std::int64_t dim = 0;
  const std::int64_t ellipsis = ellipsis_width(items, abi::dim(raw));
  const BasicStep step{result.view, dim, ellipsis};
  for (const TensorIndex& item : items) {
    if (const auto* index = std::get_if<TensorArg>(&item)) {
      result.tensor_indices.resize(static_cast<std::size_t>(dim) + 1);
      result.tensor_indices[static_cast<std::size_t>(dim)] = *index;
      ++dim;
      continue;
    }
    std::visit(Overloaded{[&](std::int64_t i) { step(i); }, [&](const Slice& s) { step(s); },
                          [&](All a) { step(a); }, [&](Ellipsis e) { step(e); },
                          [&](NewAxis n) { step(n); }, [](const TensorArg&) {}},
               item);
  }
  return result;
}

std::vector<TensorIndex> widened(std::span<const ViewIndex> items) {
  std::vector<TensorIndex> out;
  out.reserve(items.size());
  for (const ViewIndex& item : items) {
    out.push_back(std::visit([](const auto& basic) -> TensorIndex { return basic; }, item));
  }
  return out;
}

}  // namespace

abi::TensorHandle index_view_handle(abi::RawTensor raw, std::span<const ViewIndex> items) {
  if (raw == nullptr)
    throw Error(ErrorCode::BadArgument,
                "i: the tensor is undefined (default-constructed or moved from)");
  const std::vector<TensorIndex> all = widened(items);
  Sliced sliced = apply_slicing(raw, all);
  return abi::share(sliced.view.raw());
}

Tensor index_copy(TensorArg self, std::span<const TensorIndex> items) {
  if (self.raw() == nullptr) {
    throw Error(ErrorCode::BadArgument,
                "index: the tensor is undefined (default-constructed or moved from)");
  }
  Sliced sliced = apply_slicing(self.raw(), items);
  if (sliced.tensor_indices.empty()) return sliced.view.clone();
  return aten::index_Tensor(detail::TensorAccess::unchecked(sliced.view),
                            OptionalTensorList(sliced.tensor_indices));
}

void index_put(MutableTensor self, std::span<const TensorIndex> items, TensorArg values,
               bool accumulate) {
  // The borrow rules apply to `self`; index tensors or values that are views
  // of it are this call's own arguments.
  int own_arguments =
      detail::TensorAccess::viewing(values) != nullptr &&
      detail::TensorAccess::viewing(values) == detail::TensorAccess::borrow_state(self);
  for (const TensorIndex& item : items) {
    if (const auto* index = std::get_if<TensorArg>(&item)) {
      own_arguments +=
          detail::TensorAccess::viewing(*index) != nullptr &&
          detail::TensorAccess::viewing(*index) == detail::TensorAccess::borrow_state(self);
    }
  }
  detail::TensorAccess::check_mutation(self, "index_put_", own_arguments);

  Sliced sliced = apply_slicing(self.raw(), items);
  TensorMutView target =
      fp::detail::TensorAccess::mut_view(abi::share(sliced.view.raw()), nullptr, "index_put_");
  if (!sliced.tensor_indices.empty()) {
    aten::index_put_(target, OptionalTensorList(sliced.tensor_indices), values, accumulate);
  } else if (accumulate) {
    detail::assign_in_place(target, detail::add(target, values), "index_put_");
  } else {
    aten::copy_(target, values);
  }
}

}  // namespace fp::detail
