#include "shared_memory.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "messages.h"

namespace fp::safetensors::detail {
namespace {

/// The bytes a tensor reaches, [start, stop), as Python's `_end_ptr` measures them.
struct Area {
  std::uintptr_t start;
  std::uintptr_t stop;
  std::string_view name;
  // clang-tidy 14 flags the `0` of the comparison category that a defaulted
  // <=> synthesises; there is no pointer.
  // NOLINTNEXTLINE(modernize-use-nullptr)
  friend auto operator<=>(const Area&, const Area&) = default;
};

Area area_of(const NamedTensor& named) {
  const TensorView& tensor = named.second;
  const auto start = reinterpret_cast<std::uintptr_t>(abi::const_data_ptr(tensor.raw()));
  if (tensor.numel() == 0) return {start, start, named.first};
  std::uintptr_t last = 0;  // element offset of the furthest element
  const auto sizes = tensor.sizes();
  const auto strides = tensor.strides();
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    last += static_cast<std::uintptr_t>((sizes[d] - 1) * strides[d]);
  }
  return {start, start + (last + 1) * tensor.element_size(), named.first};
}

/// Where a tensor's storage starts: equal for tensors of one storage (and
/// for copy-on-write copies, which storage_identity() tells apart).
std::tuple<DeviceType, int, std::uintptr_t> storage_start(const TensorView& tensor) {
  const auto data = reinterpret_cast<std::uintptr_t>(abi::const_data_ptr(tensor.raw()));
  const auto offset = static_cast<std::uintptr_t>(tensor.storage_offset()) * tensor.element_size();
  const Device device = tensor.device();
  return {device.type, device.index, data - offset};
}

/// A 0-element alias at offset 0 of the tensor's storage: two of them are
/// `is_set_to` each other exactly when their storages are the same object.
TensorView storage_probe(const TensorView& tensor) {
  return aten::as_strided(tensor, {0}, {1}, 0);
}

/// Splits tensors whose storages start at one address into groups that
/// really share one storage object.
std::vector<std::vector<std::size_t>> split_by_storage(std::span<const NamedTensor> tensors,
                                                       const std::vector<std::size_t>& candidates) {
  std::vector<std::vector<std::size_t>> groups;
  std::vector<TensorView> probes;
  for (const std::size_t index : candidates) {
    TensorView probe = storage_probe(tensors[index].second);
    auto same = std::find_if(probes.begin(), probes.end(), [&](const TensorView& other) {
      return aten::is_set_to(probe, other);
    });
    if (same == probes.end()) {
      probes.push_back(std::move(probe));
      groups.push_back({index});
    } else {
      groups[static_cast<std::size_t>(same - probes.begin())].push_back(index);
    }
  }
  return groups;
}

/// Python's `_filter_shared_not_shared` on one storage: the names that overlap.
std::vector<std::vector<std::string_view>> overlapping(std::span<const NamedTensor> tensors,
                                                       const std::vector<std::size_t>& storage) {
  std::vector<Area> areas;
  areas.reserve(storage.size());
  for (const std::size_t index : storage)
    areas.push_back(area_of(tensors[index]));
  std::sort(areas.begin(), areas.end());
  std::vector<std::vector<std::string_view>> groups{{areas.front().name}};
  std::uintptr_t last_stop = areas.front().stop;
  for (std::size_t i = 1; i < areas.size(); ++i) {
    if (areas[i].start >= last_stop) {
      groups.push_back({areas[i].name});
    } else {
      groups.back().push_back(areas[i].name);
    }
    last_stop = areas[i].stop;
  }
  std::erase_if(groups, [](const auto& group) { return group.size() < 2; });
  return groups;
}

std::string group_list(const std::vector<std::vector<std::string_view>>& groups) {
  std::string text = "[";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    text += g > 0 ? ", {" : "{";
    for (std::size_t n = 0; n < groups[g].size(); ++n) {
      text += (n > 0 ? ", " : "") + in_quotes(groups[g][n]);
    }
    text += "}";
  }
  return text + "]";
}

}  // namespace

void check_no_shared_memory(std::span<const NamedTensor> tensors) {
  // As Python: meta tensors and tensors without memory share nothing.
  std::map<std::tuple<DeviceType, int, std::uintptr_t>, std::vector<std::size_t>> by_start;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const TensorView& tensor = tensors[i].second;
    if (tensor.device().type == DeviceType::Meta) continue;
    if (abi::const_data_ptr(tensor.raw()) == nullptr) continue;
    by_start[storage_start(tensor)].push_back(i);
  }
  std::vector<std::vector<std::string_view>> failing;
  for (const auto& [start, candidates] : by_start) {
    if (candidates.size() < 2) continue;
    for (const auto& storage : split_by_storage(tensors, candidates)) {
      if (storage.size() < 2) continue;
      for (auto& group : overlapping(tensors, storage))
        failing.push_back(std::move(group));
    }
  }
  if (failing.empty()) return;
  throw Error(ErrorCode::BadArgument,
              message_prefix("save") +
                  "some tensors share memory, which Python's save_file refuses too (they would be "
                  "stored twice and load as separate tensors): " +
                  group_list(failing) +
                  ". Save one name per memory block, or save a copy (fp::Tensor{view}) where "
                  "separate tensors are meant");
}

}  // namespace fp::safetensors::detail
