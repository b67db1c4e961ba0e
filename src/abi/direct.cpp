// The routes around libtorch's dispatcher (abi/direct.h): which tensors may
// take them, and the C shims they call.
#include "flash_powder/abi/direct.h"

#include <array>
#include <cstdlib>
#include <string_view>

#include "flash_powder/abi/runtime.h"
#include "torch_c.h"

namespace fp::abi {
namespace {

bool forced_by_environment() {
  const char* value = std::getenv("FP_FORCE_DISPATCHER");
  return value != nullptr && std::string_view(value) != "" && std::string_view(value) != "0";
}

/// Read once: the environment of a running process is not a switch.
const bool environment_forces_dispatcher = forced_by_environment();

thread_local int forcing_scopes = 0;

/// The codes of the loaded libtorch, read once.
struct Codes {
  std::int32_t strided = aoti_torch_layout_strided();
  std::int32_t cpu = aoti_torch_device_type_cpu();
  /// Indexed by dtype code: a dtype flash_powder knows (not a quantized one).
  std::array<bool, 64> known_dtype{};

  Codes() {
    for (DType dtype : all_dtypes) {
      const std::int32_t code = to_code(dtype);
      if (code >= 0 && code < static_cast<std::int32_t>(known_dtype.size())) {
        known_dtype[static_cast<std::size_t>(code)] = true;
      }
    }
  }
};

const Codes& codes() {
  static const Codes read;
  return read;
}

bool known_dtype(RawTensor tensor) noexcept {
  std::int32_t code = -1;
  if (aoti_torch_get_dtype(tensor, &code) != AOTI_TORCH_SUCCESS) return false;
  const auto& known = codes().known_dtype;
  return code >= 0 && code < static_cast<std::int32_t>(known.size()) &&
         known[static_cast<std::size_t>(code)];
}

bool strided_known(RawTensor tensor) noexcept {
  if (tensor == nullptr) return false;
  bool defined = false;
  if (aoti_torch_is_defined(tensor, &defined) != AOTI_TORCH_SUCCESS || !defined) return false;
  std::int32_t layout = -1;
  if (aoti_torch_get_layout(tensor, &layout) != AOTI_TORCH_SUCCESS) return false;
  return layout == codes().strided && known_dtype(tensor);
}

bool plain_cpu(RawTensor tensor) noexcept {
  if (!strided_known(tensor)) return false;
  std::int32_t type = -1;
  return aoti_torch_get_device_type(tensor, &type) == AOTI_TORCH_SUCCESS && type == codes().cpu;
}

}  // namespace

bool direct_routes_enabled() noexcept {
  return forcing_scopes == 0 && !environment_forces_dispatcher;
}

ForceDispatcher::ForceDispatcher() noexcept {
  ++forcing_scopes;
}

ForceDispatcher::~ForceDispatcher() {
  --forcing_scopes;
}

bool viewable(RawTensor tensor) noexcept {
  return strided_known(tensor);
}

bool all_plain_cpu(std::initializer_list<RawTensor> tensors) noexcept {
  return all_plain_cpu(std::span<const RawTensor>(tensors.begin(), tensors.size()));
}

bool all_plain_cpu(std::span<const RawTensor> tensors) noexcept {
  for (RawTensor tensor : tensors) {
    if (!plain_cpu(tensor)) return false;
  }
  return true;
}

TensorHandle reinterpret(RawTensor source, std::span<const std::int64_t> sizes,
                         std::span<const std::int64_t> strides, std::int64_t offset_increment) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch__reinterpret_tensor(source, static_cast<std::int64_t>(sizes.size()),
                                       sizes.data(), strides.data(), offset_increment, &result),
        "aoti_torch__reinterpret_tensor");
  return TensorHandle(result);
}

namespace cpu {

TensorHandle mul_Tensor(RawTensor self, RawTensor other, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_mul_Tensor(self, other, &result), what);
  return TensorHandle(result);
}

TensorHandle add_Tensor(RawTensor self, RawTensor other, double alpha, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_add_Tensor(self, other, alpha, &result), what);
  return TensorHandle(result);
}

TensorHandle abs(RawTensor self, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_abs(self, &result), what);
  return TensorHandle(result);
}

TensorHandle cat(std::span<const RawTensor> tensors, std::int64_t dim, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_cat(tensors.data(), static_cast<std::int64_t>(tensors.size()), dim, &result),
        what);
  return TensorHandle(result);
}

TensorHandle add_Scalar(RawTensor self, double other, double alpha, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_add_Scalar(self, other, alpha, &result), what);
  return TensorHandle(result);
}

TensorHandle mul_Scalar(RawTensor self, double other, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_mul_Scalar(self, other, &result), what);
  return TensorHandle(result);
}

TensorHandle pow_Tensor_Scalar(RawTensor self, double exponent, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_pow_Tensor_Scalar(self, exponent, &result), what);
  return TensorHandle(result);
}

TensorHandle pow_Scalar(double self, RawTensor exponent, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_pow_Scalar(self, exponent, &result), what);
  return TensorHandle(result);
}

TensorHandle addmv(RawTensor self, RawTensor mat, RawTensor vec, double beta, double alpha,
                   std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_addmv(self, mat, vec, beta, alpha, &result), what);
  return TensorHandle(result);
}

TensorHandle addbmm(RawTensor self, RawTensor batch1, RawTensor batch2, double beta, double alpha,
                    std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_addbmm(self, batch1, batch2, beta, alpha, &result), what);
  return TensorHandle(result);
}

TensorHandle addmm_activation(RawTensor self, RawTensor mat1, RawTensor mat2, double beta,
                              double alpha, bool use_gelu, std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu__addmm_activation(self, mat1, mat2, beta, alpha, use_gelu ? 1 : 0, &result),
        what);
  return TensorHandle(result);
}

TensorHandle histc(RawTensor self, std::int64_t bins, double min, double max,
                   std::string_view what) {
  AtenTensorHandle result = nullptr;
  check(aoti_torch_cpu_histc(self, bins, min, max, &result), what);
  return TensorHandle(result);
}

void fill_(RawTensor self, double value, std::string_view what) {
  check(aoti_torch_cpu_fill__Scalar(self, value), what);
}

void addmm_out(RawTensor out, RawTensor self, RawTensor mat1, RawTensor mat2, double beta,
               double alpha, std::string_view what) {
  check(aoti_torch_cpu_addmm_out(out, self, mat1, mat2, beta, alpha), what);
}

void baddbmm_out(RawTensor out, RawTensor self, RawTensor batch1, RawTensor batch2, double beta,
                 double alpha, std::string_view what) {
  check(aoti_torch_cpu_baddbmm_out(out, self, batch1, batch2, beta, alpha), what);
}

void scatter_value_out(RawTensor out, RawTensor self, std::int64_t dim, RawTensor index,
                       double value, std::string_view what) {
  check(aoti_torch_cpu_scatter_value_out(out, self, dim, index, value), what);
}

}  // namespace cpu
}  // namespace fp::abi
