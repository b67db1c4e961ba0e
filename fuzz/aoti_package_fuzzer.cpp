// libFuzzer target for the aoti package reader: any bytes must either read
// as a package or throw fp::Error; never crash, hang, leak or read out of
// bounds (ASan, UBSan and libstdc++'s assertions watch). The input is tried
// three ways: as a .pt2 zip archive (libzip, then the entry layout, the
// metadata, proxy-executor and signature JSON, and the library's ELF
// imports), as a bare ELF image, and as a signature file.
//
// Built by scripts/fuzz-aoti from the reader's sources alone, without
// libtorch and without loading anything: reading decides everything that
// is refused before dlopen.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "../src/aoti/elf_imports.h"
#include "../src/aoti/package_reader.h"
#include "../src/aoti/zip_archive.h"
#include "flash_powder/base/error.h"

namespace detail = fp::aoti::detail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    const auto archive = detail::ZipArchive::open(bytes, "fuzz");
    (void)detail::read_package(archive, "");
  } catch (const fp::Error&) {
  }
  try {
    (void)detail::elf_imports(bytes, "fuzz");
  } catch (const fp::Error&) {
  }
  try {
    (void)detail::parse_signature(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const fp::Error&) {
  }
  return 0;
}
