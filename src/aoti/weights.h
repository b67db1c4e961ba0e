// Weights stored outside the model library (`*.wrapper_weights.blob`).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "container.h"
#include "package_reader.h"
#include "shared_object.h"

namespace fp::aoti::detail {

/// A 64-byte aligned copy of the weights blob. The model reads its constants
/// in place (USE_MMAP_EXTERNAL), so it must live as long as the container.
class WeightsBlob {
 public:
  explicit WeightsBlob(std::span<const std::byte> bytes);
  const std::byte* data() const { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(std::byte* data) const noexcept;
  };
  std::unique_ptr<std::byte, Free> data_;
  std::size_t size_ = 0;
};

/// Gives the container the package's external weights when the model needs
/// them, and returns the blob it must keep. Throws fp::Error when the model's
/// weights are neither in its library nor in a blob of the package (the bare
/// model would crash on its first run), or when the blob is too short.
std::unique_ptr<WeightsBlob> load_weights(const PackageContents& contents,
                                          const SharedObject& library, const ModelInterface& api,
                                          const Container& container, const std::string& source);

}  // namespace fp::aoti::detail
