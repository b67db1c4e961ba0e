// ops_test::Outcome: everything that tells two results of an op apart
// (geometry, dtype, device, every byte, or the error), for tests that compare
// two routes to the same op bit for bit.
#pragma once

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <string>
#include <vector>

namespace ops_test {

using fp::Tensor;

/// Everything that tells two results apart: geometry, dtype, device and the
/// bytes of every element (for tensors with data).
struct Outcome {
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
  std::int64_t offset = 0;
  std::string dtype;
  std::string device;
  std::vector<unsigned char> bytes;
  std::string error;

  bool operator==(const Outcome&) const = default;
};

inline std::string describe(const Outcome& outcome) {
  if (!outcome.error.empty()) return "error: " + outcome.error;
  std::string text = outcome.dtype + " on " + outcome.device + " sizes [";
  for (auto size : outcome.sizes)
    text += std::to_string(size) + " ";
  text += "] strides [";
  for (auto stride : outcome.strides)
    text += std::to_string(stride) + " ";
  return text + "] offset " + std::to_string(outcome.offset) + ", " +
         std::to_string(outcome.bytes.size()) + " bytes";
}

inline Outcome outcome_of(const fp::TensorArg& tensor) {
  const auto raw = tensor.raw();
  Outcome outcome;
  const auto sizes = fp::abi::sizes(raw);
  const auto strides = fp::abi::strides(raw);
  outcome.sizes.assign(sizes.begin(), sizes.end());
  outcome.strides.assign(strides.begin(), strides.end());
  outcome.offset = fp::abi::storage_offset(raw);
  outcome.dtype = std::string(fp::name(fp::abi::dtype(raw)));
  outcome.device = fp::abi::device(raw).str();
  if (fp::abi::device(raw).is_cpu()) {
    const Tensor dense = fp::aten::clone(tensor, fp::MemoryFormat::Contiguous);
    const auto* data = static_cast<const unsigned char*>(fp::abi::const_data_ptr(dense.raw()));
    const auto count = static_cast<std::size_t>(fp::abi::numel(dense.raw())) *
                       fp::element_size(fp::abi::dtype(dense.raw()));
    if (count > 0) outcome.bytes.assign(data, data + count);
  }
  return outcome;
}

/// What `op()` gives, or its error.
template <class Op>
Outcome run(const Op& op) {
  try {
    return outcome_of(op());
  } catch (const fp::Error& error) {
    Outcome failed;
    failed.error = error.what();
    return failed;
  }
}

}  // namespace ops_test
