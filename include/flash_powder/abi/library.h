// The stable-ABI side of custom op libraries: libtorch's op registry
// (`torch::Library` behind `aoti_torch_library_*` / `torch_library_*`) and the
// boxed calling convention a registered kernel follows. The typed,
// user-facing registration (fp::library) is built on this.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "flash_powder/abi/ivalue.h"
#include "flash_powder/abi/schema.h"

namespace fp::abi {

/// libtorch's boxed kernel: reads `arguments` StableIValues from `stack`,
/// owns them, and leaves `returns` StableIValues there (libtorch owns those).
using BoxedKernel = void (*)(std::uint64_t* stack, std::uint64_t arguments, std::uint64_t returns);

/// `torch.Tag`s an op definition may carry (torch 2.12 and later).
enum class OpTag : std::uint8_t {
  Core,
  CudagraphUnsafe,
  DataDependentOutput,
  DynamicOutputShape,
  FlexibleLayout,
  Generated,
  InplaceView,
  MaybeAliasingOrMutating,
  NeedsContiguousStrides,
  NeedsExactStrides,
  NeedsFixedStrideOrder,
  NondeterministicBitwise,
  NondeterministicSeeded,
  OutVariant,
  Pointwise,
  Pt2Compliant,
  Reduction,
  ViewCopy,
};

/// One `torch::Library` in libtorch's registry, like the object behind
/// `TORCH_LIBRARY(ns, m)`. What it registered is unregistered when it is
/// destroyed, so it lives as long as its ops are meant to exist.
class TorchLibrary {
 public:
  /// Which of the three libtorch's macros the library stands for.
  enum class Kind : std::uint8_t {
    Def,       ///< TORCH_LIBRARY: the one place that defines ops of `ns`
    Fragment,  ///< TORCH_LIBRARY_FRAGMENT: defines more ops of `ns`
    Impl,      ///< TORCH_LIBRARY_IMPL: kernels of `ns` for one dispatch key
  };

  /// `dispatch_key` ("CPU", "CUDA", "Meta", "CompositeExplicitAutograd", ...)
  /// only for Kind::Impl. Throws fp::Error with libtorch's message on failure
  /// (e.g. a second Def library for the same namespace).
  TorchLibrary(Kind kind, const std::string& ns, const std::string& dispatch_key, const char* file,
               std::uint32_t line);
  TorchLibrary(const TorchLibrary&) = delete;
  TorchLibrary& operator=(const TorchLibrary&) = delete;
  ~TorchLibrary();

  /// Defines an op, `m.def(schema, tags)`. Tags need torch 2.12; on an older
  /// torch the op is defined without them and this returns false.
  bool def(const std::string& schema, std::span<const OpTag> tags);
  /// Registers a boxed kernel for op `name`, `m.impl(name, kernel)`.
  void impl(const std::string& name, BoxedKernel kernel);
  /// `m.set_python_module(module, context)`: names the Python module that
  /// registers the ops' fake kernels, so torch can say which to import.
  /// Needs torch 2.13; on an older torch nothing is set and this returns false.
  bool set_python_module(const std::string& module, const std::string& context);

 private:
  void* raw_ = nullptr;  // TorchLibraryHandle
};

/// The loaded torch can tag op definitions (torch_library_def_with_tags, 2.12).
bool library_supports_tags();
/// The loaded torch can name an op library's Python module (2.13).
bool library_supports_python_module();

/// The kernel side of one boxed call. Owns the arguments libtorch handed
/// over until each is taken (anything untaken is freed, also when the
/// kernel throws), and boxes the kernel's results into the stack.
class KernelStack {
 public:
  /// `signature`: the kernel's own schema (its C++ parameter and result
  /// types), which must outlive this. Throws fp::Error when libtorch's
  /// argument or result count differs from it.
  KernelStack(std::uint64_t* stack, std::uint64_t arguments, std::uint64_t returns,
              const Schema& signature);
  KernelStack(const KernelStack&) = delete;
  KernelStack& operator=(const KernelStack&) = delete;
  ~KernelStack();

  /// Argument `index`, unboxed as the signature says; each once.
  Returned take(std::size_t index);
  /// Boxes all results first (freeing them all if one fails), then writes
  /// them to the stack, where libtorch takes them.
  void put_results(std::span<const Arg> results);

 private:
  std::uint64_t* stack_;
  const Schema& signature_;
  std::size_t arguments_;
};

}  // namespace fp::abi
