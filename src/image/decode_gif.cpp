// GIF decoding with giflib (Debian's libgif: the library torchvision.io
// vendors, and the one every distribution ships): giflib parses the records
// and undoes the LZW coding; the frames are composed here the way Pillow's
// GifImagePlugin composes them when a program seeks frame by frame and
// converts each to RGB, disposal and transparency included, so that every
// frame equals Pillow's. A single frame is [C, H, W]; an animation
// [N, C, H, W] (torchvision.io.decode_gif's shapes).
#include <gif_lib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>

#include "messages.h"
#include "raster.h"

namespace fp::image::detail {

namespace {

constexpr const char* kGifFunction = "decode_gif";

struct GifInput {
  std::span<const std::uint8_t> bytes;
  std::size_t offset = 0;
};

extern "C" int read_gif_bytes(GifFileType* gif, GifByteType* out, int length) {
  auto* input = static_cast<GifInput*>(gif->UserData);
  const std::size_t count =
      std::min(static_cast<std::size_t>(std::max(length, 0)), input->bytes.size() - input->offset);
  if (count != 0) std::memcpy(out, input->bytes.data() + input->offset, count);
  input->offset += count;
  return static_cast<int>(count);
}

struct GifCloser {
  void operator()(GifFileType* gif) const {
    int error = 0;
    DGifCloseFile(gif, &error);
  }
};
using GifFile = std::unique_ptr<GifFileType, GifCloser>;

[[noreturn]] void fail_gif(const std::string& source, const char* what, int code) {
  const char* reason = GifErrorString(code);
  fail(ErrorCode::Format, kGifFunction, source,
       std::string(what) + ": " + (reason != nullptr ? reason : "unknown giflib error"));
}

/// A frame's colours. Pillow treats a colour table that maps every index i
/// to (i, i, i) as no table at all (its mode "L"): `present` is false then,
/// and index i is the gray level i.
struct GifPalette {
  bool present = false;
  int size = 0;
  std::array<std::array<std::uint8_t, 3>, 256> colors{};

  std::array<std::uint8_t, 3> rgb(int index) const {
    if (!present) {
      const auto v = static_cast<std::uint8_t>(index);
      return {v, v, v};
    }
    return colors[static_cast<std::size_t>(index)];
  }
  /// Pillow's `_rgb` for disposal colours: an index past the table is 0.
  std::array<std::uint8_t, 3> fill_rgb(int index) const {
    return rgb(present && index >= size ? 0 : index);
  }
};

GifPalette palette_of(const ColorMapObject* map) {
  GifPalette palette;
  if (map == nullptr || map->Colors == nullptr) return palette;
  palette.size = std::clamp(map->ColorCount, 0, 256);
  bool identity = true;
  for (int i = 0; i < palette.size; ++i) {
    const GifColorType& c = map->Colors[i];
    palette.colors[static_cast<std::size_t>(i)] = {c.Red, c.Green, c.Blue};
    identity = identity && c.Red == i && c.Green == i && c.Blue == i;
  }
  // Indices past a short table: Pillow's palette starts as black.
  palette.present = !identity;
  return palette;
}

struct GifRect {
  std::int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< clipped to the canvas
  bool empty() const { return x1 <= x0 || y1 <= y0; }
};

/// What a frame's disposal leaves for the next frame to paste first.
struct GifDispose {
  enum class Kind { None, Fill, Restore } kind = Kind::None;
  GifRect extent;
  std::array<std::uint8_t, 4> color{};  ///< RGBA, or an index in color[0] on an index canvas
  std::vector<std::uint8_t> saved;      ///< Restore: the extent's samples, row by row
};

/// The image being composed: an index canvas (Pillow's "P" or "L" first
/// frame) until the second frame of a palette GIF turns it into RGB(A).
class GifCanvas {
 public:
  GifCanvas(std::int64_t width, std::int64_t height) : width_(width), height_(height) {}

  std::int64_t width() const { return width_; }
  std::int64_t height() const { return height_; }
  bool indexed() const { return indexed_; }

  /// A new index canvas filled with `index` (a first frame, or a palette
  /// frame after gray ones).
  void reset_index(const GifPalette& palette, int index) {
    indexed_ = true;
    palette_ = palette;
    index_.assign(static_cast<std::size_t>(width_ * height_), static_cast<std::uint8_t>(index));
  }
  void set_index_transparency(std::optional<int> index) { index_transparency_ = index; }
  std::optional<int> index_transparency() const { return index_transparency_; }
  const GifPalette& index_palette() const { return palette_; }

  /// Pillow's convert("RGB") or, with a transparent index, convert("RGBA").
  void to_rgb() {
    rgba_.resize(index_.size() * 4);
    has_alpha_ = index_transparency_.has_value();
    for (std::size_t i = 0; i < index_.size(); ++i) {
      const auto c = palette_.rgb(index_[i]);
      std::uint8_t* out = &rgba_[4 * i];
      out[0] = c[0];
      out[1] = c[1];
      out[2] = c[2];
      out[3] = has_alpha_ && index_[i] == *index_transparency_ ? 0 : 255;
    }
    index_ = {};
    index_transparency_.reset();
    indexed_ = false;
  }

  int sample_bytes() const { return indexed_ ? 1 : 4; }
  std::uint8_t* at(std::int64_t x, std::int64_t y) {
    const auto i = static_cast<std::size_t>(y * width_ + x);
    return indexed_ ? &index_[i] : &rgba_[4 * i];
  }

  std::vector<std::uint8_t> save(const GifRect& r) {
    std::vector<std::uint8_t> saved;
    if (r.empty()) return saved;
    const auto row = static_cast<std::size_t>((r.x1 - r.x0) * sample_bytes());
    for (std::int64_t y = r.y0; y < r.y1; ++y) {
      const std::uint8_t* p = at(r.x0, y);
      saved.insert(saved.end(), p, p + row);
    }
    return saved;
  }

  void paste(const GifDispose& dispose) {
    const GifRect& r = dispose.extent;
    if (dispose.kind == GifDispose::Kind::None || r.empty()) return;
    const auto row = static_cast<std::size_t>((r.x1 - r.x0) * sample_bytes());
    for (std::int64_t y = r.y0; y < r.y1; ++y) {
      std::uint8_t* p = at(r.x0, y);
      if (dispose.kind == GifDispose::Kind::Restore) {
        const std::size_t from = static_cast<std::size_t>(y - r.y0) * row;
        if (from + row <= dispose.saved.size()) std::memcpy(p, &dispose.saved[from], row);
        continue;
      }
      for (std::int64_t x = r.x0; x < r.x1; ++x, p += sample_bytes()) {
        std::memcpy(p, dispose.color.data(), static_cast<std::size_t>(sample_bytes()));
      }
    }
  }

  /// Appends the canvas as RGB (`channels` 3) or RGBA (4) samples, alpha
  /// 255 where it has none.
  void append(Bytes& out, int channels) const {
    const std::size_t at = out.size();
    const auto count = static_cast<std::size_t>(width_ * height_);
    out.resize(at + count * static_cast<std::size_t>(channels));
    std::uint8_t* o = out.data() + at;
    for (std::size_t i = 0; i < count; ++i, o += channels) {
      if (indexed_) {
        const auto c = palette_.rgb(index_[i]);
        std::memcpy(o, c.data(), 3);
        if (channels == 4) {
          o[3] = index_transparency_ && index_[i] == *index_transparency_ ? 0 : 255;
        }
        continue;
      }
      std::memcpy(o, &rgba_[4 * i], 3);
      if (channels == 4) o[3] = has_alpha_ ? rgba_[4 * i + 3] : 255;
    }
  }

 private:
  std::int64_t width_;
  std::int64_t height_;
  bool indexed_ = true;
  bool has_alpha_ = false;
  GifPalette palette_;
  std::optional<int> index_transparency_;
  std::vector<std::uint8_t> index_;
  std::vector<std::uint8_t> rgba_;
};

/// One frame's graphic control extension.
struct GifControl {
  std::optional<int> transparency;
  int disposal = 0;
};

GifControl control_of(const GifByteType* block) {
  GifControl control;
  if (block == nullptr || block[0] < 4) return control;
  const int flags = block[1];
  if ((flags & 1) != 0) control.transparency = block[4];
  control.disposal = (flags >> 2) & 7;
  return control;
}

/// The indices of the current image descriptor, rows in display order.
std::vector<std::uint8_t> read_indices(GifFileType* gif, const std::string& source) {
  const GifImageDesc& desc = gif->Image;
  const auto width = static_cast<std::size_t>(desc.Width);
  std::vector<std::uint8_t> indices(width * static_cast<std::size_t>(desc.Height));
  if (indices.empty()) return indices;
  auto read_row = [&](int y) {
    if (DGifGetLine(gif, &indices[static_cast<std::size_t>(y) * width], static_cast<int>(width)) ==
        GIF_ERROR) {
      fail_gif(source, "corrupt GIF image data", gif->Error);
    }
  };
  if (desc.Interlace) {
    static constexpr int start[] = {0, 4, 2, 1};
    static constexpr int step[] = {8, 8, 4, 2};
    for (int pass = 0; pass < 4; ++pass) {
      for (int y = start[pass]; y < desc.Height; y += step[pass])
        read_row(y);
    }
  } else {
    for (int y = 0; y < desc.Height; ++y)
      read_row(y);
  }
  return indices;
}

/// Composes frame after frame exactly as Pillow's seek() and load() do.
class GifComposer {
 public:
  GifComposer(std::int64_t width, std::int64_t height, std::optional<int> background)
      : canvas_(width, height), background_(background) {}

  void frame(GifFileType* gif, const GifControl& control, const std::string& source) {
    const GifImageDesc& desc = gif->Image;
    const GifPalette local = palette_of(desc.ColorMap);
    const GifPalette palette = desc.ColorMap != nullptr ? local : global_;
    const bool first = count_ == 0;
    canvas_.paste(pending_);
    pending_ = {};
    if (control.disposal != 0) disposal_ = control.disposal;  // Pillow keeps the last one set
    if (!first && canvas_.indexed() && canvas_.index_palette().present) canvas_.to_rgb();
    const GifRect extent = clip(desc);
    pending_ = disposal_for(extent, control, palette, first);
    if (first) {
      canvas_.reset_index(palette, control.transparency.value_or(0));
      canvas_.set_index_transparency(control.transparency);
    } else if (canvas_.indexed() && palette.present) {
      // After gray frames Pillow starts a new image for a frame with colours
      // and keeps reading its indices as gray levels.
      canvas_.reset_index(canvas_.index_palette(), 0);
    }
    std::vector<std::uint8_t> indices = read_indices(gif, source);
    draw(indices, desc, extent, control, palette, first);
    ++count_;
  }

  void set_global(const ColorMapObject* map) { global_ = palette_of(map); }
  GifCanvas& canvas() { return canvas_; }
  int count() const { return count_; }

 private:
  GifRect clip(const GifImageDesc& desc) const {
    GifRect r;
    r.x0 = std::min<std::int64_t>(desc.Left, canvas_.width());
    r.y0 = std::min<std::int64_t>(desc.Top, canvas_.height());
    r.x1 = std::min<std::int64_t>(std::int64_t{desc.Left} + desc.Width, canvas_.width());
    r.y1 = std::min<std::int64_t>(std::int64_t{desc.Top} + desc.Height, canvas_.height());
    return r;
  }

  GifDispose disposal_for(const GifRect& extent, const GifControl& control,
                          const GifPalette& palette, bool first) {
    GifDispose dispose;
    dispose.extent = extent;
    const bool rgb = !first && !canvas_.indexed();
    auto fill = [&](int index, bool transparent) {
      dispose.kind = GifDispose::Kind::Fill;
      if (!rgb) {
        dispose.color = {static_cast<std::uint8_t>(index), 0, 0, 0};
        return;
      }
      const auto c = palette.fill_rgb(index);
      dispose.color = {c[0], c[1], c[2], static_cast<std::uint8_t>(transparent ? 0 : 255)};
    };
    if (disposal_ == 2) {
      const std::optional<int> transparent =
          canvas_.indexed() && !first ? canvas_.index_transparency() : std::nullopt;
      if (transparent || control.transparency) {
        fill(transparent ? *transparent : *control.transparency, true);
      } else {
        fill(background_.value_or(0), false);
      }
    } else if (disposal_ >= 3) {
      if (!first) {
        dispose.kind = GifDispose::Kind::Restore;
        dispose.saved = canvas_.save(extent);
      } else if (control.transparency) {
        fill(*control.transparency, true);
      }
    }
    return dispose;
  }

  void draw(const std::vector<std::uint8_t>& indices, const GifImageDesc& desc,
            const GifRect& extent, const GifControl& control, const GifPalette& palette,
            bool first) {
    const std::int64_t width = desc.Width;
    // A first frame writes every index; later frames leave their transparent
    // pixels to the canvas below.
    const bool skip_transparent = !first && control.transparency.has_value();
    if (extent.empty()) return;
    for (std::int64_t y = extent.y0; y < extent.y1; ++y) {
      const std::uint8_t* row = &indices[static_cast<std::size_t>((y - desc.Top) * width)];
      if (canvas_.indexed() && !skip_transparent) {  // a row of indices as it is
        std::memcpy(canvas_.at(extent.x0, y), row + (extent.x0 - desc.Left),
                    static_cast<std::size_t>(extent.x1 - extent.x0));
        continue;
      }
      for (std::int64_t x = extent.x0; x < extent.x1; ++x) {
        const int index = row[x - desc.Left];
        if (skip_transparent && index == *control.transparency) continue;
        std::uint8_t* p = canvas_.at(x, y);
        if (canvas_.indexed()) {
          *p = static_cast<std::uint8_t>(index);
          continue;
        }
        const auto c = palette.rgb(index);
        p[0] = c[0];
        p[1] = c[1];
        p[2] = c[2];
        p[3] = 255;
      }
    }
  }

  GifCanvas canvas_;
  GifPalette global_;
  std::optional<int> background_;
  GifDispose pending_;
  int disposal_ = 0;
  int count_ = 0;
};

void skip_extension(GifFileType* gif, GifByteType* block, const std::string& source) {
  while (block != nullptr) {
    if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) {
      fail_gif(source, "corrupt GIF extension", gif->Error);
    }
  }
}

}  // namespace

Raster decode_gif_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                        const std::string& source, PlaneSink* /*sink*/) {
  if (bytes.empty()) fail(ErrorCode::Format, kGifFunction, source, "the data is empty");
  GifInput input{bytes};
  int error = 0;
  GifFile gif(DGifOpen(&input, read_gif_bytes, &error));
  if (!gif) fail_gif(source, "not a readable GIF", error);

  std::optional<GifComposer> composer;
  Raster raster;
  // Frames are kept as RGB, or RGBA when the mode needs the alpha.
  const int wanted = channels_for(options.mode, 3);
  raster.channels = wanted == 2 || wanted == 4 ? 4 : 3;
  GifControl control;
  for (;;) {
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    if (DGifGetRecordType(gif.get(), &record) == GIF_ERROR) {
      // Pillow stops at the end of the data as at a trailer.
      if (composer && input.offset >= bytes.size()) break;
      fail_gif(source, "corrupt GIF", gif->Error);
    }
    if (record == TERMINATE_RECORD_TYPE) break;
    if (record == EXTENSION_RECORD_TYPE) {
      int code = 0;
      GifByteType* block = nullptr;
      if (DGifGetExtension(gif.get(), &code, &block) == GIF_ERROR) {
        fail_gif(source, "corrupt GIF extension", gif->Error);
      }
      if (code == GRAPHICS_EXT_FUNC_CODE && block != nullptr) control = control_of(block);
      skip_extension(gif.get(), block, source);
      continue;
    }
    if (record != IMAGE_DESC_RECORD_TYPE) continue;
    if (DGifGetImageDesc(gif.get()) == GIF_ERROR) {
      fail_gif(source, "corrupt GIF image descriptor", gif->Error);
    }
    const GifImageDesc& desc = gif->Image;
    if (desc.Width <= 0 || desc.Height <= 0) {
      // Pillow refuses such a frame ("tile cannot extend outside image").
      fail(ErrorCode::Format, kGifFunction, source,
           "frame " + std::to_string(composer ? composer->count() : 0) + " is " +
               std::to_string(desc.Width) + "x" + std::to_string(desc.Height) +
               " pixels; a frame needs at least one");
    }
    if (!composer) {
      // Pillow's canvas: the logical screen, grown to hold the first frame.
      const std::int64_t width = std::max<std::int64_t>(gif->SWidth, desc.Left + desc.Width);
      const std::int64_t height = std::max<std::int64_t>(gif->SHeight, desc.Top + desc.Height);
      check_dimensions(kGifFunction, source, width, height, options.max_pixels);
      std::optional<int> background;
      if (gif->SColorMap != nullptr) background = gif->SBackGroundColor;
      composer.emplace(width, height, background);
      composer->set_global(gif->SColorMap);
      raster.width = width;
      raster.height = height;
    }
    const auto frame_pixels = static_cast<std::uint64_t>(raster.width * raster.height);
    if ((static_cast<std::uint64_t>(composer->count()) + 1) * frame_pixels > options.max_pixels) {
      fail(ErrorCode::BadArgument, kGifFunction, source,
           "the animation has more than " + std::to_string(composer->count()) + " frames of " +
               std::to_string(raster.width) + "x" + std::to_string(raster.height) +
               " pixels, more than the limit of " + std::to_string(options.max_pixels) +
               " pixels in all; raise DecodeOptions::max_pixels to read it");
    }
    if (static_cast<std::uint64_t>(desc.Width) * static_cast<std::uint64_t>(desc.Height) >
        options.max_pixels) {
      check_dimensions(kGifFunction, source, desc.Width, desc.Height, options.max_pixels);
    }
    composer->frame(gif.get(), control, source);
    composer->canvas().append(raster.pixels, raster.channels);
    control = {};
  }
  if (!composer) fail(ErrorCode::Format, kGifFunction, source, "the GIF has no image");
  raster.frames = composer->count();
  convert_channels(raster, wanted);
  return raster;
}

}  // namespace fp::image::detail
