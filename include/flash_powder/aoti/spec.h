// What a package's inputs must look like, as recorded at export time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"

namespace fp::aoti {

/// One dimension of an input: a fixed size, or a dynamic one within
/// [min, max] (torch.export's `Dim("batch", min=1, max=64)`). Dimensions
/// with the same `symbol` must have the same size in every input.
struct DimSpec {
  /// The smallest size (the size itself when static).
  std::int64_t min = 0;
  /// The largest size (the size itself when static).
  std::int64_t max = 0;
  /// The shape symbol ("s17") of a dynamic dimension; empty when static.
  std::string symbol;

  /// Whether the size is fixed.
  bool is_static() const { return symbol.empty(); }
};

/// One tensor input of an exported program: `ExportedProgram.graph_signature`'s
/// user input and its placeholder's `meta["val"]` (dtype, device, shape).
struct InputSpec {
  /// The input's name in the exported program.
  std::string name;
  /// Its dtype.
  DType dtype = DType::F32;
  /// The device it must be on.
  Device device = Device::cpu();
  /// Each dimension's size or range.
  std::vector<DimSpec> sizes;
};

/// The inputs and outputs a package promises, from `extra/flash_powder.json`
/// (written by tools/export_aoti.py).
struct Signature {
  /// The tensor inputs, in the order of the call.
  std::vector<InputSpec> inputs;
  /// The torch version that exported the package, e.g. "2.13.0+cpu".
  std::string torch_version;
};

}  // namespace fp::aoti
