// The model container of a loaded model library: the runners and constants.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "flash_powder/aoti/package.h"
#include "model_interface.h"

namespace fp::aoti::detail {

/// Owns one AOTInductorModelContainer (`num_models` runners; concurrent
/// Run calls wait for a free one, which makes calls thread-safe).
class Container {
 public:
  Container(const ModelInterface& api, std::size_t num_models, Device device,
            const std::string& source);
  Container(const Container&) = delete;
  Container& operator=(const Container&) = delete;
  ~Container();

  ContainerHandle get() const { return handle_; }

  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;
  std::vector<ConstantInfo> constants() const;
  /// The pytree in_spec and out_spec (JSON).
  std::pair<std::string, std::string> call_spec() const;
  /// Bytes of the constants the model reads from an external blob, or
  /// nullopt for a model that does not read one (its weights are embedded;
  /// the call fails for those and the model prints why to stderr).
  std::optional<std::uint64_t> constants_blob_size() const;

 private:
  /// The pair of entry points that list the inputs' or the outputs' names,
  /// and their names for messages.
  struct NameFunctions {
    decltype(ModelInterface::num_inputs) count;
    decltype(ModelInterface::input_name) name;
    const char* count_call;
    const char* name_call;
  };
  std::vector<std::string> names(const NameFunctions& functions) const;

  const ModelInterface& api_;
  const std::string& source_;
  ContainerHandle handle_ = nullptr;
};

}  // namespace fp::aoti::detail
