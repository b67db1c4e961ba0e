#include "flash_powder/core/scalar.h"

#include <string>

#include "flash_powder/core/conversion.h"

namespace fp {

void Scalar::check_fits_int64(std::uint64_t value) {
  if (value > static_cast<std::uint64_t>(INT64_MAX)) {
    throw Error(ErrorCode::BadArgument,
                "fp::Scalar: " + std::to_string(value) +
                    " does not fit int64, the widest integer a number can be for an op");
  }
}

Tensor Scalar::as_tensor_beside(DType other) const {
  const bool floating_other = is_floating_point(other) || is_complex(other);
  switch (kind_) {
    case Kind::Bool:
      return tensor(to_bool());
    case Kind::Integer:
      return tensor(integer_);
    case Kind::Floating:
      return floating_other ? tensor(real_) : tensor(static_cast<float>(real_));
    case Kind::Complex:
      return floating_other ? tensor(to_complex()) : tensor(std::complex<float>(to_complex()));
  }
  return {};
}

Tensor Scalar::as_tensor() const {
  return as_tensor_beside(DType::Bool);
}

}  // namespace fp
