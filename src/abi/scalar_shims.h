// The backend C shims of the ATen overloads whose Scalar arguments the
// dispatcher route cannot carry; they take each Scalar as a double. Every
// backend's shim of an op has the same signature (`aoti_torch_<backend>_<op>`,
// torchgen/aoti/fallback_ops.py), so one table serves the CPU (linked) and
// CUDA (looked up in the loaded libtorch_cuda, which a CPU-only torch lacks).
#pragma once

#include <cstdint>

#include "flash_powder/abi/error.h"
#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/base/device.h"

namespace fp::abi {

struct ScalarShims {
  Status (*add_Tensor)(RawTensor self, RawTensor other, double alpha, RawTensor* result);
  Status (*add_Scalar)(RawTensor self, double other, double alpha, RawTensor* result);
  Status (*mul_Scalar)(RawTensor self, double other, RawTensor* result);
  Status (*pow_Tensor_Scalar)(RawTensor self, double exponent, RawTensor* result);
  Status (*pow_Scalar)(double self, RawTensor exponent, RawTensor* result);
  Status (*addmv)(RawTensor self, RawTensor mat, RawTensor vec, double beta, double alpha,
                  RawTensor* result);
  Status (*addbmm)(RawTensor self, RawTensor batch1, RawTensor batch2, double beta, double alpha,
                   RawTensor* result);
  Status (*addmm_activation)(RawTensor self, RawTensor mat1, RawTensor mat2, double beta,
                             double alpha, std::int32_t use_gelu, RawTensor* result);
  Status (*histc)(RawTensor self, std::int64_t bins, double min, double max, RawTensor* result);
  Status (*fill_Scalar_)(RawTensor self, double value);
  Status (*addmm_out)(RawTensor out, RawTensor self, RawTensor mat1, RawTensor mat2, double beta,
                      double alpha);
  Status (*baddbmm_out)(RawTensor out, RawTensor self, RawTensor batch1, RawTensor batch2,
                        double beta, double alpha);
  Status (*scatter_value_out)(RawTensor out, RawTensor self, std::int64_t dim, RawTensor index,
                              double value);
};

/// The shims of the backend of `type`: the CPU's, or CUDA's where the loaded
/// torch has them; null for any other device type.
const ScalarShims* scalar_shims(DeviceType type) noexcept;

/// The one device type of `tensors` when each is a defined, strided tensor
/// of a dtype flash_powder knows, on a device type with shims; otherwise
/// throws fp::Error (ErrorCode::Unsupported) naming `what` and the tensor.
const ScalarShims& scalar_shims_for(const char* what, std::initializer_list<RawTensor> tensors);

/// The result of a shim call, checked: throws fp::Error("<what>: <libtorch's
/// message>"). `result` by reference: the call, an argument beside it, fills it.
inline TensorHandle checked_result(Status status, const RawTensor& result, const char* what) {
  check(status, what);
  return TensorHandle(result);
}

}  // namespace fp::abi
