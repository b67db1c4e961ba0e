// Containers: torch.nn.Sequential, ModuleList, ModuleDict, ParameterList
// and ParameterDict.
// https://pytorch.org/docs/stable/nn.html#containers
//
//     fp::nn::Sequential net(fp::nn::Conv2d(3, 8, 3), fp::nn::ReLU());
//     net.push(fp::nn::Flatten()).push(fp::nn::Linear(8 * 30 * 30, 10));
//     fp::Tensor y = net(x);                          // state-dict keys "0.weight", "3.bias", ...
//     auto& conv = net.at<fp::nn::Conv2d>(0);
//
// They hold modules of any type (type-erased, each in its own heap block, so
// references to them stay valid as more are added) and are therefore
// move-only, as is any module that contains one; clone() and slice() copy
// them explicitly. Sequential holds modules whose forward takes and returns
// one tensor (fp::nn::Module); ModuleList and ModuleDict hold any module
// (fp::nn::ModuleBase), e.g. an LSTM.
//
// ModuleListOf<T> is a ModuleList of one type, iterated like Python's:
//
//     fp::nn::ModuleListOf<BertLayer> layer{12, config};   // 12 x BertLayer(config)
//     for (const BertLayer& block : layer) h = block(h, mask);
#pragma once

#include <concepts>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "flash_powder/nn/module.h"

namespace fp::nn {

/// A module of any kind (what ModuleList and ModuleDict hold).
template <class M>
concept AnyModuleType = std::derived_from<std::remove_cvref_t<M>, ModuleBase>;
/// A module whose forward takes and returns one tensor (what Sequential holds).
template <class M>
concept ModuleType = std::derived_from<std::remove_cvref_t<M>, Module>;

namespace detail {

/// Makes a copy of a module of the type it was added as, or null.
using Cloner = std::unique_ptr<ModuleBase> (*)(const ModuleBase&);

/// One named module of a container, with how to copy it.
struct StoredModule {
  std::string name;
  std::unique_ptr<ModuleBase> module;
  Cloner clone = nullptr;
};

/// Named modules in insertion order; what the three containers share.
class ModuleStore {
 public:
  explicit ModuleStore(const char* owner) : owner_(owner) {}
  ModuleStore(ModuleStore&&) noexcept = default;
  ModuleStore& operator=(ModuleStore&&) noexcept = default;
  ModuleStore(const ModuleStore&) = delete;
  ModuleStore& operator=(const ModuleStore&) = delete;

  /// Appends; throws fp::Error if `name` is taken or `module` is null.
  void append(std::string name, std::unique_ptr<ModuleBase> module, Cloner clone = nullptr);
  /// Replaces the module under `name` in place, or appends it.
  void assign(std::string name, std::unique_ptr<ModuleBase> module, Cloner clone = nullptr);
  /// Inserts before `index` (Python's list.insert: negative counts from the
  /// end, out-of-range indices clamp); then renumbers "0", "1", ...
  void insert(std::int64_t index, std::unique_ptr<ModuleBase> module, Cloner clone);
  /// Removes the module at `index` and renumbers the rest; returns it.
  StoredModule take(std::int64_t index);
  /// Removes the module under `name`; returns it.
  StoredModule take(std::string_view name);
  /// Copies of the modules in [start, stop) (Python slice semantics, step 1),
  /// keeping their names; throws fp::Error for a module that cannot be copied.
  std::vector<StoredModule> copies(std::int64_t start, std::int64_t stop) const;
  /// Names "0", "1", ... in order.
  void renumber();
  std::size_t size() const { return entries_.size(); }
  /// Python indexing: negative counts from the end; throws when out of range.
  ModuleBase& at(std::int64_t index) const;
  /// Throws fp::Error naming the key when missing.
  ModuleBase& at(std::string_view name) const;
  bool contains(std::string_view name) const;
  std::vector<std::string> keys() const;
  void visit(Visitor& visitor) const;
  const std::vector<StoredModule>& entries() const { return entries_; }

  /// `module` as M&, or fp::Error naming both types.
  template <class M>
  M& as(ModuleBase& module, const std::string& which) const {
    if (auto* typed = dynamic_cast<M*>(&module)) return *typed;
    throw_wrong_type(module, which, typeid(M).name());
  }

 private:
  std::size_t position(std::int64_t index) const;
  [[noreturn]] void throw_wrong_type(const ModuleBase& module, const std::string& which,
                                     const char* wanted) const;
  const char* owner_;
  std::vector<StoredModule> entries_;
};

template <class M>
std::unique_ptr<ModuleBase> clone_as(const ModuleBase& module) {
  const auto& typed = static_cast<const M&>(module);
  if constexpr (std::is_copy_constructible_v<M>) {
    return std::make_unique<M>(typed);
  } else {
    return std::make_unique<M>(typed.clone());
  }
}

/// How to copy a module of type M: its copy constructor, or its clone()
/// (the containers'); null when it has neither.
template <class M>
Cloner cloner() {
  if constexpr (std::is_copy_constructible_v<M> || requires(const M& m) {
                  { m.clone() } -> std::same_as<M>;
                }) {
    return &clone_as<M>;
  } else {
    return nullptr;
  }
}

template <AnyModuleType M>
std::unique_ptr<ModuleBase> boxed(M&& module) {
  return std::make_unique<std::remove_cvref_t<M>>(std::forward<M>(module));
}

}  // namespace detail

/// Runs its modules one after another, each on the previous one's output.
/// https://pytorch.org/docs/stable/generated/torch.nn.Sequential.html
///
/// Like a Python list of modules it can be indexed, sliced and changed:
///
///     fp::nn::Sequential head = features.slice(0, 12);   // features[0:12]: copies
///     std::unique_ptr<fp::nn::Module> last = features.take(-1);   // features.pop(-1)
///     features.insert(0, fp::nn::Identity());
///     fp::nn::Sequential trunk;                          // nn.Sequential(*children[:k])
///     for (int i = 0; i < k; ++i) trunk.push(backbone.take(0));
class Sequential : public Module {
 public:
  Sequential() = default;
  /// Like `nn.Sequential(a, b, c)`; the modules are moved (or copied) in.
  template <ModuleType... Modules>
  requires(sizeof...(Modules) > 0 &&
           !(sizeof...(Modules) == 1 && (std::is_same_v<std::remove_cvref_t<Modules>, Sequential> &&
                                         ...))) explicit Sequential(Modules&&... modules) {
    (push(std::forward<Modules>(modules)), ...);
  }
  /// Like `nn.Sequential(*modules)`: numbered "0", "1", ... in order.
  explicit Sequential(std::vector<std::unique_ptr<Module>> modules);

  /// Appends under the next index ("0", "1", ...), like Python's append().
  template <ModuleType M>
  Sequential& push(M&& module) {
    using Type = std::remove_cvref_t<M>;
    modules_.append(std::to_string(modules_.size()), detail::boxed(std::forward<M>(module)),
                    detail::cloner<Type>());
    return *this;
  }
  /// Appends a module taken over from a pointer (a module that cannot be copied).
  Sequential& push(std::unique_ptr<Module> module);
  /// Appends under a name of your choice (Python's OrderedDict form).
  template <ModuleType M>
  Sequential& push(const std::string& name, M&& module) {
    using Type = std::remove_cvref_t<M>;
    modules_.append(name, detail::boxed(std::forward<M>(module)), detail::cloner<Type>());
    return *this;
  }
  /// The same under a name of your choice.
  Sequential& push(std::string name, std::unique_ptr<Module> module);
  /// Inserts before `index` and renumbers, like Python's `insert(index, module)`.
  template <ModuleType M>
  Sequential& insert(std::int64_t index, M&& module) {
    using Type = std::remove_cvref_t<M>;
    modules_.insert(index, detail::boxed(std::forward<M>(module)), detail::cloner<Type>());
    return *this;
  }
  /// The same for a module taken over from a pointer.
  Sequential& insert(std::int64_t index, std::unique_ptr<Module> module);
  /// Appends every module of `other` (moved out of it) and renumbers,
  /// like Python's `extend`.
  Sequential& extend(Sequential&& other);
  /// Removes the module at `index` (negative counts from the end) and
  /// renumbers the rest, like Python's `pop(index)`; returns it, so that it
  /// can be moved into another container. Throws fp::Error when out of range.
  std::unique_ptr<Module> take(std::int64_t index);
  /// A new Sequential holding copies of the modules in [start, stop), under
  /// their names here, like Python's `seq[start:stop]` (negative indices count
  /// from the end, out-of-range ones clamp). Python's slice shares the
  /// modules; this copies them, which copies no tensor data (copies of
  /// tensors are lazy). Throws fp::Error for a module that cannot be copied
  /// (one added as a std::unique_ptr: take() it instead).
  Sequential slice(std::int64_t start, std::int64_t stop) const;
  /// A copy of the whole container (slice of everything).
  Sequential clone() const;

  /// The number of modules.
  std::size_t size() const { return modules_.size(); }
  /// The module at `index` (negative counts from the end).
  Module& operator[](std::int64_t index) { return static_cast<Module&>(modules_.at(index)); }
  /// The module at `index`, read-only.
  const Module& operator[](std::int64_t index) const {
    return static_cast<const Module&>(modules_.at(index));
  }
  /// The module at `index` as its own type; throws fp::Error if it is another.
  template <ModuleType M>
  M& at(std::int64_t index) {
    return modules_.as<M>(modules_.at(index), "module " + std::to_string(index));
  }
  /// The module at `index` as its own type, read-only.
  template <ModuleType M>
  const M& at(std::int64_t index) const {
    return modules_.as<M>(modules_.at(index), "module " + std::to_string(index));
  }
  /// The names, in order ("0", "1", ... unless pushed with names).
  std::vector<std::string> keys() const { return modules_.keys(); }

  void visit(Visitor& visitor) override;
  /// Empty: a copy of the input. A Linear followed by a GELU() (torchvision's
  /// MLP blocks) runs as one `_addmm_activation` call on the CPU in float32 and
  /// float64: PyTorch's numbers bit for bit, without the second pass.
  Tensor forward(TensorView input) const override;

 private:
  detail::ModuleStore modules_{"Sequential"};
};

/// A list of modules of any kind, registered under "0", "1", ...; it has no
/// forward(). https://pytorch.org/docs/stable/generated/torch.nn.ModuleList.html
class ModuleList : public ModuleBase {
 public:
  ModuleList() = default;
  /// Appends `module` under the next index, like Python's append().
  template <AnyModuleType M>
  ModuleList& push(M&& module) {
    using Type = std::remove_cvref_t<M>;
    modules_.append(std::to_string(modules_.size()), detail::boxed(std::forward<M>(module)),
                    detail::cloner<Type>());
    return *this;
  }
  /// Appends a module taken over from a pointer.
  ModuleList& push(std::unique_ptr<ModuleBase> module);
  /// Inserts before `index` and renumbers, like Python's `insert(index, module)`.
  template <AnyModuleType M>
  ModuleList& insert(std::int64_t index, M&& module) {
    using Type = std::remove_cvref_t<M>;
    modules_.insert(index, detail::boxed(std::forward<M>(module)), detail::cloner<Type>());
    return *this;
  }
  /// Inserts before `index` and renumbers, like Python's `insert(index, module)`.
  ModuleList& insert(std::int64_t index, std::unique_ptr<ModuleBase> module);
  /// Removes the module at `index` and renumbers the rest (Python's `pop`).
  std::unique_ptr<ModuleBase> take(std::int64_t index);
  /// Copies of the modules in [start, stop), renumbered from "0" as Python's
  /// `ModuleList.__getitem__(slice)` does. See Sequential::slice.
  ModuleList slice(std::int64_t start, std::int64_t stop) const;
  /// A copy of the whole list (slice of everything).
  ModuleList clone() const;

  /// The number of modules.
  std::size_t size() const { return modules_.size(); }
  /// The module at `index` (negative counts from the end).
  ModuleBase& operator[](std::int64_t index) { return modules_.at(index); }
  /// The module at `index`, read-only.
  const ModuleBase& operator[](std::int64_t index) const { return modules_.at(index); }
  /// The module at `index` as its own type; throws fp::Error if it is another.
  template <AnyModuleType M>
  M& at(std::int64_t index) {
    return modules_.as<M>(modules_.at(index), "module " + std::to_string(index));
  }
  /// The same, read-only.
  template <AnyModuleType M>
  const M& at(std::int64_t index) const {
    return modules_.as<M>(modules_.at(index), "module " + std::to_string(index));
  }

  void visit(Visitor& visitor) override;

 private:
  detail::ModuleStore modules_{"ModuleList"};
};

namespace detail {
[[noreturn]] void fail_module_list_of(const std::string& problem);
}  // namespace detail

/// A ModuleList whose modules are all of type T, so that they can be
/// iterated (`for (auto& block : blocks)`) and called with T's own forward
/// arguments without a cast. Registered under "0", "1", ... like ModuleList;
/// it has no forward(). References stay valid as modules are added.
/// https://pytorch.org/docs/stable/generated/torch.nn.ModuleList.html
template <AnyModuleType T>
class ModuleListOf : public ModuleBase {
 public:
  ModuleListOf() = default;
  /// `count` modules, each made as `T(args...)`. Throws fp::Error if count < 0.
  template <class... Args>
  requires std::constructible_from<T, const Args&...>
  explicit ModuleListOf(std::int64_t count, const Args&... args) {
    if (count < 0) detail::fail_module_list_of("count must be >= 0, got " + std::to_string(count));
    for (std::int64_t i = 0; i < count; ++i)
      modules_.emplace_back(args...);
  }

  /// Appends a module made in place as `T(args...)`; returns it.
  template <class... Args>
  T& emplace(Args&&... args) {
    return modules_.emplace_back(std::forward<Args>(args)...);
  }
  /// Appends `module` (moved or copied in), like Python's append().
  ModuleListOf& push(T module) {
    modules_.push_back(std::move(module));
    return *this;
  }

  /// The number of modules.
  std::size_t size() const { return modules_.size(); }
  /// Whether there are none.
  bool empty() const { return modules_.empty(); }
  /// The module at `index` (negative counts from the end); throws fp::Error
  /// when out of range.
  T& operator[](std::int64_t index) { return modules_[position(index)]; }
  /// The module at `index`, read-only.
  const T& operator[](std::int64_t index) const { return modules_[position(index)]; }

  /// The first module, for range-for.
  auto begin() { return modules_.begin(); }
  /// One past the last module.
  auto end() { return modules_.end(); }
  /// The first module, read-only.
  auto begin() const { return modules_.begin(); }
  /// One past the last module.
  auto end() const { return modules_.end(); }

  void visit(Visitor& visitor) override {
    std::size_t i = 0;
    for (T& module : modules_)
      visitor.child(std::to_string(i++), module);
  }

 private:
  std::size_t position(std::int64_t index) const {
    const auto count = static_cast<std::int64_t>(modules_.size());
    const std::int64_t position = index < 0 ? index + count : index;
    if (position < 0 || position >= count) {
      detail::fail_module_list_of("index " + std::to_string(index) + " is out of range for " +
                                  std::to_string(count) + " modules");
    }
    return static_cast<std::size_t>(position);
  }

  std::deque<T> modules_;
};

/// Modules of any kind by name, in insertion order; it has no forward().
/// https://pytorch.org/docs/stable/generated/torch.nn.ModuleDict.html
class ModuleDict : public ModuleBase {
 public:
  ModuleDict() = default;
  /// Adds `module` under `name`, replacing (in place) one already there,
  /// like Python's `md[name] = module`.
  template <AnyModuleType M>
  ModuleDict& insert(const std::string& name, M&& module) {
    using Type = std::remove_cvref_t<M>;
    modules_.assign(name, detail::boxed(std::forward<M>(module)), detail::cloner<Type>());
    return *this;
  }
  /// The same for a module taken over from a pointer.
  ModuleDict& insert(std::string name, std::unique_ptr<ModuleBase> module);
  /// Removes the module under `name` and returns it (Python's `pop(key)`);
  /// throws fp::Error naming the key when missing.
  std::unique_ptr<ModuleBase> take(std::string_view name);

  /// The number of modules.
  std::size_t size() const { return modules_.size(); }
  /// Whether a module is named `name`.
  bool contains(std::string_view name) const { return modules_.contains(name); }
  /// The names, in insertion order.
  std::vector<std::string> keys() const { return modules_.keys(); }
  /// Throws fp::Error naming the key when missing.
  ModuleBase& operator[](std::string_view name) { return modules_.at(name); }
  /// The module under `name`, read-only.
  const ModuleBase& operator[](std::string_view name) const { return modules_.at(name); }
  /// The module under `name` as its own type; throws fp::Error if it is another or missing.
  template <AnyModuleType M>
  M& at(std::string_view name) {
    return modules_.as<M>(modules_.at(name), "module \"" + std::string(name) + "\"");
  }
  /// The same, read-only.
  template <AnyModuleType M>
  const M& at(std::string_view name) const {
    return modules_.as<M>(modules_.at(name), "module \"" + std::string(name) + "\"");
  }

  void visit(Visitor& visitor) override;

 private:
  detail::ModuleStore modules_{"ModuleDict"};
};

/// Parameters in a list, registered under "0", "1", ... like Python's; it
/// has no forward(). An undefined Tensor stands for Python's None (skipped
/// by state dicts). References stay valid as parameters are added.
///
///     fp::nn::ParameterList scales({fp::ones({4}), fp::zeros({4})});   // keys "0", "1"
///     fp::Tensor y = x * scales[0] + scales[-1];
///
/// https://pytorch.org/docs/stable/generated/torch.nn.ParameterList.html
class ParameterList : public ModuleBase {
 public:
  ParameterList() = default;
  /// Appends each of `values`, like Python's `ParameterList(values)`.
  explicit ParameterList(std::vector<Tensor> values);

  /// Appends, like Python's append().
  ParameterList& push(Tensor value);
  /// Appends each, like Python's extend().
  ParameterList& extend(std::vector<Tensor> values);

  /// The number of parameters.
  std::size_t size() const { return values_.size(); }
  /// The parameter at `index` (negative counts from the end); throws
  /// fp::Error when out of range.
  Tensor& operator[](std::int64_t index) { return values_[position(index)]; }
  /// The parameter at `index`, read-only.
  const Tensor& operator[](std::int64_t index) const { return values_[position(index)]; }
  /// The first parameter, for range-for.
  auto begin() { return values_.begin(); }
  /// One past the last parameter.
  auto end() { return values_.end(); }
  /// The first parameter, read-only.
  auto begin() const { return values_.begin(); }
  /// One past the last parameter.
  auto end() const { return values_.end(); }

  void visit(Visitor& visitor) override;

 private:
  std::size_t position(std::int64_t index) const;
  std::deque<Tensor> values_;
};

/// Parameters by name, in insertion order, registered under their names
/// like Python's (as with an OrderedDict; Python sorts the keys of a plain
/// dict passed to its constructor); it has no forward().
///
///     fp::nn::ParameterDict scales{{"left", fp::ones({4})}, {"right", fp::zeros({4})}};
///     fp::Tensor y = x * scales["left"];
///
/// https://pytorch.org/docs/stable/generated/torch.nn.ParameterDict.html
class ParameterDict : public ModuleBase {
 public:
  ParameterDict() = default;
  /// Inserts each in order; throws fp::Error for a key Python refuses.
  ParameterDict(std::initializer_list<std::pair<std::string, Tensor>> values);

  /// `dict[key] = value`: replaces the value under `key` in its place, or
  /// appends it. Throws fp::Error for a key that is empty or contains '.',
  /// with Python's words.
  ParameterDict& insert(const std::string& key, Tensor value);
  /// Removes the value under `key` and returns it (Python's `pop(key)`);
  /// throws fp::Error naming the key when missing.
  Tensor take(std::string_view key);

  /// The number of parameters.
  std::size_t size() const { return entries_.size(); }
  /// Whether a parameter is under `key`.
  bool contains(std::string_view key) const;
  /// The keys, in order.
  std::vector<std::string> keys() const;
  /// Throws fp::Error naming the key when missing.
  Tensor& operator[](std::string_view key);
  /// The parameter under `key`, read-only.
  const Tensor& operator[](std::string_view key) const;

  void visit(Visitor& visitor) override;

 private:
  /// The position of `key`; throws fp::Error naming it when missing.
  std::size_t index_of(std::string_view key) const;
  std::deque<std::pair<std::string, Tensor>> entries_;
};

}  // namespace fp::nn
