#include "refusals.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <string_view>

#include "flash_powder/abi/runtime.h"
#include "flash_powder/base/error.h"
#include "messages.h"
#include "shared_object.h"

namespace fp::aoti::detail {
namespace {

// The stable ABI cannot create a proxy executor, so a model that calls this
// would pass a null executor and crash on its first fallback op.
constexpr const char* kProxyCall = "aoti_torch_proxy_executor_call_function";

std::string joined(const std::vector<std::string>& names, std::size_t limit = 12) {
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < limit; ++i)
    text += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > limit) text += ", ... (" + std::to_string(names.size()) + " in all)";
  return text;
}

void refuse_device(const PackageContents& contents, Device device, const std::string& source) {
  const auto key = contents.metadata.find("AOTI_DEVICE_KEY");
  if (key == contents.metadata.end()) return;  // older packages: the container checks
  const std::string wanted(name(device.type));
  if (key->second != wanted)
    throw Error(ErrorCode::Unsupported,
                message_prefix(source) + "the package was compiled for device " +
                    in_quotes(key->second) + " but was opened for " + device.str() +
                    "; open it with Options{.device = ...} of that type, or re-export it for " +
                    wanted);
  if (device.is_cuda() && !cuda_is_available())
    throw Error(ErrorCode::Unsupported,
                message_prefix(source) +
                    "the package runs on CUDA, but the loaded torch has no CUDA device");
}

void refuse_isa(const PackageContents& contents, const std::string& source) {
  const auto isa = contents.metadata.find("AOTI_CPU_ISA");
  if (isa == contents.metadata.end() || cpu_supports(isa->second)) return;
  throw Error(ErrorCode::Unsupported,
              message_prefix(source) + "the package was compiled for CPU instruction set " +
                  in_quotes(isa->second) +
                  ", which this CPU lacks (running it would crash with an illegal instruction); "
                  "re-export it on a machine like this one");
}

void refuse_proxy_executor(const PackageContents& contents, const std::string& source) {
  const bool imports_proxy =
      std::ranges::find(contents.imports, kProxyCall) != contents.imports.end();
  if (!imports_proxy && contents.proxy_ops.empty()) return;
  const std::string ops =
      contents.proxy_ops.empty() ? std::string("(not listed)") : joined(contents.proxy_ops);
  throw Error(ErrorCode::Unsupported,
              message_prefix(source) + "the model needs PyTorch's proxy executor for ops " +
                  "without a C shim: " + ops +
                  ". The stable C ABI cannot create one; re-export without these ops "
                  "(or register them as custom ops with a C shim)");
}

void refuse_missing_symbols(const PackageContents& contents, const std::string& source) {
  std::vector<std::string> missing;
  for (const auto& symbol : contents.imports) {
    const bool from_torch = symbol.starts_with("aoti_") || symbol.starts_with("torch_");
    if (from_torch && !process_defines(symbol)) missing.push_back(symbol);
  }
  if (missing.empty()) return;
  throw Error(ErrorCode::UnsupportedByTorch,
              message_prefix(source) + "the model needs " + std::to_string(missing.size()) +
                  " C function(s) the loaded torch " + torch_version().str() + " lacks: " +
                  joined(missing) + "; run it with the torch that exported it or a newer one");
}

// The model would load its GPU kernels from files at run time; flash_powder
// leaves no files behind, so the kernels must be embedded in the library.
void refuse_kernel_files(const PackageContents& contents, const std::string& source) {
  if (contents.kernel_files.empty()) return;
  throw Error(ErrorCode::Unsupported,
              message_prefix(source) + "the model loads " +
                  std::to_string(contents.kernel_files.size()) +
                  " GPU kernel file(s) at run time (e.g. " + in_quotes(contents.kernel_files[0]) +
                  "); re-export with aot_inductor.embed_kernel_binary=True (tools/export_aoti.py "
                  "does) so they are inside the library");
}

}  // namespace

namespace {

#if defined(__x86_64__)
// CPUID leaf 7 (sub-leaf 0) bits that __builtin_cpu_supports cannot name in
// every compiler: ECX[11] AVX512_VNNI; EDX[22] AMX-BF16, EDX[24] AMX-TILE,
// EDX[25] AMX-INT8.
bool cpuid_leaf7_has(unsigned ecx_bits, unsigned edx_bits) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ecx & ecx_bits) == ecx_bits && (edx & edx_bits) == edx_bits;
}

bool avx512_supported() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}
#endif

// One word of Inductor's instruction-set name (torch/_inductor/cpu_vec_isa.py,
// upper-cased): "AVX2", "AVX512", "AVX512_VNNI", "AMX_TILE", "NEON", ...
bool cpu_supports_feature(std::string_view feature) {
#if defined(__x86_64__)
  if (feature == "AVX2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (feature == "AVX512") return avx512_supported();
  if (feature == "AVX512_VNNI") return avx512_supported() && cpuid_leaf7_has(1u << 11, 0);
  // Inductor compiles AMX kernels with -mamx-tile -mamx-bf16 -mamx-int8.
  if (feature == "AMX_TILE")
    return avx512_supported() && cpuid_leaf7_has(0, (1u << 22) | (1u << 24) | (1u << 25));
  return false;
#elif defined(__aarch64__)
  return feature == "NEON";
#else
  (void)feature;
  return false;
#endif
}

}  // namespace

bool cpu_supports(const std::string& isa) {
  if (isa.empty() || isa == "INVALID_VEC_ISA") return true;
  // A richer instruction set is named by its words, e.g. "AVX512 AVX512_VNNI AMX_TILE".
  std::string_view rest = isa;
  while (!rest.empty()) {
    const auto space = rest.find(' ');
    const std::string_view feature = rest.substr(0, space);
    if (!feature.empty() && !cpu_supports_feature(feature)) return false;
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  return true;
}

void refuse_unrunnable(const PackageContents& contents, Device device, const std::string& source) {
  refuse_device(contents, device, source);
  refuse_isa(contents, source);  // CUDA models have CPU code too (-march=native)
  refuse_kernel_files(contents, source);
  refuse_proxy_executor(contents, source);
  refuse_missing_symbols(contents, source);
}

}  // namespace fp::aoti::detail
