// fp::abi::TorchLibrary and KernelStack: libtorch's op registry and the
// kernel side of its boxed calling convention (abi/library.h).
//
// The binaries target torch 2.11, so the registry functions added later
// (torch_library_def_with_tags 2.12, torch_library_set_python_module 2.13)
// and the tag codes are looked up in the loaded libtorch at run time.
#include "flash_powder/abi/library.h"

#include <dlfcn.h>

#include <array>
#include <bit>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "boxing.h"
#include "flash_powder/abi/dispatch.h"
#include "torch_c.h"

namespace fp::abi {
namespace {

template <class Function>
Function* lookup(const char* symbol) {
  return reinterpret_cast<Function*>(dlsym(RTLD_DEFAULT, symbol));
}

using DefWithTags = AOTITorchError(TorchLibraryHandle, const char*, const std::int32_t*,
                                   std::int32_t);
using SetPythonModule = AOTITorchError(TorchLibraryHandle, const char*, const char*);

DefWithTags* def_with_tags() {
  static DefWithTags* found = lookup<DefWithTags>("torch_library_def_with_tags");
  return found;
}

SetPythonModule* set_python_module_function() {
  static SetPythonModule* found = lookup<SetPythonModule>("torch_library_set_python_module");
  return found;
}

/// The getter of each OpTag's code (torch_tag_*), in OpTag's order.
constexpr std::array<const char*, 18> tag_getters = {
    "torch_tag_core",
    "torch_tag_cudagraph_unsafe",
    "torch_tag_data_dependent_output",
    "torch_tag_dynamic_output_shape",
    "torch_tag_flexible_layout",
    "torch_tag_generated",
    "torch_tag_inplace_view",
    "torch_tag_maybe_aliasing_or_mutating",
    "torch_tag_needs_contiguous_strides",
    "torch_tag_needs_exact_strides",
    "torch_tag_needs_fixed_stride_order",
    "torch_tag_nondeterministic_bitwise",
    "torch_tag_nondeterministic_seeded",
    "torch_tag_out_variant",
    "torch_tag_pointwise",
    "torch_tag_pt2_compliant_tag",
    "torch_tag_reduction",
    "torch_tag_view_copy",
};

std::int32_t tag_code(OpTag tag) {
  const char* getter = tag_getters.at(static_cast<std::size_t>(tag));
  auto* code = lookup<std::int32_t()>(getter);
  if (code == nullptr) {
    throw Error(ErrorCode::UnsupportedByTorch, std::string("torch ") + torch_version().str() +
                                                   " lacks " + getter +
                                                   "; this tag needs a newer torch");
  }
  return code();
}

/// A copy of `text` that lives as long as the process: libtorch keeps the
/// pointers given to set_python_module (it expects string literals).
const char* interned(const std::string& text) {
  static std::mutex mutex;
  static std::set<std::string> strings;
  const std::lock_guard lock(mutex);
  return strings.insert(text).first->c_str();
}

TorchLibraryHandle handle(void* raw) {
  return static_cast<TorchLibraryHandle>(raw);
}

}  // namespace

bool library_supports_tags() {
  return def_with_tags() != nullptr;
}

bool library_supports_python_module() {
  return set_python_module_function() != nullptr;
}

TorchLibrary::TorchLibrary(Kind kind, const std::string& ns, const std::string& dispatch_key,
                           const char* file, std::uint32_t line) {
  TorchLibraryHandle made = nullptr;
  switch (kind) {
    case Kind::Def:
      check(aoti_torch_library_init_def(ns.c_str(), file, line, &made),
            "defining the op library '" + ns + "'");
      break;
    case Kind::Fragment:
      check(aoti_torch_library_init_fragment(ns.c_str(), file, line, &made),
            "adding to the op library '" + ns + "'");
      break;
    case Kind::Impl:
      check(aoti_torch_library_init_impl(ns.c_str(), dispatch_key.c_str(), file, line, &made),
            "registering kernels of '" + ns + "' for " + dispatch_key);
      break;
  }
  raw_ = made;
}

TorchLibrary::~TorchLibrary() {
  if (raw_ != nullptr) aoti_torch_delete_library_object(handle(raw_));
}

bool TorchLibrary::def(const std::string& schema, std::span<const OpTag> tags) {
  const std::string what = "defining op " + schema;
  auto* with_tags = def_with_tags();
  if (tags.empty() || with_tags == nullptr) {
    check(aoti_torch_library_def(handle(raw_), schema.c_str()), what);
    return tags.empty();
  }
  std::vector<std::int32_t> codes;
  for (OpTag tag : tags)
    codes.push_back(tag_code(tag));
  check(with_tags(handle(raw_), schema.c_str(), codes.data(),
                  static_cast<std::int32_t>(codes.size())),
        what);
  return true;
}

void TorchLibrary::impl(const std::string& name, BoxedKernel kernel) {
  check(torch_library_impl(handle(raw_), name.c_str(), kernel, builtin_schema_abi_version()),
        "registering a kernel for " + name);
}

bool TorchLibrary::set_python_module(const std::string& module, const std::string& context) {
  auto* set = set_python_module_function();
  if (set == nullptr) return false;
  check(set(handle(raw_), interned(module), interned(context)),
        "naming the Python module of an op library");
  return true;
}

// ---------------------------------------------------------------------------

KernelStack::KernelStack(std::uint64_t* stack, std::uint64_t arguments, std::uint64_t returns,
                         const Schema& signature)
    : stack_(stack), signature_(signature), arguments_(arguments) {
  if (arguments != signature.arguments.size() || returns != signature.returns.size()) {
    const std::string counts =
        std::to_string(arguments) + " arguments and " + std::to_string(returns) + " results";
    // The arguments are ours now, but their types are unknown: they cannot
    // be freed safely, so they are left to leak rather than misread.
    arguments_ = 0;
    throw Error(ErrorCode::BadArgument,
                "the op was called with " + counts + ", but its kernel takes " +
                    std::to_string(signature.arguments.size()) + " and returns " +
                    std::to_string(signature.returns.size()) + " (" + signature.text +
                    "); the op's schema and the kernel's C++ signature differ");
  }
}

KernelStack::~KernelStack() {
  for (std::size_t i = 0; i < arguments_; ++i) {
    boxing::free_boxed(signature_.arguments[i].type, std::exchange(stack_[i], 0));
  }
}

Returned KernelStack::take(std::size_t index) {
  const StableIValue value = std::exchange(stack_[index], 0);
  return boxing::unbox(signature_.arguments.at(index).type, value);
}

void KernelStack::put_results(std::span<const Arg> results) {
  std::vector<boxing::Boxed> boxed;
  boxed.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const SchemaType& type = signature_.returns.at(i).type;
    const boxing::CallContext context{signature_, i, nullptr, nullptr, true};
    boxed.emplace_back(type, boxing::box(type, results[i], context));
  }
  // Whatever the arguments still own is freed before the results take their slots.
  for (std::size_t i = 0; i < arguments_; ++i) {
    boxing::free_boxed(signature_.arguments[i].type, std::exchange(stack_[i], 0));
  }
  arguments_ = 0;
  for (std::size_t i = 0; i < boxed.size(); ++i)
    stack_[i] = boxed[i].release();
}

}  // namespace fp::abi
