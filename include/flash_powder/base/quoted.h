// fp::detail::quoted: text from a file or a user, made safe to show in an
// error message. Every layer that names untrusted text (a tensor name read
// from a file, a package entry) quotes it the same way.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fp::detail {

/// `text` in double quotes, `"` and `\` escaped with a backslash, control
/// bytes as \xNN, cut after `limit` bytes with "... (N bytes)" appended.
std::string quoted(std::string_view text, std::size_t limit = 200);

}  // namespace fp::detail
