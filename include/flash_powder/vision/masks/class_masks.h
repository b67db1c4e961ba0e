// Per-class masks from a segmenter's scores, as torchvision's
// segmentation examples make them: the class of highest score at each
// pixel, or each class's softmax probability over a threshold.
//
//     fp::Tensor scores = net(batch).out;                               // [N, 21, H, W]
//     fp::Tensor masks = fp::vision::masks::class_masks(scores);        // bool [N, 21, H, W]
//     fp::Tensor drawn = fp::image::draw_segmentation_masks(image, masks.select(0, 0));
#pragma once

#include "flash_powder/core/tensor.h"

namespace fp::vision::masks {

/// `scores.argmax(1, keepdim=True) == torch.arange(C)[:, None, None]`: bool
/// [N, C, H, W], true where class c scores highest (the first of equal
/// highest, as argmax). fp::Error unless `scores` is a floating
/// [N, C, H, W] with C > 0.
Tensor class_masks(TensorView scores);

/// `scores.softmax(1) > threshold`: bool [N, C, H, W], true where class c's
/// probability exceeds `threshold`. fp::Error as class_masks, or for a
/// threshold outside [0, 1].
Tensor probability_masks(TensorView scores, double threshold = 0.5);

}  // namespace fp::vision::masks
