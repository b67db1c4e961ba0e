// Custom PyTorch ops written with flash_powder: define ops with a schema and
// bind C++ functions to them, per dispatch key, from a shared library that
// `torch.ops.load_library` loads (no Python API, no libtorch C++ symbol: one
// build runs on every torch from 2.11 on) or that a C++ program links and
// calls through fp::dispatch. Like PyTorch's TORCH_LIBRARY
// (https://docs.pytorch.org/docs/stable/library.html):
//
//     fp::Tensor scale(fp::TensorView x, double factor) { return x * factor; }
//
//     FP_LIBRARY(myops, m) {
//       m.def("scale(Tensor x, float factor) -> Tensor");
//     }
//     FP_LIBRARY_IMPL(myops, CPU, m) {
//       m.impl<scale>("scale");
//     }
//
// The kernel's parameters and result map to the schema's types as listed in
// library/kernel.h; a mismatch is an fp::Error when the kernel is bound. An
// exception a kernel throws reaches Python as a RuntimeError carrying its
// message (and a C++ caller of fp::dispatch as an fp::Error).
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/abi/library.h"
#include "flash_powder/library/kernel.h"

namespace fp::library {

/// Where a kernel runs, as `torch.library` names dispatch keys.
enum class DispatchKey : std::uint8_t {
  CPU,
  CUDA,
  /// Shape-only tensors (`device="meta"`); torch.compile uses fake kernels
  /// registered from Python (`torch.library.register_fake`) instead.
  Meta,
  /// One kernel for every device, below autograd (like an op written with ops).
  CompositeExplicitAutograd,
  /// One kernel for every device that autograd differentiates through.
  CompositeImplicitAutograd,
};

/// "CPU", "CompositeExplicitAutograd", ...
std::string_view name(DispatchKey key);

/// `torch.Tag`s of an op definition.
using Tag = abi::OpTag;

/// One op library in libtorch's registry (the object behind TORCH_LIBRARY,
/// TORCH_LIBRARY_FRAGMENT or TORCH_LIBRARY_IMPL). Its ops and kernels stay
/// registered while it lives; usually it is made by FP_LIBRARY* and lives as
/// long as the shared library. Move-only.
class Library {
 public:
  /// TORCH_LIBRARY(ns, m): the one library that defines the ops of `ns`.
  static Library define(std::string ns, const char* file = "", std::uint32_t line = 0);
  /// TORCH_LIBRARY_FRAGMENT(ns, m): defines more ops of `ns`.
  static Library fragment(std::string ns, const char* file = "", std::uint32_t line = 0);
  /// TORCH_LIBRARY_IMPL(ns, key, m): kernels of `ns`'s ops for one dispatch key.
  static Library implement(std::string ns, DispatchKey key, const char* file = "",
                           std::uint32_t line = 0);

  /// Takes the registrations over; `other` holds none after.
  Library(Library&&) noexcept;
  /// Unregisters this library's ops and kernels and takes `other`'s.
  Library& operator=(Library&&) noexcept;
  ~Library();

  /// Defines an op, `m.def("scale(Tensor x, float factor) -> Tensor")`: the
  /// schema in TorchScript's schema language, without the namespace. It also
  /// becomes known to fp::dispatch. Tags need torch 2.12; an older torch
  /// defines the op without them (tags_dropped() says so).
  /// Throws fp::Error naming the problem when the schema does not parse,
  /// cannot cross the stable ABI (a Scalar, ...) or the library is an IMPL one.
  Library& def(std::string_view schema, std::initializer_list<Tag> tags = {});

  /// Binds `Kernel` to op `name` ("scale" or "scale.overload") for this
  /// library's dispatch key (a DEF or FRAGMENT library: every key). Checks
  /// `Kernel`'s C++ signature against the op's schema when the op is known
  /// (defined here or by an FP_LIBRARY already loaded): a parameter of the
  /// wrong type, a missing one, a written tensor (`Tensor(a!)`) not taken as
  /// fp::TensorMutView is an fp::Error. An op defined elsewhere (another file
  /// whose FP_LIBRARY runs later, Python) is checked at the first call.
  template <auto Kernel>
  Library& impl(std::string_view name) {
    bind(name, detail::kernel_schema<Kernel>(), detail::kernel_state<Kernel>(),
         &detail::boxed_kernel<Kernel>);
    return *this;
  }

  /// `m.set_python_module(module)`: the Python module that registers this
  /// library's fake kernels, so that torch.compile's message names it.
  /// Needs torch 2.13; returns false on an older torch, where nothing is set.
  bool set_python_module(const std::string& module, const std::string& context = "");

  /// True when def() was given tags that the loaded torch (before 2.12) cannot take.
  bool tags_dropped() const;

  /// The namespace of its ops, e.g. "myops".
  const std::string& ns() const;

 private:
  struct State;
  explicit Library(std::unique_ptr<State> state);
  void bind(std::string_view name, const abi::Schema& kernel, detail::KernelState& state,
            abi::BoxedKernel boxed);
  std::unique_ptr<State> state_;
};

/// The failures of FP_LIBRARY blocks run when the shared library was loaded,
/// as "<file>:<line>: <message>" (each is also printed to stderr then: a
/// static initialiser has nobody to throw to).
std::vector<std::string> registration_errors();

namespace detail {
/// Keeps an FP_LIBRARY block's Library for the life of the shared library and
/// runs the block, catching what it throws (registration_errors()).
class StaticLibrary {
 public:
  using Block = void (*)(Library&);
  StaticLibrary(Library (*make)(const char* file, std::uint32_t line), Block block,
                const char* file, std::uint32_t line) noexcept;

 private:
  std::unique_ptr<Library> library_;
};
}  // namespace detail

}  // namespace fp::library

#define FP_LIBRARY_CONCAT_INNER(a, b) a##b
#define FP_LIBRARY_CONCAT(a, b) FP_LIBRARY_CONCAT_INNER(a, b)

/// Defines the ops of namespace `ns` (TORCH_LIBRARY): `FP_LIBRARY(myops, m) { m.def(...); }`.
#define FP_LIBRARY(ns, m)                                                    \
  FP_LIBRARY_BLOCK(ns, m, FP_LIBRARY_CONCAT(fp_library_def_, __COUNTER__),   \
                   [](const char* file, std::uint32_t line) {                \
                     return ::fp::library::Library::define(#ns, file, line); \
                   })

/// Defines more ops of `ns` (TORCH_LIBRARY_FRAGMENT).
#define FP_LIBRARY_FRAGMENT(ns, m)                                              \
  FP_LIBRARY_BLOCK(ns, m, FP_LIBRARY_CONCAT(fp_library_fragment_, __COUNTER__), \
                   [](const char* file, std::uint32_t line) {                   \
                     return ::fp::library::Library::fragment(#ns, file, line);  \
                   })

/// Binds kernels of `ns`'s ops for dispatch key `key` (CPU, CUDA, Meta,
/// CompositeExplicitAutograd, CompositeImplicitAutograd) (TORCH_LIBRARY_IMPL):
/// `FP_LIBRARY_IMPL(myops, CPU, m) { m.impl<scale>("scale"); }`.
#define FP_LIBRARY_IMPL(ns, key, m)                                         \
  FP_LIBRARY_BLOCK(ns, m, FP_LIBRARY_CONCAT(fp_library_impl_, __COUNTER__), \
                   [](const char* file, std::uint32_t line) {               \
                     return ::fp::library::Library::implement(              \
                         #ns, ::fp::library::DispatchKey::key, file, line); \
                   })

// `m` names the block's parameter, which cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define FP_LIBRARY_BLOCK(ns, m, uid, make)                                           \
  static void FP_LIBRARY_CONCAT(uid, _block)(::fp::library::Library&);               \
  static const ::fp::library::detail::StaticLibrary FP_LIBRARY_CONCAT(uid, _static)( \
      make, &FP_LIBRARY_CONCAT(uid, _block), __FILE__, __LINE__);                    \
  static void FP_LIBRARY_CONCAT(uid, _block)(::fp::library::Library & m)
// NOLINTEND(bugprone-macro-parentheses)
