#include "replace_weights.h"

#include <algorithm>

#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/base/error.h"
#include "messages.h"

namespace fp::aoti::detail {
namespace {

void check_one(const ConstantInfo& constant, const TensorView& tensor, Device device,
               const std::string& source) {
  const std::string where =
      message_prefix(source) + "weight " + in_quotes(constant.original_fqn) + " ";
  if (tensor.dtype() != constant.dtype)
    throw Error(ErrorCode::BadArgument, where + "must have dtype " +
                                            std::string(name(constant.dtype)) + ", not " +
                                            std::string(name(tensor.dtype())));
  // The model reserves each constant's bytes rounded up to 64.
  const auto bytes = static_cast<std::size_t>(tensor.numel()) * element_size(tensor.dtype());
  if (bytes > constant.data_size || constant.data_size - bytes >= 64)
    throw Error(ErrorCode::BadArgument, where + "must hold " + std::to_string(constant.data_size) +
                                            " bytes (rounded up to 64), not " +
                                            std::to_string(bytes) +
                                            " (another shape than the exported model's)");
  if (tensor.device().type != device.type)
    throw Error(ErrorCode::BadArgument,
                where + "must be on " + device.str() + ", not " + tensor.device().str());
}

// A contiguous copy with a storage of its own: the model copies a weight's
// whole storage from its storage offset, so a view into a larger buffer (a
// mapped safetensors file) would overrun the model's slot.
abi::TensorHandle compact_copy(const TensorView& tensor) {
  const auto sizes = tensor.sizes();
  std::vector<std::int64_t> strides(sizes.size(), 1);
  for (std::size_t d = sizes.size(); d-- > 1;)
    strides[d - 1] = strides[d] * std::max<std::int64_t>(sizes[d], 1);
  abi::TensorHandle copy = abi::empty_strided(sizes, strides, tensor.dtype(), tensor.device());
  abi::copy_(copy.get(), tensor.raw());
  return copy;
}

/// Whether the constants the new weights lack are a frozen package's: Inductor's
/// freezing names the constants it makes "_frozen_param<N>"
/// (torch/_inductor/constant_folding.py).
bool is_frozen(const std::vector<std::string>& missing) {
  return std::ranges::any_of(
      missing, [](const std::string& name) { return name.starts_with("_frozen_param"); });
}

}  // namespace

void replace_weights(const ModelInterface& api, ContainerHandle container,
                     const std::vector<ConstantInfo>& constants, const StateDictReader& weights,
                     Device device, const std::string& source) {
  if (api.update_inactive_pairs == nullptr || api.swap_constant_buffer == nullptr)
    throw Error(ErrorCode::BadArgument,
                message_prefix(source) +
                    "the model cannot swap its weights (its library predates "
                    "UpdateInactiveConstantBufferPairs)");
  std::vector<abi::TensorHandle> copies;
  std::vector<ModelInterface::ConstantPair> pairs;
  std::vector<std::string> missing;
  bool folded = false;
  for (const ConstantInfo& constant : constants) {
    if (constant.from_folded) {
      folded = true;
      continue;
    }
    auto tensor = weights.find(constant.original_fqn);
    if (!tensor) {
      missing.push_back(constant.original_fqn);
      continue;
    }
    check_one(constant, *tensor, device, source);
    copies.push_back(compact_copy(*tensor));
  }
  if (!missing.empty() && is_frozen(missing)) {
    throw Error(ErrorCode::BadArgument,
                message_prefix(source) +
                    "the package was exported frozen (torch._inductor.config.freezing, "
                    "tools/export_aoti.py's default for CPU models): its constants are folded, "
                    "pre-packed weights (" +
                    in_quotes(missing.front()) +
                    ", ...), not the state dict's, so they cannot be swapped; export the model "
                    "with --no-freeze (export_aoti(..., freeze=False)) to load new weights");
  }
  if (!missing.empty()) {
    std::string names;
    for (const auto& name : missing)
      names += (names.empty() ? "" : ", ") + in_quotes(name);
    throw Error(ErrorCode::BadArgument, message_prefix(source) + "the new weights lack " + names);
  }
  std::size_t next = 0;
  for (const ConstantInfo& constant : constants)
    if (!constant.from_folded) pairs.push_back({constant.name.c_str(), copies[next++].get()});
  api.check(api.update_inactive_pairs(container, pairs.data(), pairs.size()), source,
            "copying the new weights");
  if (folded) {
    if (api.run_constant_folding == nullptr)
      throw Error(ErrorCode::BadArgument,
                  message_prefix(source) + "the model folds constants but cannot refold them");
    api.check(api.run_constant_folding(container, true, nullptr, nullptr), source,
              "folding the new weights");
  }
  api.check(api.swap_constant_buffer(container), source, "activating the new weights");
}

}  // namespace fp::aoti::detail
