#include "run_model.h"

#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/base/error.h"

namespace fp::aoti::detail {
namespace {

std::vector<std::int64_t> contiguous_strides(std::span<const std::int64_t> sizes) {
  std::vector<std::int64_t> strides(sizes.size(), 1);
  for (std::size_t d = sizes.size(); d-- > 1;)
    strides[d - 1] = strides[d] * std::max<std::int64_t>(sizes[d], 1);
  return strides;
}

// `tensor.contiguous()`, always as a handle of its own (the model steals it).
abi::TensorHandle contiguous_handle(abi::RawTensor tensor) {
  if (abi::is_contiguous(tensor)) return abi::share(tensor);
  const auto sizes = abi::sizes(tensor);
  abi::TensorHandle copy =
      abi::empty_strided(sizes, contiguous_strides(sizes), abi::dtype(tensor), abi::device(tensor));
  abi::copy_(copy.get(), tensor);
  return copy;
}

struct Bytes {
  const std::byte* begin;
  const std::byte* end;
};

Bytes bytes_of(abi::RawTensor tensor) {
  const auto* begin = static_cast<const std::byte*>(abi::const_data_ptr(tensor));
  const auto count = static_cast<std::size_t>(abi::numel(tensor));
  return {begin, begin == nullptr ? begin : begin + count * element_size(abi::dtype(tensor))};
}

bool overlaps(Bytes a, Bytes b) {
  return a.begin != nullptr && b.begin != nullptr && a.begin < b.end && b.begin < a.end;
}

// An independent tensor: a copy when the model returned (a view of) an input.
Tensor independent_output(abi::TensorHandle output, const std::vector<Bytes>& inputs) {
  const Bytes out = bytes_of(output.get());
  for (const Bytes& input : inputs) {
    if (!overlaps(out, input)) continue;
    const auto sizes = abi::sizes(output.get());
    abi::TensorHandle copy = abi::empty_strided(
        sizes, contiguous_strides(sizes), abi::dtype(output.get()), abi::device(output.get()));
    abi::copy_(copy.get(), output.get());
    return Tensor(std::move(copy));
  }
  return Tensor(std::move(output));
}

}  // namespace

std::vector<Tensor> run_model(const ModelInterface& api, ContainerHandle container,
                              std::span<const TensorArg> inputs, std::size_t num_outputs,
                              const std::string& source) {
  std::vector<abi::TensorHandle> owned;
  std::vector<Bytes> input_bytes;
  owned.reserve(inputs.size());
  for (const TensorArg& input : inputs) {
    owned.push_back(contiguous_handle(input.raw()));
    input_bytes.push_back(bytes_of(input.raw()));
  }
  // The model steals the input handles (and frees them, failing or not) and
  // gives us the output handles.
  std::vector<abi::RawTensor> in(owned.size());
  for (std::size_t i = 0; i < owned.size(); ++i)
    in[i] = owned[i].release();
  std::vector<abi::RawTensor> out(num_outputs, nullptr);
  const auto status =
      api.run(container, in.data(), in.size(), out.data(), out.size(), nullptr, nullptr);
  std::vector<abi::TensorHandle> outputs;
  outputs.reserve(out.size());
  for (abi::RawTensor handle : out)
    outputs.emplace_back(handle);
  api.check(status, source, "running the model");
  std::vector<Tensor> results;
  results.reserve(outputs.size());
  for (auto& output : outputs) {
    if (!output)
      throw Error(ErrorCode::TorchError, "fp::aoti: " + source + ": the model returned no tensor");
    results.push_back(independent_output(std::move(output), input_bytes));
  }
  return results;
}

}  // namespace fp::aoti::detail
