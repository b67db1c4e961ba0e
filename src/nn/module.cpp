#include "flash_powder/nn/module.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <typeinfo>
#include <unordered_set>

#include "flash_powder/aten/aten.h"
#include "messages.h"
#include "nn/optimize/plan.h"

// ModuleBase and Module: the state-dict walk, loading, the module tree and
// calls that name the module's path in their errors.
//
// Why this file is long: those four share one visitor walk over a module's
// members and only make sense together.

namespace fp::nn {
namespace {

/// One tensor a module reported to its visitor.
struct LocalTensor {
  std::string name;
  Tensor* tensor;
  TensorKind kind;
  BufferOptions options;
};

/// What one module's visit() reported, in PyTorch's order: parameters, then
/// buffers, then children (PyTorch keeps them in three registries).
struct Locals {
  std::vector<LocalTensor> tensors;
  std::vector<std::pair<std::string, ModuleBase*>> children;
};

class Collector final : public Visitor {
 public:
  explicit Collector(const ModuleBase& module) : module_(module) {}

  Locals take() {
    Locals ordered;
    for (auto kind : {TensorKind::Parameter, TensorKind::Buffer}) {
      for (auto& local : locals_.tensors) {
        if (local.kind == kind) ordered.tensors.push_back(std::move(local));
      }
    }
    ordered.children = std::move(locals_.children);
    return ordered;
  }

 private:
  void on_tensor(std::string_view name, Tensor& tensor, TensorKind kind,
                 const BufferOptions& options) override {
    check_name(name);
    if (!tensor.is_defined()) return;  // PyTorch's `None` parameter
    locals_.tensors.push_back({std::string(name), &tensor, kind, options});
  }

  void on_child(std::string_view name, ModuleBase& module) override {
    check_name(name);
    locals_.children.emplace_back(std::string(name), &module);
  }

  void check_name(std::string_view name) {
    if (name.empty()) fail("a name is empty");
    const std::string quoted = "the name \"" + std::string(name) + "\"";
    if (name.find('.') != std::string_view::npos) fail(quoted + " contains \".\"");
    if (!seen_.insert(std::string(name)).second) fail(quoted + " is used twice");
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw Error(ErrorCode::BadArgument, "fp::nn: " + module_.type_name() + "::visit: " + problem);
  }

  const ModuleBase& module_;
  Locals locals_;
  std::unordered_set<std::string> seen_;
};

Locals locals_of(ModuleBase& module) {
  Collector collector(module);
  module.visit(collector);
  return collector.take();
}

/// Reading never changes a module; visit() is non-const only so that the
/// same traversal can also load and convert.
ModuleBase& readable(const ModuleBase& module) {
  return const_cast<ModuleBase&>(module);
}

/// Calls `each(module, prefix, locals)` for `module` and every module below
/// it, parents first (PyTorch's `named_modules` order).
template <class Each>
void walk(ModuleBase& module, const std::string& prefix, bool recurse, Each&& each) {
  const Locals locals = locals_of(module);
  each(module, prefix, locals);
  if (!recurse) return;
  for (const auto& [name, child] : locals.children) {
    walk(*child, prefix + name + ".", true, each);
  }
}

std::vector<std::pair<std::string, TensorView>> named_tensors(const ModuleBase& module,
                                                              TensorKind kind, bool recurse) {
  std::vector<std::pair<std::string, TensorView>> named;
  walk(readable(module), "", recurse,
       [&](ModuleBase&, const std::string& prefix, const Locals& locals) {
         for (const auto& local : locals.tensors) {
           if (local.kind == kind) named.emplace_back(prefix + local.name, *local.tensor);
         }
       });
  return named;
}

/// bool, integer, floating point, complex: a value changes kind only lossily.
int dtype_kind(DType dtype) {
  if (dtype == DType::Bool) return 0;
  if (is_complex(dtype)) return 3;
  if (is_floating_point(dtype)) return 2;
  return 1;
}

std::string torch_dtype(DType dtype) {
  return "torch." + std::string(name(dtype));
}

std::string quoted_list(const std::vector<std::string>& keys) {
  std::string text;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    text += (i > 0 ? ", \"" : "\"") + keys[i] + "\"";
  }
  return text;
}

/// PyTorch's `Module.load_state_dict` algorithm: each module, parents first,
/// matches its own keys and reports the unexpected ones under its prefix.
class Loader {
 public:
  Loader(const StateDictReader& source, const LoadOptions& options)
      : source_(source), keys_(source.keys()), options_(options) {}

  void load(ModuleBase& root) {
    walk(root, "", true, [&](ModuleBase&, const std::string& prefix, const Locals& locals) {
      match_locals(prefix, locals);
      find_unexpected(prefix, locals);
    });
  }

  /// PyTorch's message: missing and unexpected keys first, then mismatches.
  std::vector<std::string> errors() const {
    std::vector<std::string> all;
    if (options_.strict && !result_.missing_keys.empty()) {
      all.push_back("Missing key(s) in state_dict: " + quoted_list(result_.missing_keys) + ". ");
    }
    if (options_.strict && !result_.unexpected_keys.empty()) {
      all.push_back("Unexpected key(s) in state_dict: " + quoted_list(result_.unexpected_keys) +
                    ". ");
    }
    all.insert(all.end(), mismatches_.begin(), mismatches_.end());
    return all;
  }

  /// Writes every matched value; call only when errors() is empty.
  void apply() {
    for (auto& [target, value] : pending_) {
      if (options_.assign) {
        *target = Tensor(value);
      } else {
        target->copy_(value);
      }
    }
  }

  LoadResult result() const { return result_; }

 private:
  void match_locals(const std::string& prefix, const Locals& locals) {
    for (const auto& local : locals.tensors) {
      if (local.kind == TensorKind::Buffer && !local.options.persistent) continue;
      const std::string key = prefix + local.name;
      const std::optional<TensorView> value = source_.find(key);
      if (!value) {
        if (!local.options.may_be_missing) result_.missing_keys.push_back(key);
        continue;
      }
      match(key, *local.tensor, *value);
    }
  }

  void match(const std::string& key, Tensor& target, TensorView value) {
    // PyTorch's backward compatibility: a [1] tensor loads into a 0-dim one.
    const bool unwrapped = target.dim() == 0 && value.dim() == 1 && value.size(0) >= 1;
    if (unwrapped) value = value.select(0, 0);
    if (!std::ranges::equal(value.sizes(), target.sizes())) {
      mismatches_.push_back("size mismatch for " + key + ": copying a param with shape " +
                            detail::torch_size(value.sizes()) +
                            " from checkpoint, the shape in current model is " +
                            detail::torch_size(target.sizes()) + ".");
      return;
    }
    if (dtype_kind(value.dtype()) != dtype_kind(target.dtype())) {
      mismatches_.push_back("dtype mismatch for " + key + ": copying a param with dtype " +
                            torch_dtype(value.dtype()) +
                            " from checkpoint, the dtype in current model is " +
                            torch_dtype(target.dtype()) + ".");
      return;
    }
    const bool target_is_meta = target.device() == Device::meta();
    const bool value_is_meta = value.device() == Device::meta();
    // Meta tensors have no values: copying one into another changes nothing
    // (and they have no storage for is_set_to to compare).
    if (target_is_meta && value_is_meta && !options_.assign) return;
    if (target_is_meta && !options_.assign) {
      // PyTorch only warns; here a load that changes nothing is an error.
      mismatches_.push_back(
          "copying from a non-meta parameter in the checkpoint to a meta parameter in the "
          "current model, which is a no-op, for " +
          key + ". (Pass `.assign = true` to take the checkpoint's tensors instead.)");
      return;
    }
    // Loading a module's own state dict: copying a tensor onto itself is a no-op
    // (and would trip the borrow checker, which sees the state dict's view).
    const bool on_meta = target_is_meta || value_is_meta;
    if (!unwrapped && !on_meta && aten::is_set_to(value, target)) return;
    pending_.emplace_back(&target, value);
  }

  /// Keys under `prefix` that name neither a local tensor nor a child.
  void find_unexpected(const std::string& prefix, const Locals& locals) {
    for (const auto& key : keys_) {
      if (!key.starts_with(prefix)) continue;
      const std::string_view rest = std::string_view(key).substr(prefix.size());
      const auto dot = rest.find('.');
      const bool known = dot == std::string_view::npos ? is_loadable(locals, rest)
                                                       : is_child(locals, rest.substr(0, dot));
      if (!known) result_.unexpected_keys.push_back(key);
    }
  }

  static bool is_loadable(const Locals& locals, std::string_view name) {
    for (const auto& local : locals.tensors) {
      if (local.name == name)
        return local.kind == TensorKind::Parameter || local.options.persistent;
    }
    return false;
  }

  static bool is_child(const Locals& locals, std::string_view name) {
    for (const auto& [child_name, child] : locals.children) {
      if (child_name == name) return true;
    }
    return false;
  }

  const StateDictReader& source_;
  std::vector<std::string> keys_;
  LoadOptions options_;
  LoadResult result_;
  std::vector<std::string> mismatches_;
  std::vector<std::pair<Tensor*, TensorView>> pending_;
};

/// The class name as PyTorch prints it: without namespaces or template arguments.
std::string unqualified(const char* mangled) {
  std::string full = detail::demangled(mangled);
  if (const auto bracket = full.find('<'); bracket != std::string::npos) full.resize(bracket);
  const auto colon = full.rfind("::");
  return colon == std::string::npos ? full : full.substr(colon + 2);
}

/// The calls of modules in progress on this thread, outermost first, and
/// where the error in flight was raised.
struct Calls {
  std::vector<const ModuleBase*> stack;
  /// The exception object last seen by a catch, and the stack when it was.
  const void* error = nullptr;
  std::vector<const ModuleBase*> failed;
};

thread_local Calls calls;

/// The dotted path, under `root`, of the innermost module of `failed` that
/// lies in root's tree ("" for root itself or when none does).
std::string path_of_failure(const ModuleBase& root, const std::vector<const ModuleBase*>& failed) {
  try {
    const auto modules = root.named_modules();
    for (auto module = failed.rbegin(); module != failed.rend(); ++module) {
      for (const auto& [name, candidate] : modules) {
        if (candidate == *module) return name;
      }
    }
  } catch (const Error&) {
    // A visit() that fails now cannot name the place; the original error stays.
  }
  return "";
}

}  // namespace

namespace detail {

ModuleCall::ModuleCall(const ModuleBase& module) {
  if (calls.stack.empty()) {
    calls.error = nullptr;
    calls.failed.clear();
  }
  calls.stack.push_back(&module);
}

ModuleCall::~ModuleCall() {
  calls.stack.pop_back();
}

void ModuleCall::rethrow(const Error& error) const {
  if (calls.error != &error) {  // raised in this call, not in a call inside it
    calls.error = &error;
    calls.failed = calls.stack;
  }
  if (calls.stack.size() > 1) throw;
  const std::string path = path_of_failure(*calls.stack.front(), calls.failed);
  calls.error = nullptr;
  calls.failed.clear();
  // Errors of a derived type (fp::BorrowError) keep their type and message.
  if (path.empty() || typeid(error) != typeid(Error)) throw;
  throw Error(error.code(), path + ": " + error.what());
}

}  // namespace detail

void ModuleBase::visit(Visitor&) {}

Tensor Module::operator()(TensorView input) const {
  return detail::call_module(*this, [&] {
    const detail::InferencePlan* plan = detail::InferenceAccess::plan(*this);
    return plan != nullptr ? plan->forward(input) : forward(input);
  });
}

bool Module::forward_in_place(Tensor&) const {
  return false;
}

void Module::call_in_place(Tensor& x) const {
  const detail::InferencePlan* plan = detail::InferenceAccess::plan(*this);
  const bool done = detail::call_module(
      *this, [&] { return plan != nullptr ? plan->forward_in_place(x) : forward_in_place(x); });
  if (!done) x = (*this)(x);
}

Tensor Module::forward(TensorView) const {
  throw Error(ErrorCode::BadArgument,
              "fp::nn: Module [" + type_name() +
                  "] is missing the required \"forward\" function: override "
                  "forward(fp::TensorView) const");
}

std::string ModuleBase::type_name() const {
  return unqualified(typeid(*this).name());
}

std::vector<std::vector<std::string>> ModuleBase::fusable_chains() const {
  return {};
}

StateDictView ModuleBase::state_dict() const {
  StateDictView dict;
  walk(readable(*this), "", true,
       [&](ModuleBase&, const std::string& prefix, const Locals& locals) {
         for (const auto& local : locals.tensors) {
           if (local.kind == TensorKind::Buffer && !local.options.persistent) continue;
           dict.insert(prefix + local.name, *local.tensor, local.kind);
         }
       });
  return dict;
}

LoadResult ModuleBase::load_state_dict(const StateDictReader& source, const LoadOptions& options) {
  const detail::Reoptimize reoptimize(*this, "load_state_dict");
  Loader loader(source, options);
  loader.load(*this);
  const std::vector<std::string> errors = loader.errors();
  if (!errors.empty()) {
    std::string message =
        "fp::nn::Module::load_state_dict: Error(s) in loading state_dict for " + type_name() + ":";
    for (const auto& error : errors)
      message += "\n\t" + error;
    throw Error(ErrorCode::BadArgument, message);
  }
  loader.apply();
  reoptimize.run();
  return loader.result();
}

std::vector<std::pair<std::string, TensorView>> ModuleBase::named_parameters(bool recurse) const {
  return named_tensors(*this, TensorKind::Parameter, recurse);
}

std::vector<std::pair<std::string, TensorView>> ModuleBase::named_buffers(bool recurse) const {
  return named_tensors(*this, TensorKind::Buffer, recurse);
}

std::vector<TensorView> ModuleBase::parameters(bool recurse) const {
  std::vector<TensorView> views;
  for (auto& [name, view] : named_parameters(recurse))
    views.push_back(std::move(view));
  return views;
}

std::vector<TensorView> ModuleBase::buffers(bool recurse) const {
  std::vector<TensorView> views;
  for (auto& [name, view] : named_buffers(recurse))
    views.push_back(std::move(view));
  return views;
}

std::vector<std::pair<std::string, ModuleBase*>> ModuleBase::named_children() {
  return locals_of(*this).children;
}

std::vector<std::pair<std::string, const ModuleBase*>> ModuleBase::named_children() const {
  std::vector<std::pair<std::string, const ModuleBase*>> children;
  for (auto& [name, child] : locals_of(readable(*this)).children)
    children.emplace_back(name, child);
  return children;
}

std::vector<ModuleBase*> ModuleBase::children() {
  std::vector<ModuleBase*> modules;
  for (auto& [name, child] : named_children())
    modules.push_back(child);
  return modules;
}

std::vector<const ModuleBase*> ModuleBase::children() const {
  std::vector<const ModuleBase*> modules;
  for (auto& [name, child] : named_children())
    modules.push_back(child);
  return modules;
}

std::vector<std::pair<std::string, ModuleBase*>> ModuleBase::named_modules() {
  std::vector<std::pair<std::string, ModuleBase*>> modules;
  std::unordered_set<const ModuleBase*> seen;
  walk(*this, "", true, [&](ModuleBase& module, const std::string& prefix, const Locals&) {
    if (!seen.insert(&module).second) return;
    modules.emplace_back(prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1), &module);
  });
  return modules;
}

std::vector<std::pair<std::string, const ModuleBase*>> ModuleBase::named_modules() const {
  std::vector<std::pair<std::string, const ModuleBase*>> modules;
  for (auto& [name, module] : readable(*this).named_modules())
    modules.emplace_back(std::move(name), module);
  return modules;
}

std::vector<ModuleBase*> ModuleBase::modules() {
  std::vector<ModuleBase*> all;
  for (auto& [name, module] : named_modules())
    all.push_back(module);
  return all;
}

std::vector<const ModuleBase*> ModuleBase::modules() const {
  std::vector<const ModuleBase*> all;
  for (auto& [name, module] : named_modules())
    all.push_back(module);
  return all;
}

ModuleBase& ModuleBase::get_submodule(std::string_view target) {
  ModuleBase* module = this;
  std::string_view rest = target;
  std::string path;
  while (!target.empty()) {
    const std::size_t dot = rest.find('.');
    const std::string_view item = rest.substr(0, dot);
    ModuleBase* found = nullptr;
    for (auto& [name, child] : module->named_children()) {
      if (name == item) {
        found = child;
        break;
      }
    }
    if (found == nullptr) {
      throw Error(ErrorCode::BadArgument,
                  "fp::nn::Module::get_submodule: " +
                      (path.empty() ? type_name() : module->type_name() + " at \"" + path + "\"") +
                      " has no attribute `" + std::string(item) + "` (looking up \"" +
                      std::string(target) + "\")");
    }
    module = found;
    path += (path.empty() ? "" : ".") + std::string(item);
    if (dot == std::string_view::npos) break;
    rest = rest.substr(dot + 1);
  }
  return *module;
}

const ModuleBase& ModuleBase::get_submodule(std::string_view target) const {
  return readable(*this).get_submodule(target);
}

void ModuleBase::throw_wrong_submodule_type(const ModuleBase& module, std::string_view target,
                                            const char* wanted) {
  throw Error(ErrorCode::BadArgument, "fp::nn::Module::get_submodule: \"" + std::string(target) +
                                          "\" is a " + module.type_name() + ", not a " +
                                          unqualified(wanted));
}

ModuleBase& ModuleBase::to(TensorOptions options) {
  const std::optional<DType> dtype = options.dtype();
  if (dtype && !is_floating_point(*dtype) && !is_complex(*dtype)) {
    throw Error(
        ErrorCode::BadArgument,
        "fp::nn::Module::to: nn.Module.to only accepts floating point or complex dtypes, but got "
        "desired dtype=" +
            torch_dtype(*dtype));
  }
  const detail::Reoptimize reoptimize(*this, "to");
  walk(*this, "", true, [&](ModuleBase&, const std::string&, const Locals& locals) {
    for (const auto& local : locals.tensors) {
      Tensor& tensor = *local.tensor;
      const bool convertible = is_floating_point(tensor.dtype()) || is_complex(tensor.dtype());
      tensor = aten::_to_copy(tensor, convertible ? dtype : std::nullopt, std::nullopt,
                              options.device());
    }
  });
  reoptimize.run();
  return *this;
}

}  // namespace fp::nn
