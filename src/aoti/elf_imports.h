// The symbols a shared object imports, read from its bytes before it is loaded.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fp::aoti::detail {

/// The undefined symbols of a 64-bit little-endian ELF shared object's
/// dynamic symbol table (what `nm -D --undefined-only` lists), without
/// version suffixes. Throws fp::Error naming `source` when the bytes are not
/// such an ELF file or any offset points outside them.
std::vector<std::string> elf_imports(std::span<const std::byte> image, std::string_view source);

}  // namespace fp::aoti::detail
