// Views computed by flash_powder and CPU kernels called without the
// dispatcher; see direct_routes.h for when each applies.
#include "direct_routes.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "abi/direct.h"
#include "aten/torch_refusal.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/arguments.h"

namespace fp::aten::detail {
namespace {

/// Sizes and strides of a view, on the stack for the ranks tensors have.
class Geometry {
 public:
  static constexpr std::size_t max_rank = 16;

  /// The geometry of `tensor`, or nothing when it is not viewable here.
  static std::optional<Geometry> of(abi::RawTensor tensor) {
    if (!abi::direct_routes_enabled() || !abi::viewable(tensor)) return std::nullopt;
    const auto sizes = abi::sizes(tensor);
    if (sizes.size() >= max_rank) return std::nullopt;
    const auto strides = abi::strides(tensor);
    Geometry geometry;
    geometry.rank_ = sizes.size();
    std::copy(sizes.begin(), sizes.end(), geometry.sizes_.begin());
    std::copy(strides.begin(), strides.end(), geometry.strides_.begin());
    return geometry;
  }

  std::int64_t rank() const { return static_cast<std::int64_t>(rank_); }
  std::int64_t& size(std::int64_t dim) { return sizes_[static_cast<std::size_t>(dim)]; }
  std::int64_t& stride(std::int64_t dim) { return strides_[static_cast<std::size_t>(dim)]; }

  void erase(std::int64_t dim) {
    const auto at = static_cast<std::size_t>(dim);
    std::copy(sizes_.begin() + at + 1, sizes_.begin() + rank_, sizes_.begin() + at);
    std::copy(strides_.begin() + at + 1, strides_.begin() + rank_, strides_.begin() + at);
    --rank_;
  }

  void insert(std::int64_t dim, std::int64_t size, std::int64_t stride) {
    const auto at = static_cast<std::size_t>(dim);
    std::copy_backward(sizes_.begin() + at, sizes_.begin() + rank_, sizes_.begin() + rank_ + 1);
    std::copy_backward(strides_.begin() + at, strides_.begin() + rank_,
                       strides_.begin() + rank_ + 1);
    sizes_[at] = size;
    strides_[at] = stride;
    ++rank_;
  }

  /// The view of `source` with this geometry, `offset` elements further on.
  abi::TensorHandle view_of(abi::RawTensor source, std::int64_t offset = 0) const {
    return abi::reinterpret(source, std::span(sizes_.data(), rank_),
                            std::span(strides_.data(), rank_), offset);
  }

 private:
  std::array<std::int64_t, max_rank> sizes_{};
  std::array<std::int64_t, max_rank> strides_{};
  std::size_t rank_ = 0;
};

/// PyTorch's maybe_wrap_dim (a 0-dim tensor counts as 1-dim): false when
/// `dim` is out of range, which the dispatcher route then reports.
bool wrap_dim(std::int64_t& dim, std::int64_t rank) {
  if (rank <= 0) rank = 1;
  if (dim < -rank || dim >= rank) return false;
  if (dim < 0) dim += rank;
  return true;
}

abi::TensorHandle transposed(const TensorArg& self, std::int64_t dim0, std::int64_t dim1) {
  auto geometry = Geometry::of(self.raw());
  if (!geometry || !wrap_dim(dim0, geometry->rank()) || !wrap_dim(dim1, geometry->rank())) {
    return {};
  }
  if (dim0 != dim1) {
    std::swap(geometry->size(dim0), geometry->size(dim1));
    std::swap(geometry->stride(dim0), geometry->stride(dim1));
  }
  return geometry->view_of(self.raw());
}

}  // namespace

abi::TensorHandle direct_transpose(const TensorArg& self, std::int64_t dim0, std::int64_t dim1) {
  return transposed(self, dim0, dim1);
}

abi::TensorHandle direct_t(const TensorArg& self) {
  if (!abi::direct_routes_enabled() || !abi::viewable(self.raw())) return {};
  const std::int64_t rank = abi::dim(self.raw());
  if (rank > 2) return {};  // "t() expects a tensor with <= 2 dimensions"
  return transposed(self, 0, rank < 2 ? 0 : 1);
}

abi::TensorHandle direct_select(const TensorArg& self, std::int64_t dim, std::int64_t index) {
  auto geometry = Geometry::of(self.raw());
  if (!geometry || geometry->rank() == 0 || !wrap_dim(dim, geometry->rank())) return {};
  const std::int64_t size = geometry->size(dim);
  if (index < -size || index >= size) return {};
  if (index < 0) index += size;
  const std::int64_t offset = index * geometry->stride(dim);
  geometry->erase(dim);
  return geometry->view_of(self.raw(), offset);
}

abi::TensorHandle direct_slice(const TensorArg& self, std::int64_t dim,
                               std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                               std::int64_t step) {
  auto geometry = Geometry::of(self.raw());
  if (!geometry || geometry->rank() == 0 || !wrap_dim(dim, geometry->rank()) || step <= 0) {
    return {};
  }
  const std::int64_t size = geometry->size(dim);
  std::int64_t first = start.value_or(0);
  std::int64_t last = end.value_or(INT64_MAX);
  if (first < 0) first += size;
  if (last < 0) last += size;
  if (first < 0) {
    first = 0;
  } else if (first >= size) {
    first = size;
  }
  if (last < first) {
    last = first;
  } else if (last >= size) {
    last = size;
  }
  const std::int64_t offset = first * geometry->stride(dim);
  geometry->size(dim) = (last - first + step - 1) / step;
  geometry->stride(dim) *= step;
  return geometry->view_of(self.raw(), offset);
}

abi::TensorHandle direct_narrow(const TensorArg& self, std::int64_t dim, std::int64_t start,
                                std::int64_t length) {
  auto geometry = Geometry::of(self.raw());
  if (!geometry || geometry->rank() == 0 || length < 0 || !wrap_dim(dim, geometry->rank())) {
    return {};
  }
  const std::int64_t size = geometry->size(dim);
  if (start < -size || start > size) return {};
  if (start < 0) start += size;
  if (start > size - length) return {};
  const std::int64_t offset = start * geometry->stride(dim);
  geometry->size(dim) = length;
  return geometry->view_of(self.raw(), offset);
}

abi::TensorHandle direct_unsqueeze(const TensorArg& self, std::int64_t dim) {
  auto geometry = Geometry::of(self.raw());
  if (!geometry || !wrap_dim(dim, geometry->rank() + 1)) return {};
  const std::int64_t stride =
      dim >= geometry->rank() ? 1 : geometry->size(dim) * geometry->stride(dim);
  geometry->insert(dim, 1, stride);
  return geometry->view_of(self.raw());
}

abi::TensorHandle direct_squeeze_dim(const TensorArg& self, std::int64_t dim) {
  auto geometry = Geometry::of(self.raw());
  if (!geometry || !wrap_dim(dim, geometry->rank())) return {};
  if (geometry->rank() > 0 && geometry->size(dim) == 1) geometry->erase(dim);
  return geometry->view_of(self.raw());
}

abi::TensorHandle direct_permute(const TensorArg& self, IntList dims) {
  auto geometry = Geometry::of(self.raw());
  if (!geometry || static_cast<std::int64_t>(dims.size()) != geometry->rank()) return {};
  Geometry permuted = *geometry;
  std::array<bool, Geometry::max_rank> seen{};
  for (std::size_t i = 0; i < dims.size(); ++i) {
    std::int64_t dim = dims[i];
    if (!wrap_dim(dim, geometry->rank()) || seen[static_cast<std::size_t>(dim)]) return {};
    seen[static_cast<std::size_t>(dim)] = true;
    permuted.size(static_cast<std::int64_t>(i)) = geometry->size(dim);
    permuted.stride(static_cast<std::int64_t>(i)) = geometry->stride(dim);
  }
  return permuted.view_of(self.raw());
}

namespace {

/// PyTorch's infer_size: `shape` with its -1 filled in for `numel` elements;
/// false where PyTorch reports an error (the dispatcher route then does).
bool infer_size(IntList shape, std::int64_t numel, std::span<std::int64_t> out) {
  std::int64_t known = 1;
  std::optional<std::size_t> inferred;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    out[i] = shape[i];
    if (shape[i] == -1) {
      if (inferred) return false;
      inferred = i;
    } else if (shape[i] < 0 || __builtin_mul_overflow(known, shape[i], &known)) {
      return false;
    }
  }
  if (numel == known) return !inferred || known != 0;
  if (!inferred || known == 0 || numel % known != 0) return false;
  out[*inferred] = numel / known;
  return true;
}

/// PyTorch's computeStride (aten/src/ATen/TensorUtils.cpp): the strides of a
/// view of `old` with sizes `shape`, or false where no view can have them.
bool compute_stride(std::span<const std::int64_t> old_sizes,
                    std::span<const std::int64_t> old_strides, std::span<const std::int64_t> shape,
                    std::int64_t numel, std::span<std::int64_t> out) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  if (old_sizes.empty()) {
    std::fill(out.begin(), out.end(), 1);
    return true;
  }
  if (numel == 0) {
    // Arbitrary for no elements: NumPy keeps the strides of an unchanged
    // shape and otherwise uses those of a resize.
    if (std::equal(old_sizes.begin(), old_sizes.end(), shape.begin(), shape.end())) {
      std::copy(old_strides.begin(), old_strides.end(), out.begin());
      return true;
    }
    for (std::int64_t d = rank - 1; d >= 0; --d) {
      const auto i = static_cast<std::size_t>(d);
      out[i] = d == rank - 1 ? 1 : std::max<std::int64_t>(shape[i + 1], 1) * out[i + 1];
    }
    return true;
  }
  std::int64_t view_d = rank - 1;
  std::int64_t chunk_base_stride = old_strides.back();
  std::int64_t tensor_numel = 1;
  std::int64_t view_numel = 1;
  for (auto tensor_d = static_cast<std::int64_t>(old_sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    const auto t = static_cast<std::size_t>(tensor_d);
    tensor_numel *= old_sizes[t];
    if (tensor_d == 0 ||
        (old_sizes[t - 1] != 1 && old_strides[t - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || shape[static_cast<std::size_t>(view_d)] == 1)) {
        out[static_cast<std::size_t>(view_d)] = view_numel * chunk_base_stride;
        view_numel *= shape[static_cast<std::size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[t - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

abi::TensorHandle direct_reshape(const TensorArg& self, IntList shape) {
  if (!abi::direct_routes_enabled() || !abi::viewable(self.raw())) return {};
  constexpr std::size_t max_rank = 16;
  if (shape.size() >= max_rank) return {};
  const auto old_sizes = abi::sizes(self.raw());
  const auto old_strides = abi::strides(self.raw());
  std::int64_t numel = 1;
  for (std::int64_t size : old_sizes)
    numel *= size;
  std::array<std::int64_t, max_rank> sizes{};
  std::array<std::int64_t, max_rank> strides{};
  const auto new_sizes = std::span(sizes.data(), shape.size());
  const auto new_strides = std::span(strides.data(), shape.size());
  if (!infer_size(shape, numel, new_sizes) ||
      !compute_stride(old_sizes, old_strides, new_sizes, numel, new_strides)) {
    return {};
  }
  return unless_torch_refuses(
      [&] { return abi::reinterpret(self.raw(), new_sizes, new_strides, 0); });
}

abi::TensorHandle cpu_clone(const TensorArg& self, std::optional<MemoryFormat> memory_format) {
  if (!abi::direct_routes_enabled() || !abi::all_plain_cpu({self.raw()})) return {};
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  if (format == MemoryFormat::Preserve) {
    return unless_torch_refuses([&] { return abi::clone(self.raw(), "aten::clone"); });
  }
  if (format == MemoryFormat::Contiguous) {
    return unless_torch_refuses(
        [&] { return abi::cpu::contiguous_clone(self.raw(), "aten::clone"); });
  }
  return {};
}

abi::TensorHandle cpu_mul_Tensor(const TensorArg& self, const TensorArg& other) {
  if (!abi::direct_routes_enabled() || !abi::all_plain_cpu({self.raw(), other.raw()})) return {};
  return unless_torch_refuses(
      [&] { return abi::cpu::mul_Tensor(self.raw(), other.raw(), "aten::mul.Tensor"); });
}

abi::TensorHandle cpu_abs(const TensorArg& self) {
  if (!abi::direct_routes_enabled() || !abi::all_plain_cpu({self.raw()})) return {};
  return unless_torch_refuses([&] { return abi::cpu::abs(self.raw(), "aten::abs"); });
}

namespace {

/// An `int[2]` argument as the dispatcher reads it: one number stands for
/// both; std::nullopt for any other length (the dispatcher reports it).
std::optional<std::array<std::int64_t, 2>> pair_of(IntList list) {
  if (list.size() == 1) return std::array{list[0], list[0]};
  if (list.size() == 2) return std::array{list[0], list[1]};
  return std::nullopt;
}

}  // namespace

abi::TensorHandle cpu_conv2d(const TensorArg& input, const TensorArg& weight,
                             const std::optional<TensorArg>& bias, IntList stride, IntList padding,
                             IntList dilation, std::int64_t groups) {
  if (!abi::direct_routes_enabled()) return {};
  const abi::RawTensor bias_raw = bias ? bias->raw() : nullptr;
  const bool plain = bias ? abi::all_plain_cpu({input.raw(), weight.raw(), bias_raw})
                          : abi::all_plain_cpu({input.raw(), weight.raw()});
  if (!plain || abi::dim(input.raw()) != 4) return {};
  const DType dtype = abi::dtype(input.raw());
  if (is_complex(dtype) || (bias && abi::dtype(bias_raw) != dtype)) return {};
  const auto strides = pair_of(stride), paddings = pair_of(padding), dilations = pair_of(dilation);
  if (!strides || !paddings || !dilations) return {};
  constexpr std::array<std::int64_t, 2> no_output_padding{0, 0};
  return unless_torch_refuses([&] {
    return abi::cpu::convolution(input.raw(), weight.raw(), bias_raw, *strides, *paddings,
                                 *dilations, false, no_output_padding, groups, "aten::conv2d");
  });
}

abi::TensorHandle cpu_cat(const TensorList& tensors, std::int64_t dim) {
  if (!abi::direct_routes_enabled() || tensors.size() == 0) return {};
  std::vector<abi::RawTensor> raw;
  raw.reserve(tensors.size());
  for (const TensorArg& tensor : tensors.items())
    raw.push_back(tensor.raw());
  if (!abi::all_plain_cpu(raw)) return {};
  return unless_torch_refuses([&] { return abi::cpu::cat(raw, dim, "aten::cat"); });
}

}  // namespace fp::aten::detail
