// save_image: torchvision.utils.save_image plus the seed's uint8 and
// [V, B, C, H, W] inputs.
#include <algorithm>
#include <cctype>

#include "flash_powder/base/dtype.h"
#include "flash_powder/image/draw.h"
#include "flash_powder/image/io.h"
#include "messages.h"

namespace fp::image {

namespace {

enum class FileFormat { Png, Jpeg, Webp };

FileFormat format_of(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".png") return FileFormat::Png;
  if (extension == ".jpg" || extension == ".jpeg") return FileFormat::Jpeg;
  if (extension == ".webp") return FileFormat::Webp;
  detail::fail(ErrorCode::BadArgument, "save_image", path.string(),
               "cannot tell the format from the extension \"" + extension +
                   "\"; use .png, .jpg, .jpeg or .webp");
}

/// Floats in [0, 1] to pixels as torchvision does: x * 255 + 0.5, clamped, truncated.
Tensor to_pixels(Tensor grid) {
  if (grid.dtype() == DType::U8) return grid;
  Tensor scaled = grid.mul(255);
  scaled.add_(0.5).clamp_(0, 255);
  return scaled.to(DType::U8);
}

}  // namespace

void save_image(TensorView images, const std::filesystem::path& path, const GridOptions& options) {
  if (!images.is_defined())
    detail::fail(ErrorCode::BadArgument, "save_image", path.string(), "the tensor is undefined");
  if (images.dtype() != DType::U8 && !is_floating_point(images.dtype())) {
    detail::fail(
        ErrorCode::BadArgument, "save_image", path.string(),
        "expected uint8 pixels or floats in [0, 1], got " + std::string(name(images.dtype())));
  }
  if (images.dim() < 2 || images.dim() > 5) {
    detail::fail(ErrorCode::BadArgument, "save_image", path.string(),
                 "expected [C, H, W], [B, C, H, W] or [V, B, C, H, W], got " +
                     std::to_string(images.dim()) + " dimensions");
  }
  const FileFormat format = format_of(path);
  Tensor grid;
  if (images.dim() == 5) {
    // The seed's rows: V rows of B images each.
    GridOptions rows = options;
    rows.nrow = images.size(1);
    grid = make_grid(images.flatten(0, 1), rows);
  } else if (images.dim() == 4) {
    GridOptions row = options;
    row.nrow = images.size(0);
    grid = make_grid(images, row);
  } else {
    grid = make_grid(images, options);
  }
  const Tensor pixels = to_pixels(std::move(grid)).cpu();
  switch (format) {
    case FileFormat::Png:
      write_png(pixels, path);
      break;
    case FileFormat::Jpeg:
      write_jpeg(pixels, path);
      break;
    case FileFormat::Webp:
      write_webp(pixels, path);
      break;
  }
}

}  // namespace fp::image
