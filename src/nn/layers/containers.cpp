#include "flash_powder/nn/layers/containers.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/linear.h"
#include "layer_linear.h"
#include "nn/messages.h"
#include "nn/optimize/plan.h"
#include "parameters.h"

namespace fp::nn {

namespace detail {

void ModuleStore::append(std::string name, std::unique_ptr<ModuleBase> module, Cloner clone) {
  if (!module) fail(owner_, "cannot hold a null module");
  if (contains(name)) fail(owner_, "the name \"" + name + "\" is already taken");
  entries_.push_back({std::move(name), std::move(module), clone});
}

void ModuleStore::assign(std::string name, std::unique_ptr<ModuleBase> module, Cloner clone) {
  if (!module) fail(owner_, "cannot hold a null module");
  for (auto& entry : entries_) {
    if (entry.name == name) {
      entry.module = std::move(module);
      entry.clone = clone;
      return;
    }
  }
  entries_.push_back({std::move(name), std::move(module), clone});
}

void ModuleStore::insert(std::int64_t index, std::unique_ptr<ModuleBase> module, Cloner clone) {
  if (!module) fail(owner_, "cannot hold a null module");
  const auto count = static_cast<std::int64_t>(entries_.size());
  // Python's list.insert: negative counts from the end, and both ends clamp.
  std::int64_t position = index < 0 ? index + count : index;
  position = std::clamp<std::int64_t>(position, 0, count);
  entries_.insert(entries_.begin() + position, {std::string(), std::move(module), clone});
  renumber();
}

std::size_t ModuleStore::position(std::int64_t index) const {
  const auto count = static_cast<std::int64_t>(entries_.size());
  const std::int64_t position = index < 0 ? index + count : index;
  if (position < 0 || position >= count) {
    fail(owner_, "index " + std::to_string(index) + " is out of range for " +
                     std::to_string(count) + " modules");
  }
  return static_cast<std::size_t>(position);
}

StoredModule ModuleStore::take(std::int64_t index) {
  const std::size_t at = position(index);
  StoredModule taken = std::move(entries_[at]);
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(at));
  renumber();
  return taken;
}

StoredModule ModuleStore::take(std::string_view name) {
  for (auto entry = entries_.begin(); entry != entries_.end(); ++entry) {
    if (entry->name == name) {
      StoredModule taken = std::move(*entry);
      entries_.erase(entry);
      return taken;
    }
  }
  fail(owner_, "no module under the key \"" + std::string(name) + "\"");
}

std::vector<StoredModule> ModuleStore::copies(std::int64_t start, std::int64_t stop) const {
  // Python's slice.indices for step 1.
  const auto count = static_cast<std::int64_t>(entries_.size());
  const auto clamp = [count](std::int64_t i) {
    return std::clamp<std::int64_t>(i < 0 ? i + count : i, 0, count);
  };
  const std::int64_t first = clamp(start), last = clamp(stop);
  std::vector<StoredModule> copied;
  for (std::int64_t i = first; i < last; ++i) {
    const StoredModule& entry = entries_[static_cast<std::size_t>(i)];
    if (entry.clone == nullptr) {
      fail(owner_, "module " + std::to_string(i) + " (" + entry.module->type_name() +
                       ") cannot be copied: it was added as a std::unique_ptr or its type "
                       "has no copy constructor; take() it out instead");
    }
    copied.push_back({entry.name, entry.clone(*entry.module), entry.clone});
  }
  return copied;
}

void ModuleStore::renumber() {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    entries_[i].name = std::to_string(i);
}

ModuleBase& ModuleStore::at(std::int64_t index) const {
  return *entries_[position(index)].module;
}

ModuleBase& ModuleStore::at(std::string_view name) const {
  for (const auto& entry : entries_) {
    if (entry.name == name) return *entry.module;
  }
  fail(owner_, "no module under the key \"" + std::string(name) + "\"");
}

bool ModuleStore::contains(std::string_view name) const {
  return std::ranges::any_of(entries_,
                             [&](const StoredModule& entry) { return entry.name == name; });
}

std::vector<std::string> ModuleStore::keys() const {
  std::vector<std::string> names;
  for (const auto& entry : entries_)
    names.push_back(entry.name);
  return names;
}

void ModuleStore::visit(Visitor& visitor) const {
  for (const auto& entry : entries_)
    visitor.child(entry.name, *entry.module);
}

void ModuleStore::throw_wrong_type(const ModuleBase& module, const std::string& which,
                                   const char* wanted) const {
  fail(owner_, which + " is a " + module.type_name() + ", not a " + demangled(wanted));
}

void fail_module_list_of(const std::string& problem) {
  fail("ModuleListOf", problem);
}

}  // namespace detail

namespace {

template <class M>
std::unique_ptr<M> downcast(std::unique_ptr<ModuleBase> module) {
  return std::unique_ptr<M>(static_cast<M*>(module.release()));
}

}  // namespace

Sequential::Sequential(std::vector<std::unique_ptr<Module>> modules) {
  for (auto& module : modules)
    push(std::move(module));
}

Sequential& Sequential::push(std::unique_ptr<Module> module) {
  return push(std::to_string(modules_.size()), std::move(module));
}

Sequential& Sequential::push(std::string name, std::unique_ptr<Module> module) {
  modules_.append(std::move(name), std::move(module));
  return *this;
}

Sequential& Sequential::insert(std::int64_t index, std::unique_ptr<Module> module) {
  modules_.insert(index, std::move(module), nullptr);
  return *this;
}

Sequential& Sequential::extend(Sequential&& other) {
  while (other.size() > 0) {
    detail::StoredModule entry = other.modules_.take(0);
    modules_.append(std::to_string(modules_.size()), std::move(entry.module), entry.clone);
  }
  return *this;
}

std::unique_ptr<Module> Sequential::take(std::int64_t index) {
  // Sequential holds Modules only (push and insert take nothing else).
  return downcast<Module>(modules_.take(index).module);
}

Sequential Sequential::slice(std::int64_t start, std::int64_t stop) const {
  Sequential sliced;
  for (auto& entry : modules_.copies(start, stop))
    sliced.modules_.append(std::move(entry.name), std::move(entry.module), entry.clone);
  return sliced;
}

Sequential Sequential::clone() const {
  return slice(0, static_cast<std::int64_t>(size()));
}

void Sequential::visit(Visitor& visitor) {
  modules_.visit(visitor);
}

namespace {

using StoredModules = std::vector<detail::StoredModule>;

/// Where `entry` is an nn.Linear followed by an nn.GELU() (exactly those
/// types, not optimised for inference), both layers as one call where that
/// gives their numbers (detail::linear_then_gelu: one pass over the output
/// fewer; torchvision's MLP blocks are such pairs). std::nullopt otherwise.
std::optional<Tensor> fused_linear_gelu(StoredModules::const_iterator entry,
                                        StoredModules::const_iterator end, TensorView input) {
  const auto next = std::next(entry);
  if (next == end) return std::nullopt;
  const ModuleBase& first = *entry->module;
  const ModuleBase& second = *next->module;
  if (typeid(first) != typeid(Linear) || typeid(second) != typeid(GELU)) return std::nullopt;
  if (static_cast<const GELU&>(second).approximate != "none" ||
      detail::InferenceAccess::plan(first) != nullptr ||
      detail::InferenceAccess::plan(second) != nullptr) {
    return std::nullopt;
  }
  const auto& linear = static_cast<const Linear&>(first);
  return detail::call_module(linear, [&] {
    return detail::linear_then_gelu(input, linear.weight, detail::optional_view(linear.bias));
  });
}

}  // namespace

Tensor Sequential::forward(TensorView input) const {
  const auto& entries = modules_.entries();
  if (entries.empty()) return input.to_owned();
  const auto module_at = [](const detail::StoredModule& entry) -> const Module& {
    return static_cast<const Module&>(*entry.module);
  };
  // The first module reads the caller's input as it is: a lazy copy of it
  // would be copied for real by libtorch kernels that ask for writable data
  // (thnn's convolution does). Later modules see results this loop owns,
  // which a module may overwrite in place.
  auto entry = entries.begin();
  Tensor current;
  if (std::optional<Tensor> fused = fused_linear_gelu(entry, entries.end(), input)) {
    current = std::move(*fused);
    std::advance(entry, 2);
  } else {
    current = module_at(*entry)(input);
    ++entry;
  }
  while (entry != entries.end()) {
    if (std::optional<Tensor> fused = fused_linear_gelu(entry, entries.end(), current)) {
      current = std::move(*fused);
      std::advance(entry, 2);
    } else {
      module_at(*entry).call_in_place(current);
      ++entry;
    }
  }
  return current;
}

ModuleList& ModuleList::push(std::unique_ptr<ModuleBase> module) {
  modules_.append(std::to_string(modules_.size()), std::move(module));
  return *this;
}

ModuleList& ModuleList::insert(std::int64_t index, std::unique_ptr<ModuleBase> module) {
  modules_.insert(index, std::move(module), nullptr);
  return *this;
}

std::unique_ptr<ModuleBase> ModuleList::take(std::int64_t index) {
  return modules_.take(index).module;
}

ModuleList ModuleList::slice(std::int64_t start, std::int64_t stop) const {
  ModuleList sliced;
  for (auto& entry : modules_.copies(start, stop)) {
    sliced.modules_.append(std::to_string(sliced.size()), std::move(entry.module), entry.clone);
  }
  return sliced;
}

ModuleList ModuleList::clone() const {
  return slice(0, static_cast<std::int64_t>(size()));
}

void ModuleList::visit(Visitor& visitor) {
  modules_.visit(visitor);
}

ModuleDict& ModuleDict::insert(std::string name, std::unique_ptr<ModuleBase> module) {
  modules_.assign(std::move(name), std::move(module));
  return *this;
}

std::unique_ptr<ModuleBase> ModuleDict::take(std::string_view name) {
  return modules_.take(name).module;
}

void ModuleDict::visit(Visitor& visitor) {
  modules_.visit(visitor);
}

ParameterList::ParameterList(std::vector<Tensor> values) {
  extend(std::move(values));
}

ParameterList& ParameterList::push(Tensor value) {
  values_.push_back(std::move(value));
  return *this;
}

ParameterList& ParameterList::extend(std::vector<Tensor> values) {
  for (Tensor& value : values)
    values_.push_back(std::move(value));
  return *this;
}

std::size_t ParameterList::position(std::int64_t index) const {
  const auto count = static_cast<std::int64_t>(values_.size());
  const std::int64_t position = index < 0 ? index + count : index;
  if (position < 0 || position >= count) {
    detail::fail("ParameterList", "index " + std::to_string(index) + " is out of range");
  }
  return static_cast<std::size_t>(position);
}

void ParameterList::visit(Visitor& visitor) {
  std::size_t i = 0;
  for (Tensor& value : values_)
    visitor.parameter(std::to_string(i++), value);
}

ParameterDict::ParameterDict(std::initializer_list<std::pair<std::string, Tensor>> values) {
  for (const auto& [key, value] : values)
    insert(key, value);
}

ParameterDict& ParameterDict::insert(const std::string& key, Tensor value) {
  // Python's register_parameter refuses these names (with a KeyError).
  if (key.empty()) detail::fail("ParameterDict", "parameter name can't be empty string \"\"");
  if (key.find('.') != std::string::npos) {
    detail::fail("ParameterDict", "parameter name can't contain \".\"");
  }
  const auto found = std::ranges::find(entries_, key, &std::pair<std::string, Tensor>::first);
  if (found != entries_.end()) {
    found->second = std::move(value);
  } else {
    entries_.emplace_back(key, std::move(value));
  }
  return *this;
}

std::size_t ParameterDict::index_of(std::string_view key) const {
  const auto found = std::ranges::find(entries_, key, &std::pair<std::string, Tensor>::first);
  if (found == entries_.end()) {
    detail::fail("ParameterDict", "no parameter named \"" + std::string(key) + "\"");
  }
  return static_cast<std::size_t>(found - entries_.begin());
}

Tensor ParameterDict::take(std::string_view key) {
  const auto found = entries_.begin() + static_cast<std::ptrdiff_t>(index_of(key));
  Tensor value = std::move(found->second);
  entries_.erase(found);
  return value;
}

bool ParameterDict::contains(std::string_view key) const {
  return std::ranges::find(entries_, key, &std::pair<std::string, Tensor>::first) != entries_.end();
}

std::vector<std::string> ParameterDict::keys() const {
  std::vector<std::string> names;
  for (const auto& entry : entries_)
    names.push_back(entry.first);
  return names;
}

Tensor& ParameterDict::operator[](std::string_view key) {
  return entries_[index_of(key)].second;
}

const Tensor& ParameterDict::operator[](std::string_view key) const {
  return entries_[index_of(key)].second;
}

void ParameterDict::visit(Visitor& visitor) {
  for (auto& [key, value] : entries_)
    visitor.parameter(key, value);
}

}  // namespace fp::nn
