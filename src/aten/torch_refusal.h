// The one way a route around an op steps aside: where libtorch refuses what
// the route asked of it, the caller takes the op's general route, which then
// reports the failure in libtorch's own words.
#pragma once

#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/base/error.h"

namespace fp::aten::detail {

/// `compute()`, or an empty handle where libtorch refused it
/// (ErrorCode::TorchError). Any other fp::Error (a borrow, a bad argument)
/// is the caller's and propagates.
template <class Compute>
abi::TensorHandle unless_torch_refuses(Compute&& compute) {
  try {
    return compute();
  } catch (const Error& error) {
    if (error.code() != ErrorCode::TorchError) throw;
    return {};
  }
}

}  // namespace fp::aten::detail
