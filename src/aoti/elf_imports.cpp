#include "elf_imports.h"

#include <elf.h>

#include <cstring>

#include "flash_powder/base/error.h"
#include "messages.h"

namespace fp::aoti::detail {
namespace {

// Reads every structure through memcpy at a checked offset: the bytes come
// from an untrusted package and may be truncated or hostile.
class Reader {
 public:
  Reader(std::span<const std::byte> image, std::string_view source)
      : image_(image), source_(source) {}

  template <class T>
  T at(std::uint64_t offset, const char* what) const {
    if (offset > image_.size() || image_.size() - offset < sizeof(T)) fail(what);
    T value;
    std::memcpy(&value, image_.data() + offset, sizeof(T));
    return value;
  }
  std::string_view string_at(std::uint64_t table, std::uint64_t table_size,
                             std::uint64_t offset) const {
    if (table > image_.size() || table_size > image_.size() - table || offset >= table_size)
      fail("a symbol name");
    const auto* begin = reinterpret_cast<const char*>(image_.data() + table + offset);
    const void* end = std::memchr(begin, '\0', table_size - offset);
    if (end == nullptr) fail("a symbol name");
    return {begin, static_cast<std::size_t>(static_cast<const char*>(end) - begin)};
  }
  [[noreturn]] void fail(const char* what) const {
    throw Error(ErrorCode::Format, message_prefix(source_) +
                                       "the model library is not a valid ELF shared object (" +
                                       what + " lies outside the file)");
  }

 private:
  std::span<const std::byte> image_;
  std::string_view source_;
};

Elf64_Ehdr checked_header(const Reader& reader, std::span<const std::byte> image,
                          std::string_view source) {
  const auto header = reader.at<Elf64_Ehdr>(0, "the ELF header");
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    throw Error(ErrorCode::Format, message_prefix(source) + "the model library is not an ELF file");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
    throw Error(ErrorCode::Format,
                message_prefix(source) +
                    "the model library is not a 64-bit little-endian ELF file (compiled for "
                    "another platform)");
  if (header.e_machine != EM_X86_64 && header.e_machine != EM_AARCH64)
    throw Error(ErrorCode::Format, message_prefix(source) +
                                       "the model library is for ELF machine " +
                                       std::to_string(header.e_machine) + ", not this one");
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0)
    throw Error(ErrorCode::Format,
                message_prefix(source) + "the model library has no section table");
  (void)image;
  return header;
}

}  // namespace

std::vector<std::string> elf_imports(std::span<const std::byte> image, std::string_view source) {
  const Reader reader(image, source);
  const Elf64_Ehdr header = checked_header(reader, image, source);
  auto section = [&](std::uint64_t index) {
    if (index >= header.e_shnum) reader.fail("a section index");
    return reader.at<Elf64_Shdr>(header.e_shoff + index * sizeof(Elf64_Shdr), "a section header");
  };
  std::vector<std::string> imports;
  for (std::uint64_t i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr symbols = section(i);
    if (symbols.sh_type != SHT_DYNSYM) continue;
    const Elf64_Shdr names = section(symbols.sh_link);
    const std::uint64_t count = symbols.sh_size / sizeof(Elf64_Sym);
    for (std::uint64_t s = 1; s < count; ++s) {  // symbol 0 is the null symbol
      const auto symbol =
          reader.at<Elf64_Sym>(symbols.sh_offset + s * sizeof(Elf64_Sym), "a dynamic symbol");
      if (symbol.st_shndx != SHN_UNDEF || symbol.st_name == 0) continue;
      imports.emplace_back(reader.string_at(names.sh_offset, names.sh_size, symbol.st_name));
    }
  }
  return imports;
}

}  // namespace fp::aoti::detail
