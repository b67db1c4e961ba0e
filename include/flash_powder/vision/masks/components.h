// Connected components of masks and label images, as scikit-image's
// measure.label, measure.regionprops (area, bbox) and
// morphology.remove_small_objects: what a segmenter's per-class mask needs
// before it becomes objects (PyTorch has no op for it).
//
//     fp::Tensor person = fp::vision::masks::class_masks(logits).i(0, 15).to_owned();
//     fp::Tensor cleaned = fp::vision::masks::remove_small_objects(person, 100);
//     fp::vision::masks::Labels people = fp::vision::masks::label(cleaned);
//     fp::vision::masks::ComponentStats stats = fp::vision::masks::component_stats(people);
//     fp::Tensor boxed = fp::image::draw_bounding_boxes(image, stats.boxes);
//
// The scan runs in C++ over the pixels on the CPU (a union-find in one pass,
// labels in a second); a CUDA tensor is copied to the CPU for it and the
// result returned on its device.
#pragma once

#include <cstdint>

#include "flash_powder/core/tensor.h"

namespace fp::vision::masks {

/// Which neighbours of a pixel touch it: scikit-image's `connectivity`.
enum class Connectivity {
  /// The 4 that share an edge (connectivity=1).
  Edges = 1,
  /// The 8 that share an edge or a corner (connectivity=2).
  EdgesAndCorners = 2,
};

/// What label() returns: `skimage.measure.label(..., return_num=True)`.
struct Labels {
  /// int64 [H, W]: 0 on the background, 1..count on the components, numbered
  /// in the order their first pixel comes in a row-by-row scan.
  Tensor labels;
  /// The number of components.
  std::int64_t count = 0;
};

/// `skimage.measure.label(image, connectivity=...)`: each connected region
/// of pixels of one non-zero value of `image` ([H, W], bool or an integer
/// dtype) gets its own label. scikit-image's default connectivity is the
/// full one, edges and corners. fp::Error for another rank or dtype.
Labels label(TensorView image, Connectivity connectivity = Connectivity::EdgesAndCorners);

/// The size and place of each component of a Labels: what
/// `skimage.measure.regionprops` gives as `area` and `bbox`.
struct ComponentStats {
  /// int64 [count]: the pixels of component i + 1.
  Tensor areas;
  /// float32 [count, 4]: its box (x1, y1, x2, y2), the last pixel included,
  /// as `torchvision.ops.masks_to_boxes` gives for its mask; ready for
  /// fp::image::draw_bounding_boxes.
  Tensor boxes;
};

/// The area and box of each of the components 1..count of `labels`
/// (label()'s result). fp::Error when its tensor is not int64 [H, W] or a
/// label lies outside 0..count.
ComponentStats component_stats(const Labels& labels);

/// `skimage.morphology.remove_small_objects(mask, max_size=...,
/// connectivity=...)`: a copy of the bool [H, W] `mask` without its
/// components of `max_size` pixels or fewer. fp::Error for another dtype or
/// rank, or a negative max_size.
Tensor remove_small_objects(TensorView mask, std::int64_t max_size = 64,
                            Connectivity connectivity = Connectivity::Edges);

}  // namespace fp::vision::masks
