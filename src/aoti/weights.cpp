#include "weights.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "flash_powder/base/error.h"
#include "messages.h"

namespace fp::aoti::detail {
namespace {

constexpr std::size_t kAlignment = 64;  // Inductor aligns each constant in the blob to 64

// Bytes of constants the library embeds (`_binary_constants_bin_*`, which an
// Inductor model exports; a library built without its weights embeds one
// placeholder byte). Returns nullopt when the symbols are missing.
std::optional<std::size_t> embedded_size(const SharedObject& library) {
  const auto* start = static_cast<const std::byte*>(library.find("_binary_constants_bin_start"));
  const auto* end = static_cast<const std::byte*>(library.find("_binary_constants_bin_end"));
  if (start == nullptr || end == nullptr || end < start) return std::nullopt;
  return static_cast<std::size_t>(end - start);
}

}  // namespace

void WeightsBlob::Free::operator()(std::byte* data) const noexcept {
  std::free(data);
}

WeightsBlob::WeightsBlob(std::span<const std::byte> bytes) : size_(bytes.size()) {
  const std::size_t rounded = (bytes.size() + kAlignment - 1) / kAlignment * kAlignment;
  data_.reset(
      static_cast<std::byte*>(std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded)));
  if (!data_) throw std::bad_alloc();
  if (!bytes.empty()) std::memcpy(data_.get(), bytes.data(), bytes.size());
}

std::unique_ptr<WeightsBlob> load_weights(const PackageContents& contents,
                                          const SharedObject& library, const ModelInterface& api,
                                          const Container& container, const std::string& source) {
  if (contents.weights_blob) {
    const auto needed = container.constants_blob_size();
    if (api.update_constants_from_blob == nullptr || !needed)
      throw Error(ErrorCode::Format,
                  message_prefix(source) +
                      "the package has a weights blob but its model cannot load one (it was not "
                      "built for external weights, or is older than torch 2.8)");
    if (contents.weights_blob->size() < *needed)
      throw Error(ErrorCode::Format, message_prefix(source) + "the weights blob holds " +
                                         std::to_string(contents.weights_blob->size()) +
                                         " bytes but the model needs " + std::to_string(*needed) +
                                         "; the package is truncated or altered");
    auto blob = std::make_unique<WeightsBlob>(*contents.weights_blob);
    api.check(api.update_constants_from_blob(container.get(),
                                             reinterpret_cast<const std::uint8_t*>(blob->data())),
              source, "loading the weights blob");
    return blob;
  }
  // A library with its weights inside embeds at least their bytes; one built
  // without them embeds a few placeholder bytes.
  std::size_t needed = 0;
  for (const ConstantInfo& constant : container.constants())
    if (!constant.from_folded) needed += constant.data_size;
  const auto embedded = embedded_size(library);
  if (embedded && *embedded < needed) {
    const std::string how =
        contents.pickled_weights
            ? "the package stores them pickled (package_constants_on_disk_format="
              "\"pickle_weights\"), which only Python's loader reads; re-export with "
              "\"binary_blob\""
            : "the package has no *.wrapper_weights.blob (package_constants_in_so=False "
              "needs package_constants_on_disk_format=\"binary_blob\")";
    throw Error(ErrorCode::Format, message_prefix(source) + "the model's weights (" +
                                       std::to_string(needed) +
                                       " bytes) are not in its library, and " + how);
  }
  return nullptr;
}

}  // namespace fp::aoti::detail
