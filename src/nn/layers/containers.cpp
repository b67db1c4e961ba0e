#include "flash_powder/nn/layers/containers.h"

#include <cstdlib>
#include <iterator>

#include "nn/messages.h"

namespace fp::nn {

namespace detail {

void ModuleStore::append(std::string name, std::unique_ptr<Module> module) {
  if (!module) fail(owner_, "cannot hold a null module");
  if (contains(name)) fail(owner_, "the name \"" + name + "\" is already taken");
  entries_.emplace_back(std::move(name), std::move(module));
}

void ModuleStore::assign(std::string name, std::unique_ptr<Module> module) {
  if (!module) fail(owner_, "cannot hold a null module");
  for (auto& [existing, held] : entries_) {
    if (existing == name) {
      held = std::move(module);
      return;
    }
  }
  entries_.emplace_back(std::move(name), std::move(module));
}

Module& ModuleStore::at(std::int64_t index) const {
  const auto count = static_cast<std::int64_t>(entries_.size());
  const std::int64_t position = index < 0 ? index + count : index;
  if (position < 0 || position >= count) {
    fail(owner_, "index " + std::to_string(index) + " is out of range for " +
                     std::to_string(count) + " modules");
  }
  return *entries_[static_cast<std::size_t>(position)].second;
}

Module& ModuleStore::at(std::string_view name) const {
  for (const auto& [key, module] : entries_) {
    if (key == name) return *module;
  }
  fail(owner_, "no module under the key \"" + std::string(name) + "\"");
}

bool ModuleStore::contains(std::string_view name) const {
  for (const auto& [key, module] : entries_) {
    if (key == name) return true;
  }
  return false;
}

std::vector<std::string> ModuleStore::keys() const {
  std::vector<std::string> names;
  for (const auto& [key, module] : entries_)
    names.push_back(key);
  return names;
}

void ModuleStore::visit(Visitor& visitor) const {
  for (const auto& [key, module] : entries_)
    visitor.child(key, *module);
}

void ModuleStore::throw_wrong_type(const Module& module, const std::string& which,
                                   const char* wanted) const {
  fail(owner_, which + " is a " + module.type_name() + ", not a " + demangled(wanted));
}

void fail_module_list_of(const std::string& problem) {
  fail("ModuleListOf", problem);
}

}  // namespace detail

Sequential& Sequential::push(std::unique_ptr<Module> module) {
  return push(std::to_string(modules_.size()), std::move(module));
}

Sequential& Sequential::push(std::string name, std::unique_ptr<Module> module) {
  modules_.append(std::move(name), std::move(module));
  return *this;
}

void Sequential::visit(Visitor& visitor) {
  modules_.visit(visitor);
}

Tensor Sequential::forward(TensorView input) const {
  const auto& entries = modules_.entries();
  if (entries.empty()) return input.to_owned();
  // The first module reads the caller's input as it is: a lazy copy of it
  // would be copied for real by libtorch kernels that ask for writable data
  // (thnn's convolution does). Later modules see results this loop owns,
  // which a module may overwrite in place.
  Tensor current = (*entries.front().second)(input);
  for (auto entry = std::next(entries.begin()); entry != entries.end(); ++entry) {
    const Module& module = *entry->second;
    if (!module.forward_in_place(current)) current = module(current);
  }
  return current;
}

ModuleList& ModuleList::push(std::unique_ptr<Module> module) {
  modules_.append(std::to_string(modules_.size()), std::move(module));
  return *this;
}

void ModuleList::visit(Visitor& visitor) {
  modules_.visit(visitor);
}

Tensor ModuleList::forward(TensorView) const {
  detail::fail("ModuleList", "has no forward(): it only holds modules; call them, e.g. list[0](x)");
}

ModuleDict& ModuleDict::insert(std::string name, std::unique_ptr<Module> module) {
  modules_.assign(std::move(name), std::move(module));
  return *this;
}

void ModuleDict::visit(Visitor& visitor) {
  modules_.visit(visitor);
}

Tensor ModuleDict::forward(TensorView) const {
  detail::fail("ModuleDict",
               "has no forward(): it only holds modules; call them, e.g. dict[\"name\"](x)");
}

}  // namespace fp::nn
