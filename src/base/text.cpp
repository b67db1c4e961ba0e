// Values as flash_powder's messages spell them (text.h).
#include "text.h"

#include <cxxabi.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace fp::detail {

std::string python_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::array<char, 32> buffer{};
  const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
  std::string text(buffer.data(), end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

namespace {

template <class T, class Spell>
std::string joined(std::span<const T> values, std::string_view open, Spell spell,
                   std::string_view close) {
  std::string text(open);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += spell(values[i]);
  }
  return text + std::string(close);
}

}  // namespace

std::string list_text(std::span<const std::int64_t> values) {
  return joined(
      values, "[", [](std::int64_t v) { return std::to_string(v); }, "]");
}

std::string list_text(std::span<const double> values) {
  return joined(values, "[", python_float, "]");
}

std::string torch_size(std::span<const std::int64_t> sizes) {
  return "torch.Size(" + list_text(sizes) + ")";
}

std::string tuple_text(std::span<const std::int64_t> sizes) {
  return joined(
      sizes, "(", [](std::int64_t v) { return std::to_string(v); }, sizes.size() == 1 ? ",)" : ")");
}

std::string quoted(std::string_view text, std::size_t limit) {
  std::string out = "\"";
  for (const char c : text.substr(0, limit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7F) {
      std::array<char, 8> escaped{};
      std::snprintf(escaped.data(), escaped.size(), "\\x%02x", byte);
      out += escaped.data();
    } else {
      out += c;
    }
  }
  out += '"';
  if (text.size() > limit) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::string demangled(const char* mangled) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> name(
      ::abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 ? std::string(name.get()) : std::string(mangled);
}

}  // namespace fp::detail
