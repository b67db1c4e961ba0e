// Per-class masks of a segmenter's scores (torchvision's gallery
// "Visualization utilities": argmax and softmax-threshold masks).
#include "flash_powder/vision/masks/class_masks.h"

#include <string>

#include "base/text.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "vision/masks/refuse.h"

namespace fp::vision::masks {
namespace {

void check_scores(const char* function, TensorView scores) {
  if (scores.dim() != 4 || scores.size(1) == 0 || !is_floating_point(scores.dtype()))
    detail::refuse(function, "expected floating scores of [N, C, H, W] with C > 0, got a " +
                                 fp::detail::torch_size(scores.sizes()) + " " +
                                 std::string(name(scores.dtype())) + " tensor");
}

}  // namespace

Tensor class_masks(TensorView scores) {
  check_scores("class_masks", scores);
  const Tensor classes = arange(scores.size(1), scores.device()).reshape({1, -1, 1, 1});
  return scores.argmax(1, true).eq(classes);
}

Tensor probability_masks(TensorView scores, double threshold) {
  check_scores("probability_masks", scores);
  if (!(threshold >= 0.0 && threshold <= 1.0))
    detail::refuse("probability_masks",
                   "the threshold must lie in [0, 1], got " + std::to_string(threshold));
  return aten::_softmax(scores, 1, false).gt(threshold);
}

}  // namespace fp::vision::masks
