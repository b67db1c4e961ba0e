// make_grid: torchvision.utils.make_grid, the same ops in the same order.
#include <algorithm>
#include <cmath>

#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/index.h"
#include "flash_powder/image/draw.h"
#include "messages.h"

namespace fp::image {

namespace {

/// torchvision's norm_ip: clamp to [low, high], then map it onto [0, 1].
void normalize_into(TensorMutView image, double low, double high) {
  image.clamp_(low, high);
  image.sub_(low).div_(std::max(high - low, 1e-5));
}

void normalize_range(TensorMutView image, const GridOptions& options) {
  if (options.value_range) {
    normalize_into(std::move(image), options.value_range->first, options.value_range->second);
    return;
  }
  const double low = image.min().item<double>();
  const double high = image.max().item<double>();
  normalize_into(std::move(image), low, high);
}

/// The batch as [B, C, H, W] with three channels where it had one.
Tensor as_batch(TensorView images) {
  Tensor batch = images.to_owned();
  if (batch.dim() == 2) batch = batch.unsqueeze(0).to_owned();
  if (batch.dim() == 3) {
    if (batch.size(0) == 1) batch = fp::cat({batch, batch, batch}, 0);
    batch = batch.unsqueeze(0).to_owned();
  }
  if (batch.size(1) == 1) batch = fp::cat({batch, batch, batch}, 1);
  return batch;
}

}  // namespace

Tensor make_grid(TensorView images, const GridOptions& options) {
  if (!images.is_defined())
    detail::fail(ErrorCode::BadArgument, "make_grid", "the images", "the tensor is undefined");
  if (images.dim() < 2 || images.dim() > 4) {
    detail::fail(ErrorCode::BadArgument, "make_grid", "the images",
                 "expected [B, C, H, W], [C, H, W] or [H, W], got " + std::to_string(images.dim()) +
                     " dimensions");
  }
  if (images.numel() == 0)
    detail::fail(ErrorCode::BadArgument, "make_grid", "the images", "the tensor is empty");
  if (options.nrow < 1 || options.padding < 0) {
    detail::fail(ErrorCode::BadArgument, "make_grid", "the options",
                 "nrow must be positive and padding not negative");
  }
  Tensor batch = as_batch(images);
  if (options.normalize) {
    if (options.scale_each) {
      for (std::int64_t k = 0; k < batch.size(0); ++k)
        normalize_range(batch.i_mut(k), options);
    } else {
      normalize_range(batch.i_mut(fp::all), options);
    }
  }
  if (batch.size(0) == 1) return batch.squeeze(0).to_owned();
  const std::int64_t count = batch.size(0);
  const std::int64_t columns = std::min(options.nrow, count);
  const std::int64_t rows = (count + columns - 1) / columns;
  const std::int64_t pad = options.padding;
  const std::int64_t height = batch.size(2) + pad;
  const std::int64_t width = batch.size(3) + pad;
  Tensor grid = fp::full({batch.size(1), height * rows + pad, width * columns + pad},
                         options.pad_value, batch.dtype());
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t y = (k / columns) * height + pad;
    const std::int64_t x = (k % columns) * width + pad;
    grid.i_mut(fp::all, fp::slice(y, y + height - pad), fp::slice(x, x + width - pad))
        .copy_(batch.i(k));
  }
  return grid;
}

}  // namespace fp::image
