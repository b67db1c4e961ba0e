// State dicts: named tensors, as PyTorch's `module.state_dict()` returns and
// `module.load_state_dict(...)` reads. They keep the names of the nn API
// (fp::StateDict, like torch.nn.Module.state_dict) but live in core, so
// that safetensors reads and writes them without depending on nn.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flash_powder/core/tensor.h"

namespace fp {

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
  /// A name and its tensor.
  using Entry = std::pair<std::string, Tensor>;

  /// Adds `tensor` under `name`; throws fp::Error if the name is taken.
  void insert(std::string name, Tensor tensor);
  /// The tensor under `name`; throws fp::Error naming the key if missing.
  const Tensor& at(std::string_view name) const;
  /// The same, writable.
  Tensor& at(std::string_view name);
  /// Whether an entry is named `name`.
  bool contains(std::string_view name) const { return index_.contains(std::string(name)); }
  /// The number of entries.
  std::size_t size() const { return entries_.size(); }
  /// Whether there are none.
  bool empty() const { return entries_.empty(); }

  /// The (name, tensor) entries in order, for range-for.
  auto begin() const { return entries_.begin(); }
  /// The end of the entries.
  auto end() const { return entries_.end(); }

  std::vector<std::string> keys() const override;
  std::optional<TensorView> find(std::string_view key) const override;

 private:
  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::size_t> index_;
};

/// What a state-dict entry is to its module: a parameter (`weight`, `bias`),
/// or a buffer (BatchNorm's `running_mean`, `running_var`, `num_batches_tracked`).
enum class TensorKind : std::uint8_t { Parameter, Buffer };

/// "parameter" or "buffer".
std::string_view name(TensorKind kind);

/// Named read-only views of a module's tensors, in PyTorch's order, each with
/// its kind: what `Module::state_dict()` returns. The views share the
/// module's memory (no copy); `to_owned()` copies. It is a StateDictReader,
/// so one module can load another's: `b.load_state_dict(a.state_dict())`.
///
/// To save it with safetensors: `fp::safetensors::save(net.state_dict().entries(), path)`.
class StateDictView final : public StateDictReader {
 public:
  /// A name and its view.
  using Entry = std::pair<std::string, TensorView>;

  /// Adds `tensor` under `name`; throws fp::Error if the name is taken.
  void insert(std::string name, TensorView tensor, TensorKind kind);
  /// The view under `name`; throws fp::Error naming the key if missing.
  const TensorView& at(std::string_view name) const;
  /// The kind of the entry under `name`; throws fp::Error if missing.
  TensorKind kind(std::string_view name) const;
  /// Whether an entry is named `name`.
  bool contains(std::string_view name) const { return index_.contains(std::string(name)); }
  /// The number of entries.
  std::size_t size() const { return entries_.size(); }
  /// Whether there are none.
  bool empty() const { return entries_.empty(); }

  /// (name, view) pairs in order.
  const std::vector<Entry>& entries() const { return entries_; }
  /// The (name, view) entries in order, for range-for.
  auto begin() const { return entries_.begin(); }
  /// The end of the entries.
  auto end() const { return entries_.end(); }

  /// Independent copies of every tensor (lazy copy-on-write clones).
  StateDict to_owned() const;

  std::vector<std::string> keys() const override;
  std::optional<TensorView> find(std::string_view key) const override;

 private:
  std::size_t position(std::string_view name, const char* operation) const;

  std::vector<Entry> entries_;
  std::vector<TensorKind> kinds_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace fp
