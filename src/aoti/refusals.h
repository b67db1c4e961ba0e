// What makes a package impossible to run here, found before it is loaded.
#pragma once

#include <string>

#include "flash_powder/base/device.h"
#include "package_reader.h"

namespace fp::aoti::detail {

/// Throws fp::Error, saying what to do, when the package cannot run here:
/// compiled for another device type than `device` (or CUDA without a GPU),
/// for a CPU instruction set this CPU lacks (`AOTI_CPU_ISA`), needing the
/// proxy executor (ops without a C shim, named), or importing C functions
/// the loaded torch does not define (named).
void refuse_unrunnable(const PackageContents& contents, Device device, const std::string& source);

/// True when this CPU can run code built for `isa` (AOTI_CPU_ISA's values:
/// Inductor's instruction-set name, upper-cased: "AVX2", "AVX512",
/// "AVX512 AVX512_VNNI", "AVX512 AVX512_VNNI AMX_TILE", "NEON", "" for none).
bool cpu_supports(const std::string& isa);

}  // namespace fp::aoti::detail
