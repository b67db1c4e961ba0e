// Containers: torch.nn.Sequential, ModuleList and ModuleDict.
// https://pytorch.org/docs/stable/nn.html#containers
//
//     fp::nn::Sequential net(fp::nn::Conv2d(3, 8, 3), fp::nn::ReLU());
//     net.push(fp::nn::Flatten()).push(fp::nn::Linear(8 * 30 * 30, 10));
//     fp::Tensor y = net(x);                          // state-dict keys "0.weight", "3.bias", ...
//     auto& conv = net.at<fp::nn::Conv2d>(0);
//
// They hold modules of any type (type-erased, each in its own heap block, so
// references to them stay valid as more are added) and are therefore
// move-only, as is any module that contains one.
//
// ModuleListOf<T> is a ModuleList of one type, iterated like Python's:
//
//     fp::nn::ModuleListOf<BertLayer> layer{12, config};   // 12 x BertLayer(config)
//     for (const BertLayer& block : layer) h = block(h, mask);
#pragma once

#include <concepts>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "flash_powder/nn/module.h"

namespace fp::nn {

template <class M>
concept ModuleType = std::derived_from<std::remove_cvref_t<M>, Module>;

namespace detail {

/// Named modules in insertion order; what the three containers share.
class ModuleStore {
 public:
  explicit ModuleStore(const char* owner) : owner_(owner) {}
  ModuleStore(ModuleStore&&) noexcept = default;
  ModuleStore& operator=(ModuleStore&&) noexcept = default;
  ModuleStore(const ModuleStore&) = delete;
  ModuleStore& operator=(const ModuleStore&) = delete;

  /// Appends; throws fp::Error if `name` is taken or `module` is null.
  void append(std::string name, std::unique_ptr<Module> module);
  /// Replaces the module under `name` in place, or appends it.
  void assign(std::string name, std::unique_ptr<Module> module);
  std::size_t size() const { return entries_.size(); }
  /// Python indexing: negative counts from the end; throws when out of range.
  Module& at(std::int64_t index) const;
  /// Throws fp::Error naming the key when missing.
  Module& at(std::string_view name) const;
  bool contains(std::string_view name) const;
  std::vector<std::string> keys() const;
  void visit(Visitor& visitor) const;
  const std::vector<std::pair<std::string, std::unique_ptr<Module>>>& entries() const {
    return entries_;
  }

  /// `module` as M&, or fp::Error naming both types.
  template <class M>
  M& as(Module& module, const std::string& which) const {
    if (auto* typed = dynamic_cast<M*>(&module)) return *typed;
    throw_wrong_type(module, which, typeid(M).name());
  }

 private:
  [[noreturn]] void throw_wrong_type(const Module& module, const std::string& which,
                                     const char* wanted) const;
  const char* owner_;
  std::vector<std::pair<std::string, std::unique_ptr<Module>>> entries_;
};

template <ModuleType M>
std::unique_ptr<Module> boxed(M&& module) {
  return std::make_unique<std::remove_cvref_t<M>>(std::forward<M>(module));
}

}  // namespace detail

/// Runs its modules one after another, each on the previous one's output.
/// https://pytorch.org/docs/stable/generated/torch.nn.Sequential.html
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

  /// Appends under the next index ("0", "1", ...), like Python's append().
  template <ModuleType M>
  Sequential& push(M&& module) {
    return push(detail::boxed(std::forward<M>(module)));
  }
  Sequential& push(std::unique_ptr<Module> module);
  /// Appends under a name of your choice (Python's OrderedDict form).
  template <ModuleType M>
  Sequential& push(std::string name, M&& module) {
    return push(std::move(name), detail::boxed(std::forward<M>(module)));
  }
  Sequential& push(std::string name, std::unique_ptr<Module> module);

  std::size_t size() const { return modules_.size(); }
  /// The module at `index` (negative counts from the end).
  Module& operator[](std::int64_t index) { return modules_.at(index); }
  const Module& operator[](std::int64_t index) const { return modules_.at(index); }
  /// The module at `index` as its own type; throws fp::Error if it is another.
  template <ModuleType M>
  M& at(std::int64_t index) {
    return modules_.as<M>(modules_.at(index), "module " + std::to_string(index));
  }
  template <ModuleType M>
  const M& at(std::int64_t index) const {
    return modules_.as<M>(modules_.at(index), "module " + std::to_string(index));
  }

  void visit(Visitor& visitor) override;
  /// Empty: a copy of the input.
  Tensor forward(TensorView input) const override;

 private:
  detail::ModuleStore modules_{"Sequential"};
};

/// A list of modules, registered under "0", "1", ...; it has no forward().
/// https://pytorch.org/docs/stable/generated/torch.nn.ModuleList.html
class ModuleList : public Module {
 public:
  ModuleList() = default;
  template <ModuleType M>
  ModuleList& push(M&& module) {
    return push(detail::boxed(std::forward<M>(module)));
  }
  ModuleList& push(std::unique_ptr<Module> module);

  std::size_t size() const { return modules_.size(); }
  Module& operator[](std::int64_t index) { return modules_.at(index); }
  const Module& operator[](std::int64_t index) const { return modules_.at(index); }
  template <ModuleType M>
  M& at(std::int64_t index) {
    return modules_.as<M>(modules_.at(index), "module " + std::to_string(index));
  }
  template <ModuleType M>
  const M& at(std::int64_t index) const {
    return modules_.as<M>(modules_.at(index), "module " + std::to_string(index));
  }

  void visit(Visitor& visitor) override;
  /// Throws fp::Error: a ModuleList only holds modules; call them yourself.
  Tensor forward(TensorView input) const override;

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
template <ModuleType T>
class ModuleListOf : public Module {
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

  std::size_t size() const { return modules_.size(); }
  bool empty() const { return modules_.empty(); }
  /// The module at `index` (negative counts from the end); throws fp::Error
  /// when out of range.
  T& operator[](std::int64_t index) { return modules_[position(index)]; }
  const T& operator[](std::int64_t index) const { return modules_[position(index)]; }

  auto begin() { return modules_.begin(); }
  auto end() { return modules_.end(); }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

  void visit(Visitor& visitor) override {
    std::size_t i = 0;
    for (T& module : modules_)
      visitor.child(std::to_string(i++), module);
  }
  /// Throws fp::Error: the list only holds modules; call them yourself.
  Tensor forward(TensorView) const override {
    detail::fail_module_list_of(
        "has no forward(): it only holds modules; call them, e.g. "
        "for (auto& m : list) x = m(x)");
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

/// Modules by name, in insertion order; it has no forward().
/// https://pytorch.org/docs/stable/generated/torch.nn.ModuleDict.html
class ModuleDict : public Module {
 public:
  ModuleDict() = default;
  /// Adds `module` under `name`, replacing (in place) one already there,
  /// like Python's `md[name] = module`.
  template <ModuleType M>
  ModuleDict& insert(std::string name, M&& module) {
    return insert(std::move(name), detail::boxed(std::forward<M>(module)));
  }
  ModuleDict& insert(std::string name, std::unique_ptr<Module> module);

  std::size_t size() const { return modules_.size(); }
  bool contains(std::string_view name) const { return modules_.contains(name); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  /// Throws fp::Error naming the key when missing.
  Module& operator[](std::string_view name) { return modules_.at(name); }
  const Module& operator[](std::string_view name) const { return modules_.at(name); }
  template <ModuleType M>
  M& at(std::string_view name) {
    return modules_.as<M>(modules_.at(name), "module \"" + std::string(name) + "\"");
  }
  template <ModuleType M>
  const M& at(std::string_view name) const {
    return modules_.as<M>(modules_.at(name), "module \"" + std::string(name) + "\"");
  }

  void visit(Visitor& visitor) override;
  /// Throws fp::Error: a ModuleDict only holds modules; call them yourself.
  Tensor forward(TensorView input) const override;

 private:
  detail::ModuleStore modules_{"ModuleDict"};
};

}  // namespace fp::nn
