// Decoded pixels on their way to a tensor (internal to the image layer); no
// libtorch here, so that the decoders build alone for fuzzing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flash_powder/image/options.h"

namespace fp::image::detail {

/// An allocator that leaves new bytes uninitialised: a codec overwrites them
/// all, and zeroing a 6 MB buffer first costs a pass over memory.
template <class T>
struct UninitialisedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using Bytes = std::vector<std::uint8_t, UninitialisedAllocator<std::uint8_t>>;

/// Memory a decoder may write an 8-bit result into directly, so that no copy
/// follows (the image layer's hands out a tensor's storage): planes
/// [C, H, W], or interleaved (H, W, C) rows when interleaved() says so.
class PlaneSink {
 public:
  virtual bool interleaved() const = 0;
  virtual std::uint8_t* allocate(int channels, std::int64_t height, std::int64_t width) = 0;

 protected:
  ~PlaneSink() = default;
};

/// Interleaved (H, W, C) samples as a codec writes them; 8 or 16 bits each
/// (16-bit samples in host byte order).
struct Raster {
  std::int64_t height = 0;
  std::int64_t width = 0;
  int channels = 0;
  int bits = 8;
  std::int64_t frames = 1;   ///< an animation's frames, one (H, W, C) image after another
  int exif_orientation = 1;  ///< 1-8, 1 when the file has none
  bool planar = false;       ///< already [C, H, W] (a decoder scattered the rows)
  bool in_sink = false;  ///< written into the PlaneSink, laid out as it asked; `pixels` is empty
  Bytes pixels;

  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * channels * (bits / 8); }
  /// Pixels in all frames.
  std::size_t pixel_count() const { return static_cast<std::size_t>(frames * height * width); }
};

/// Throws fp::Error for a zero-sized image or one above `max_pixels`, before
/// anything is allocated for it.
void check_dimensions(const std::string& function, const std::string& source, std::int64_t width,
                      std::int64_t height, std::uint64_t max_pixels);

/// The channel count `mode` asks for, given the file's own.
int channels_for(ImageReadMode mode, int file_channels);

/// Converts an 8-bit interleaved raster to `channels` (1-4) the way Pillow's convert does.
void convert_channels(Raster& raster, int channels);

/// Turns 16-bit samples into 8-bit ones as `v >> 8` (Pillow, torchvision v2).
void reduce_to_8_bits(Raster& raster);

/// The EXIF orientation (1-8) in a TIFF-structured EXIF block (after any
/// "Exif\0\0" prefix), or 1 when there is none or it cannot be read.
int exif_orientation(std::span<const std::uint8_t> tiff);

/// The orientation ImageOps.exif_transpose applies (2-8, else 1): the EXIF
/// block's Orientation tag when it has one, otherwise XMP's tiff:Orientation
/// (attribute or element), as Pillow's Image.getexif() reads them.
int orientation_of(std::span<const std::uint8_t> exif, std::string_view xmp);

/// The EXIF bytes of a PNG text chunk "Raw profile type exif" (ImageMagick's
/// hex dump), empty when it is not one.
std::vector<std::uint8_t> raw_profile_bytes(std::string_view text);

Raster decode_jpeg_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                         const std::string& source, PlaneSink* sink = nullptr);
Raster decode_png_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                        const std::string& source, PlaneSink* sink = nullptr);
/// An AVIF, every frame of a sequence, 8-bit.
Raster decode_avif_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                         const std::string& source, PlaneSink* sink = nullptr);
/// A GIF, every frame composed as Pillow composes it (`frames` of them).
Raster decode_gif_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                        const std::string& source, PlaneSink* sink = nullptr);
Raster decode_webp_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                         const std::string& source, PlaneSink* sink = nullptr);

}  // namespace fp::image::detail
