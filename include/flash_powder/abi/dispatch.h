// fp::dispatch: call any ATen op (or registered custom op) by name.
#pragma once

#include <array>
#include <span>
#include <string_view>
#include <utility>

#include "flash_powder/abi/ivalue.h"

namespace fp {

namespace abi {
/// Checks that the loaded torch has op.overload (Schema::availability) and
/// `args` against its schema, fills in omitted trailing arguments from their
/// defaults, boxes everything, calls libtorch and unboxes the results. Throws
/// fp::Error on any mismatch or libtorch failure; never leaks what it boxed.
Results call(std::string_view op, std::string_view overload, std::span<const Arg> args);

struct Schema;
/// The same with the schema already looked up (fp::abi::find_schema), which
/// callers that make the same call often keep in a static.
Results call(const Schema& schema, std::span<const Arg> args);
}  // namespace abi

/// Calls an op through libtorch's dispatcher, like `torch.ops.aten.flip(m, [0])`:
///
///     fp::Tensor y = fp::dispatch<fp::Tensor>("aten::flip", "", m, std::vector<int64_t>{0});
///     auto [values, indices] = fp::dispatch<std::tuple<fp::Tensor, fp::Tensor>>(
///         "aten::max", "dim", m, 1, false);
///
/// Arguments follow the schema's order; trailing ones with a default may be
/// omitted. `std::nullopt` passes None. R may be void, fp::Tensor, a
/// std::tuple, std::vector<fp::Tensor>, or a scalar (int64_t, double, bool).
/// Throws fp::Error with the op's schema when the arguments or R do not match
/// it, and with libtorch's message when the op fails. An op the loaded torch
/// lacks is refused before anything reaches libtorch: "aten::_upsample_lanczos2d_aa
/// needs torch 2.12 or later; this process loaded torch 2.11.0".
///
/// The tensor promises hold here too: an argument the schema writes to
/// (`Tensor(a!)`, e.g. `self` of `aten::fill_`) must be a non-const
/// fp::Tensor or an fp::TensorMutView and obeys the borrow rules. Whether a
/// result that shares memory with an argument (a view op such as
/// `aten::transpose`) stays a view is said by R, as by the typed fp::aten
/// wrappers' return types: fp::TensorView keeps the view (borrowing from
/// that argument's owner, like `fp::aten::transpose_int`), fp::Tensor makes
/// it an independent value (a lazy copy).
///
/// On torch 2.10-2.13, which leak every `str` argument sent through the
/// dispatcher, the ops flash_powder's layers call with one (`aten::gelu`,
/// `aten::div.Tensor_mode`, `aten::pad`, `aten::conv*d.padding`) take the
/// same string-free routes as their typed wrappers; any other op's string
/// still leaks there (docs/architecture.md, "Ops called with a `str` argument").
template <class R = void, class... Args>
R dispatch(std::string_view op, std::string_view overload, Args&&... args) {
  const std::array<abi::Arg, sizeof...(Args)> captured{abi::to_arg(std::forward<Args>(args))...};
  return abi::ReturnTraits<R>::take(abi::call(op, overload, captured));
}

}  // namespace fp
