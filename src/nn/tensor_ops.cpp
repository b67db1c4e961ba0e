#include "tensor_ops.h"

#include <string>

#include "aten_op.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"

namespace fp::nn::detail {

std::vector<std::int64_t> sizes_of(const fp::detail::TensorBase& tensor) {
  const auto sizes = tensor.sizes();
  return {sizes.begin(), sizes.end()};
}

std::string list_text(IntList values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(values[i]);
  }
  return text + "]";
}

std::string torch_size(IntList sizes) {
  return "torch.Size(" + list_text(sizes) + ")";
}

std::string torch_size(const fp::detail::TensorBase& tensor) {
  return torch_size(IntList(tensor.sizes()));
}

Tensor scalar_tensor(double value, DType dtype) {
  return tensor(value, dtype);
}

Tensor reshape(Read tensor, IntList sizes) {
  static const AtenOp op("aten::reshape", "");
  return op(tensor.raw(), sizes.vec());
}

Tensor transpose(Read tensor, std::int64_t dim0, std::int64_t dim1) {
  static const AtenOp op("aten::transpose", "int");
  return op(tensor.raw(), dim0, dim1);
}

Tensor permute(Read tensor, IntList dims) {
  static const AtenOp op("aten::permute", "");
  return op(tensor.raw(), dims.vec());
}

Tensor unsqueeze(Read tensor, std::int64_t dim) {
  static const AtenOp op("aten::unsqueeze", "");
  return op(tensor.raw(), dim);
}

Tensor squeeze(Read tensor, std::int64_t dim) {
  static const AtenOp op("aten::squeeze", "dim");
  return op(tensor.raw(), dim);
}

Tensor select(Read tensor, std::int64_t dim, std::int64_t index) {
  static const AtenOp op("aten::select", "int");
  return op(tensor.raw(), dim, index);
}

Tensor narrow(Read tensor, std::int64_t dim, std::int64_t start, std::int64_t length) {
  static const AtenOp op("aten::narrow", "");
  return op(tensor.raw(), dim, start, length);
}

Tensor contiguous(Read tensor) {
  static const AtenOp op("aten::contiguous", "");
  return op(tensor.raw());
}

Tensor expand(Read tensor, IntList sizes) {
  static const AtenOp op("aten::expand", "");
  return op(tensor.raw(), sizes.vec());
}

Tensor cat(const std::vector<Read>& tensors, std::int64_t dim) {
  static const AtenOp op("aten::cat", "");
  std::vector<abi::RawTensor> raw;
  for (const auto& tensor : tensors)
    raw.push_back(tensor.raw());
  return op(raw, dim);
}

Tensor to(Read tensor, std::optional<DType> dtype, std::optional<Device> device) {
  static const AtenOp op("aten::_to_copy", "");
  return op(tensor.raw(), dtype, std::nullopt, device);
}

Tensor mul(Read a, Read b) {
  static const AtenOp op("aten::mul", "Tensor");
  return op(a.raw(), b.raw());
}

Tensor div(Read a, Read b) {
  static const AtenOp op("aten::div", "Tensor");
  return op(a.raw(), b.raw());
}

Tensor add(Read a, Read b) {
  static const AtenOp op("aten::_foreach_addcmul", "Tensor");
  // Made per call: a static Tensor would be released after libtorch at exit.
  const Tensor one = tensor(1.f);
  const Tensor scalars = tensor(std::vector<double>{1.0});
  auto sums = op.call<std::vector<Tensor>>(std::vector<abi::RawTensor>{a.raw()},
                                           std::vector<abi::RawTensor>{b.raw()},
                                           std::vector<abi::RawTensor>{one.raw()}, scalars);
  return std::move(sums.front());
}

Tensor where(Read condition, Read a, Read b) {
  static const AtenOp op("aten::where", "self");
  return op(condition.raw(), a.raw(), b.raw());
}

Tensor bmm(Read a, Read b) {
  static const AtenOp op("aten::bmm", "");
  return op(a.raw(), b.raw());
}

Tensor masked_fill(Read tensor, Read mask, Read value) {
  static const AtenOp op("aten::masked_fill", "Tensor");
  return op(tensor.raw(), mask.raw(), value.raw());
}

Tensor mean(Read tensor, std::int64_t dim) {
  static const AtenOp op("aten::mean", "dim");
  return op(tensor.raw(), std::vector<std::int64_t>{dim});
}

bool same_tensor(Read a, Read b) {
  static const AtenOp op("aten::is_set_to", "");
  return op.call<bool>(a.raw(), b.raw());
}

}  // namespace fp::nn::detail
