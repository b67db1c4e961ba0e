// Names and printing of the vocabulary types, as Python spells them.
#include <array>
#include <ostream>
#include <string>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/base/error.h"
#include "flash_powder/base/layout.h"

namespace fp {

std::ostream& operator<<(std::ostream& out, DType dtype) {
  return out << "torch." << name(dtype);
}

std::string_view name(DeviceType type) {
  constexpr std::array<std::string_view, 6> names = {"cpu", "cuda", "meta",
                                                     "xpu", "mps",  "privateuseone"};
  return names[static_cast<std::size_t>(type)];
}

std::string Device::str() const {
  std::string text(name(type));
  if (has_index()) text += ":" + std::to_string(index);
  return text;
}

Device Device::parse(std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view type_name = text.substr(0, colon);
  for (int t = 0; t <= static_cast<int>(DeviceType::PrivateUse1); ++t) {
    const auto type = static_cast<DeviceType>(t);
    if (name(type) != type_name) continue;
    if (colon == std::string_view::npos) return {type, -1};
    const std::string_view digits = text.substr(colon + 1);
    int index = 0;
    bool valid = !digits.empty() && digits.size() <= 3;
    for (char c : digits) {
      valid = valid && c >= '0' && c <= '9';
      index = index * 10 + (c - '0');
    }
    if (!valid || index > 127) break;
    if (type == DeviceType::CPU && index != 0) {
      throw Error(ErrorCode::BadArgument, "fp::Device::parse(\"" + std::string(text) +
                                              "\"): CPU device index must be -1 or zero");
    }
    return {type, static_cast<std::int8_t>(index)};
  }
  throw Error(ErrorCode::BadArgument,
              "fp::Device::parse(\"" + std::string(text) +
                  "\"): expected a device like \"cpu\", \"cuda\", \"cuda:1\" or \"meta\"");
}

std::ostream& operator<<(std::ostream& out, const Device& device) {
  return out << device.str();
}

std::string_view name(Layout layout) {
  constexpr std::array<std::string_view, 8> names = {"strided",    "sparse_coo", "sparse_csr",
                                                     "sparse_csc", "sparse_bsr", "sparse_bsc",
                                                     "_mkldnn",    "jagged"};
  return names[static_cast<std::size_t>(layout)];
}

std::string_view name(MemoryFormat format) {
  constexpr std::array<std::string_view, 4> names = {"contiguous_format", "preserve_format",
                                                     "channels_last", "channels_last_3d"};
  return names[static_cast<std::size_t>(format)];
}

std::ostream& operator<<(std::ostream& out, Layout layout) {
  return out << "torch." << name(layout);
}

std::ostream& operator<<(std::ostream& out, MemoryFormat format) {
  return out << "torch." << name(format);
}

std::string_view name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::BadArgument:
      return "BadArgument";
    case ErrorCode::TorchError:
      return "TorchError";
    case ErrorCode::OpNotFound:
      return "OpNotFound";
    case ErrorCode::UnsupportedByTorch:
      return "UnsupportedByTorch";
    case ErrorCode::Unsupported:
      return "Unsupported";
    case ErrorCode::Borrow:
      return "Borrow";
    case ErrorCode::Io:
      return "Io";
    case ErrorCode::Format:
      return "Format";
    case ErrorCode::OutOfMemory:
      return "OutOfMemory";
  }
  return "ErrorCode(?)";
}

std::ostream& operator<<(std::ostream& out, ErrorCode code) {
  return out << "fp::ErrorCode::" << name(code);
}

}  // namespace fp
