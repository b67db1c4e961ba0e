#include "flash_powder/functional/sparse.h"

#include <algorithm>
#include <string>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/factory.h"
#include "nn/messages.h"

namespace fp::functional {
namespace {

[[noreturn]] void fail_bag(const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::functional::embedding_bag: " + message);
}

/// Python's mode_enum.
std::int64_t bag_mode(const std::string& mode) {
  if (mode == "sum") return 0;
  if (mode == "mean") return 1;
  if (mode == "max") return 2;
  fail_bag("mode has to be one of sum, mean or max");
}

/// The bags as ATen takes them: 1-D indices, 1-D offsets, and the weights
/// and include_last_offset that go with them (Python's handling of 2-D input).
struct Bags {
  Tensor indices;
  Tensor offsets;
  std::optional<Tensor> per_sample_weights;
  bool include_last_offset = false;
};

Bags flattened_bags(const TensorView& input, const std::optional<TensorView>& offsets,
                    const EmbeddingBagOptions& options) {
  Bags bags;
  if (options.per_sample_weights) bags.per_sample_weights = options.per_sample_weights->to_owned();
  if (input.dim() == 2) {
    if (offsets) {
      fail_bag(
          "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
          "fixed length sequences. However, found offsets of type <class 'torch.Tensor'>");
    }
    const TensorOptions index_options(input.dtype(), input.device());
    bags.offsets = arange(std::int64_t{0}, input.numel(), input.size(1), index_options);
    bags.indices = input.reshape({-1});
    if (bags.per_sample_weights) bags.per_sample_weights = bags.per_sample_weights->reshape({-1});
    return bags;
  }
  if (input.dim() != 1) {
    fail_bag("input has to be 1D or 2D Tensor, but got Tensor of dimension " +
             std::to_string(input.dim()));
  }
  if (!offsets) fail_bag("offsets has to be a 1D Tensor but got None");
  if (offsets->dim() != 1) fail_bag("offsets has to be a 1D Tensor");
  bags.indices = input.to_owned();
  bags.offsets = offsets->to_owned();
  bags.include_last_offset = options.include_last_offset;
  return bags;
}

}  // namespace

Tensor embedding(const TensorView& input, const TensorView& weight,
                 const EmbeddingOptions& options) {
  std::int64_t padding_idx = -1;  // ATen's "none"
  if (options.padding_idx) {
    // Python's checks and normalisation of a negative index, in its words.
    const std::int64_t rows = weight.dim() > 0 ? weight.size(0) : 0;
    padding_idx = *options.padding_idx;
    if (padding_idx > 0 && padding_idx >= rows) {
      throw Error(ErrorCode::BadArgument,
                  "fp::functional::embedding: Padding_idx must be within num_embeddings");
    }
    if (padding_idx < 0) {
      if (padding_idx < -rows) {
        throw Error(ErrorCode::BadArgument,
                    "fp::functional::embedding: Padding_idx must be within num_embeddings");
      }
      padding_idx += rows;
    }
  }
  return aten::embedding(weight, input, padding_idx);
}

Tensor embedding_bag(const TensorView& input, const TensorView& weight,
                     const std::optional<TensorView>& offsets, const EmbeddingBagOptions& options) {
  // Python's checks, in its order and words.
  const auto& weights = options.per_sample_weights;
  if (weights && !std::ranges::equal(weights->sizes(), input.sizes())) {
    fail_bag("embedding_bag: If per_sample_weights (" + nn::detail::torch_size(weights->sizes()) +
             ") is not None, then it must have the same shape as the input (" +
             nn::detail::torch_size(input.sizes()) + ")");
  }
  if (weight.dim() != 2) {
    fail_bag("weight has to be a 2D Tensor, but got Tensor of dimension " +
             std::to_string(weight.dim()));
  }
  const Bags bags = flattened_bags(input, offsets, options);
  const std::int64_t mode = bag_mode(options.mode);
  if (weights && mode != 0) {
    fail_bag(
        "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
        "for mode='sum' (got mode='" +
        options.mode + "'). Please open a feature request on GitHub.");
  }
  std::optional<TensorView> weights_view;
  if (bags.per_sample_weights) weights_view = *bags.per_sample_weights;
  return std::get<0>(
      aten::embedding_bag_padding_idx(weight, bags.indices, bags.offsets, false, mode, false,
                                      weights_view, bags.include_last_offset, options.padding_idx));
}

Tensor one_hot(const TensorView& input, std::int64_t num_classes) {
  return aten::one_hot(input, num_classes);
}

}  // namespace fp::functional
