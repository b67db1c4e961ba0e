#include "messages.h"

#include <array>
#include <charconv>
#include <cmath>

#include "flash_powder/abi/error.h"

namespace fp::nn::detail {

std::string python_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::array<char, 32> buffer{};
  const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
  std::string text(buffer.data(), end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string list_text(IntList values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(values[i]);
  }
  return text + "]";
}

std::string torch_size(IntList sizes) {
  return "torch.Size(" + list_text(sizes) + ")";
}

void fail(const std::string& layer, const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::nn::" + layer + ": " + message);
}

}  // namespace fp::nn::detail
