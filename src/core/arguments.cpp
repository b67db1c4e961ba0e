// The list parameter types of ops (core/arguments.h).
#include "flash_powder/core/arguments.h"

#include <string>
#include <string_view>
#include <utility>

namespace fp {

// --- lists ----------------------------------------------------------------------

TensorList::TensorList(std::span<const Tensor> tensors)
    : owned_(tensors.begin(), tensors.end()), items_(owned_) {}

TensorList::TensorList(std::span<const TensorView> views)
    : owned_(views.begin(), views.end()), items_(owned_) {}

namespace {
template <class Range>
std::vector<std::optional<TensorArg>> optional_arguments(const Range& range) {
  std::vector<std::optional<TensorArg>> out;
  out.reserve(range.size());
  for (const auto& item : range) {
    if constexpr (requires { item.has_value(); }) {
      out.push_back(item ? std::optional<TensorArg>(*item) : std::nullopt);
    } else {
      out.emplace_back(item);
    }
  }
  return out;
}
}  // namespace

OptionalTensorList::OptionalTensorList(const std::vector<Tensor>& tensors)
    : owned_(optional_arguments(tensors)), items_(owned_) {}
OptionalTensorList::OptionalTensorList(const std::vector<TensorView>& views)
    : owned_(optional_arguments(views)), items_(owned_) {}
OptionalTensorList::OptionalTensorList(const std::vector<std::optional<Tensor>>& tensors)
    : owned_(optional_arguments(tensors)), items_(owned_) {}
OptionalTensorList::OptionalTensorList(const std::vector<std::optional<TensorView>>& views)
    : owned_(optional_arguments(views)), items_(owned_) {}

MutableTensorList::MutableTensorList(std::span<Tensor> tensors)
    : owned_(tensors.begin(), tensors.end()), items_(owned_) {}

}  // namespace fp
