// Pieces of the error messages of the aoti layer.
#pragma once

#include <string>
#include <string_view>

namespace fp::aoti::detail {

/// "fp::aoti: <source>: ", the start of every message about a package.
std::string message_prefix(std::string_view source);
/// `text` in double quotes, control characters escaped, cut after 200 bytes:
/// names come from untrusted packages and must not flood or garble a message.
std::string in_quotes(std::string_view text);

}  // namespace fp::aoti::detail
