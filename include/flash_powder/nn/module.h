// fp::nn::Module: the base of every layer and of your own networks, like
// torch.nn.Module. https://pytorch.org/docs/stable/generated/torch.nn.Module.html
//
// A module owns its parameters and buffers as fp::Tensor members and its
// children as members, and says what they are called in one function, visit():
//
//     struct Net : fp::nn::Module {
//       fp::nn::Conv2d conv{3, 8, 3, {.padding = 1}};
//       fp::nn::Linear head{8, 10};
//       void visit(fp::nn::Visitor& v) override { v.child("conv", conv); v.child("head", head); }
//       fp::Tensor forward(fp::TensorView x) const override { ... }
//     };
//
// Everything else (state_dict, load_state_dict, named_parameters, to, ...) is
// built on that one traversal, so modules hold no pointers into themselves
// and stay copyable and movable like any struct. State-dict keys are
// PyTorch's for the same tree ("conv.weight", "head.bias", ...), so a
// PyTorch state dict (e.g. a safetensors file) loads unchanged.
//
// Modules have inference semantics (PyTorch's eval mode). forward() is const
// and changes nothing, so one module may run forward() on several threads at
// once; changing it (load_state_dict, to) needs exclusive access, as for any
// C++ object.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "flash_powder/core/options.h"
#include "flash_powder/core/state_dict.h"
#include "flash_powder/core/tensor.h"

namespace fp::nn {

class ModuleBase;
class Module;

/// How a buffer takes part in state dicts (Python's `register_buffer`).
struct BufferOptions {
  /// Part of the state dict (Python's `persistent=True`).
  bool persistent = true;
  /// A state dict without this key still loads, and the buffer keeps its
  /// value. PyTorch allows this for BatchNorm's num_batches_tracked when the
  /// state dict carries no version metadata (safetensors files, plain dicts).
  bool may_be_missing = false;
};

/// What Module::visit reports its tensors and children to. Undefined tensors
/// (e.g. the bias of a layer made with `.bias = false`) are skipped, as
/// PyTorch skips parameters that are None. Names must be non-empty, unique
/// within the module and free of '.'.
class Visitor {
 public:
  /// Reports a parameter (`register_parameter`): in the state dict and named_parameters().
  void parameter(std::string_view name, Tensor& tensor) {
    on_tensor(name, tensor, TensorKind::Parameter, {});
  }
  /// Reports a buffer (`register_buffer`): in the state dict unless `options` say otherwise.
  void buffer(std::string_view name, Tensor& tensor, const BufferOptions& options = {}) {
    on_tensor(name, tensor, TensorKind::Buffer, options);
  }
  /// Reports a child module (an attribute holding a module in Python).
  void child(std::string_view name, ModuleBase& module) { on_child(name, module); }

 protected:
  Visitor() = default;
  /// For the visitors the library derives.
  Visitor(const Visitor&) = default;
  /// For the visitors the library derives.
  Visitor& operator=(const Visitor&) = default;
  ~Visitor() = default;
  /// What a visitor does with a tensor, called by parameter() and buffer().
  virtual void on_tensor(std::string_view name, Tensor& tensor, TensorKind kind,
                         const BufferOptions& options) = 0;
  /// What a visitor does with a child, called by child().
  virtual void on_child(std::string_view name, ModuleBase& module) = 0;
};

/// Python's `load_state_dict(state_dict, strict=True, assign=False)`.
struct LoadOptions {
  /// Missing and unexpected keys are errors (otherwise they are returned).
  bool strict = true;
  /// The module takes the loaded tensors (their dtype and device) instead of
  /// copying their values into its own.
  bool assign = false;
};

/// The keys load_state_dict did not match (Python's `_IncompatibleKeys`).
struct LoadResult {
  /// Keys the module has but the source lacks.
  std::vector<std::string> missing_keys;
  /// Keys the source has but the module lacks.
  std::vector<std::string> unexpected_keys;
};

namespace detail {
/// The argument type of ModuleBase's placeholder forward, which nothing can call.
struct NoForward {
  explicit NoForward() = default;
};
}  // namespace detail

/// The base of every module: its tree (parameters, buffers, children), state
/// dicts and conversions, whatever its forward() takes and returns. A module
/// whose forward() returns one Tensor from one TensorView derives from
/// fp::nn::Module (below), which containers such as Sequential can call; any
/// other module derives from ModuleBase and declares its forward() with
/// FP_MODULE (nn/define.h), which makes it callable as `module(x)`:
///
///     struct Segmenter : fp::nn::ModuleBase {
///       Backbone backbone;
///       Head head;
///       FP_MODULE(backbone, head)
///       std::map<std::string, fp::Tensor> forward(fp::TensorView x) const;
///     };
///     auto out = model(x);            // out["out"]; errors name the failing child
///
/// (A class cannot declare `X forward(TensorView) const` for another X while it
/// inherits Module's virtual `Tensor forward(TensorView) const`: C++ takes that
/// for an override with an invalid covariant return type.)
class ModuleBase {
 public:
  virtual ~ModuleBase() = default;

  /// Reports parameters, buffers and children to `visitor`, in the order
  /// PyTorch registers them. Modules without any need not override it.
  virtual void visit(Visitor& visitor);

  /// The class name PyTorch would print, e.g. "Conv2d" (by default the C++
  /// class name without namespaces).
  virtual std::string type_name() const;

  /// Views of every parameter and persistent buffer under its dotted key,
  /// in PyTorch's order: a module's parameters, its buffers, then each child's.
  StateDictView state_dict() const;

  /// Loads parameters and persistent buffers from `source`, matching keys
  /// like PyTorch. Missing and unexpected keys (strict mode) and every shape
  /// or dtype mismatch are reported together in one fp::Error worded like
  /// PyTorch's. Values are copied into the existing tensors, converted to
  /// their dtype (floating-point to floating-point etc.; a change of kind such
  /// as integer to floating point is a mismatch), unless `assign` is set.
  /// Nothing is changed unless everything matches.
  LoadResult load_state_dict(const StateDictReader& source, const LoadOptions& options = {});

  /// (dotted name, view) of every parameter, recursively unless `recurse` is false.
  std::vector<std::pair<std::string, TensorView>> named_parameters(bool recurse = true) const;
  /// (dotted name, view) of every buffer, persistent or not, recursively unless `recurse`
  /// is false (Python's `named_buffers()`).
  std::vector<std::pair<std::string, TensorView>> named_buffers(bool recurse = true) const;
  /// Every parameter (Python's `parameters()`).
  std::vector<TensorView> parameters(bool recurse = true) const;
  /// Every buffer (Python's `buffers()`).
  std::vector<TensorView> buffers(bool recurse = true) const;
  /// The direct children with their names (Python's `named_children()`).
  std::vector<std::pair<std::string, ModuleBase*>> named_children();
  /// The direct children with their names, read-only.
  std::vector<std::pair<std::string, const ModuleBase*>> named_children() const;
  /// The direct children (Python's `children()`).
  std::vector<ModuleBase*> children();
  /// The direct children, read-only.
  std::vector<const ModuleBase*> children() const;
  /// This module (named "") and all below it, parents first (Python's
  /// `named_modules()`; a module held twice is listed once, as in Python).
  std::vector<std::pair<std::string, const ModuleBase*>> named_modules() const;
  /// This module and all below it with their dotted names, writable.
  std::vector<std::pair<std::string, ModuleBase*>> named_modules();
  /// This module and all below it, parents first (Python's `modules()`).
  std::vector<const ModuleBase*> modules() const;
  /// This module and all below it, writable.
  std::vector<ModuleBase*> modules();
  /// The module under a dotted path, "" for this one: `get_submodule("features.3")`
  /// (Python's `get_submodule`). Throws fp::Error naming the first missing part.
  ModuleBase& get_submodule(std::string_view target);
  /// The same, read-only.
  const ModuleBase& get_submodule(std::string_view target) const;
  /// The same as its own type M; throws fp::Error if it is another.
  template <class M>
  M& get_submodule(std::string_view target) {
    return checked_cast<M>(get_submodule(target), target);
  }
  /// The same, read-only.
  template <class M>
  const M& get_submodule(std::string_view target) const {
    return checked_cast<const M>(get_submodule(target), target);
  }

  /// Converts every parameter and buffer in place, like Python's `module.to()`:
  /// a dtype applies to floating-point and complex tensors only (it must be
  /// one of those kinds itself), a device to all. Returns *this.
  ModuleBase& to(TensorOptions options);

  /// What FP_MODULE_CALL's using-declaration names in a module derived from
  /// ModuleBase; it cannot be called.
  using fp_forward_base = ModuleBase;
  void forward(detail::NoForward) const = delete;

 protected:
  ModuleBase() = default;
  /// Copies the tree (each module's tensors as lazy copies); for derived modules.
  ModuleBase(const ModuleBase&) = default;
  /// Moves the tree; for derived modules.
  ModuleBase(ModuleBase&&) = default;
  /// Copies the tree (each module's tensors as lazy copies); for derived modules.
  ModuleBase& operator=(const ModuleBase&) = default;
  /// Moves the tree; for derived modules.
  ModuleBase& operator=(ModuleBase&&) = default;

 private:
  template <class M>
  static M& checked_cast(
      std::conditional_t<std::is_const_v<M>, const ModuleBase, ModuleBase>& module,
      std::string_view target) {
    if (auto* typed = dynamic_cast<M*>(&module)) return *typed;
    throw_wrong_submodule_type(module, target, typeid(M).name());
  }
  [[noreturn]] static void throw_wrong_submodule_type(const ModuleBase& module,
                                                      std::string_view target, const char* wanted);
};

/// A module whose forward() takes one TensorView and returns one Tensor, like
/// most of torch.nn's layers; containers (Sequential) call it type-erased.
/// See the top of this file.
class Module : public ModuleBase {
 public:
  /// The module's computation; a new Tensor. Throws fp::Error unless overridden.
  /// A module whose forward takes other arguments (`forward(x, mask)`)
  /// declares that forward instead and FP_MODULE (nn/define.h) makes it callable.
  virtual Tensor forward(TensorView input) const;
  /// Calls forward(), like Python's `module(x)`. An fp::Error raised inside
  /// names where in the model it happened: calling `model(x)`, a failure in
  /// a child reads "encoder.layer.3.intermediate.dense: aten::linear: ...".
  Tensor operator()(TensorView input) const;
  /// The same for a Tensor, a temporary too (`head(h.flatten(1))`): it lives
  /// until the whole expression is done, which outlasts the call.
  Tensor operator()(const Tensor& input) const { return (*this)(TensorView(input)); }

  /// For containers: applies the module to `x`, an intermediate result the
  /// caller owns and needs no more, by overwriting it, as PyTorch's
  /// `inplace=True` layers do, and returns true; where it cannot, returns
  /// false and leaves `x` alone. The values are forward()'s, bit for bit.
  /// nn::Sequential uses it; the default cannot.
  virtual bool forward_in_place(Tensor& x) const;

  /// Converts every parameter and buffer in place (ModuleBase::to); returns *this.
  Module& to(TensorOptions options) {
    ModuleBase::to(options);
    return *this;
  }

  /// What FP_MODULE_CALL's using-declaration names in a module derived from Module.
  using fp_forward_base = Module;

 protected:
  Module() = default;
  /// Copies the module (each tensor as a lazy copy); for derived modules.
  Module(const Module&) = default;
  /// Moves the module; for derived modules.
  Module(Module&&) = default;
  /// Copies the module (each tensor as a lazy copy); for derived modules.
  Module& operator=(const Module&) = default;
  /// Moves the module; for derived modules.
  Module& operator=(Module&&) = default;
};

namespace detail {

/// The bookkeeping of one call of a module's forward (RAII, one per call on
/// the calling thread's stack of calls), so that an error raised inside can
/// name the module's place in the model that was called. Used by
/// Module::operator() and FP_MODULE's operator().
class ModuleCall {
 public:
  explicit ModuleCall(const ModuleBase& module);
  ~ModuleCall();
  ModuleCall(const ModuleCall&) = delete;
  ModuleCall& operator=(const ModuleCall&) = delete;

  /// Call from a catch block of fp::Error: rethrows the error in flight, or,
  /// in the outermost call, an fp::Error with the failing module's dotted
  /// path in front of the message.
  [[noreturn]] void rethrow(const Error& error) const;
};

/// `body()` as a call of `module` (see ModuleCall).
template <class Body>
decltype(auto) call_module(const ModuleBase& module, Body&& body) {
  const ModuleCall call(module);
  try {
    return body();
  } catch (const Error& error) {
    call.rethrow(error);
  }
}

}  // namespace detail

}  // namespace fp::nn
