// Reading a `.pt2` package: which entries make up one model, and what they say.
//
// Pure reading, no loading: the fuzz target runs exactly this on hostile bytes.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "flash_powder/aoti/spec.h"
#include "zip_archive.h"

namespace fp::aoti::detail {

/// The parts of one model in a package (torch.export.pt2_archive's layout:
/// `<root>/data/aotinductor/<model>/...`, `<root>/extra/...`).
struct PackageContents {
  std::string model_name;
  /// The compiled model library (`<hash>.wrapper.so` or `<hash>.so`).
  std::vector<std::byte> library;
  /// Its imported symbols (ELF dynamic table).
  std::vector<std::string> imports;
  /// `<hash>.wrapper_metadata.json`: AOTI_DEVICE_KEY, AOTI_CPU_ISA, ...
  std::map<std::string, std::string> metadata;
  /// The weights stored outside the library (`package_constants_in_so=False`).
  std::optional<std::vector<std::byte>> weights_blob;
  /// The ops the proxy executor would run (`<hash>.wrapper.json` / `<hash>.json`).
  std::vector<std::string> proxy_ops;
  /// GPU kernel files beside the library (`.cubin`, `.fatbin`, `.hsaco`).
  std::vector<std::string> kernel_files;
  /// True when the package stores pickled weights for Python only
  /// (`package_constants_on_disk_format="pickle_weights"`).
  bool pickled_weights = false;
  /// `extra/flash_powder.json`.
  std::optional<Signature> signature;
};

/// Finds and reads the model `model_name` (empty: the only one). Throws
/// fp::Error for a missing or ambiguous model, an unreadable entry, a
/// malformed metadata or signature file, or a library that is not ELF.
PackageContents read_package(const ZipArchive& archive, const std::string& model_name);

/// Parses the signature JSON written by tools/export_aoti.py.
Signature parse_signature(const std::string& text, const std::string& source);

}  // namespace fp::aoti::detail
