// State dicts: named tensors, as PyTorch's `module.state_dict()` returns and
// `module.load_state_dict(...)` reads.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flash_powder/core/tensor.h"

namespace fp::nn {

/// Anything `Module::load_state_dict` can read from: a StateDict, a
/// safetensors file mapped into memory, or a reader of your own.
class StateDictReader {
 public:
  virtual ~StateDictReader() = default;
  /// Every key, in the order the source keeps them.
  virtual std::vector<std::string> keys() const = 0;
  /// The tensor stored under `key`, or nullopt when there is none.
  virtual std::optional<TensorView> find(std::string_view key) const = 0;
};

/// Named tensors in insertion order, owning their data. Python: the
/// OrderedDict of `state_dict()`, or what `safetensors.torch.load_file` returns.
class StateDict final : public StateDictReader {
 public:
  using Entry = std::pair<std::string, Tensor>;

  /// Adds `tensor` under `name`; throws fp::Error if the name is taken.
  void insert(std::string name, Tensor tensor);
  /// The tensor under `name`; throws fp::Error naming the key if missing.
  const Tensor& at(std::string_view name) const;
  Tensor& at(std::string_view name);
  bool contains(std::string_view name) const { return index_.contains(std::string(name)); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

  std::vector<std::string> keys() const override;
  std::optional<TensorView> find(std::string_view key) const override;

 private:
  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace fp::nn
