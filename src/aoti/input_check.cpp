#include "input_check.h"

#include "base/text.h"

#include <map>

#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/base/error.h"
#include "messages.h"

namespace fp::aoti::detail {
namespace {

std::string spec_text(const std::vector<DimSpec>& sizes) {
  std::string text = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const DimSpec& dim = sizes[i];
    text += i == 0 ? "" : ", ";
    text += dim.is_static() ? std::to_string(dim.min)
                            : dim.symbol + " in [" + std::to_string(dim.min) + ", " +
                                  std::to_string(dim.max) + "]";
  }
  return text + "]";
}

class InputChecker {
 public:
  InputChecker(Device device, const std::string& source) : device_(device), source_(source) {}

  void check(const InputSpec& spec, std::size_t index, abi::RawTensor tensor) {
    where_ = "input " + std::to_string(index) + " " + in_quotes(spec.name);
    if (tensor == nullptr || !abi::is_defined(tensor)) fail("is an undefined tensor");
    if (abi::dtype(tensor) != spec.dtype)
      fail("must have dtype " + std::string(name(spec.dtype)) + ", not " +
           std::string(name(abi::dtype(tensor))));
    const Device actual = abi::device(tensor);
    const bool index_matters = device_.has_index() && actual.is_cuda();
    if (actual.type != device_.type || (index_matters && actual.index != device_.index))
      fail("must be on " + device_.str() + " (the model's device), not " + actual.str() +
           "; move it with .to(device)");
    check_sizes(spec, abi::sizes(tensor));
  }

 private:
  void check_sizes(const InputSpec& spec, std::span<const std::int64_t> sizes) {
    const auto wanted = [&] {
      return " (the exported shape is " + spec_text(spec.sizes) + ", got " +
             fp::detail::list_text(sizes) + ")";
    };
    if (sizes.size() != spec.sizes.size())
      fail("must have " + std::to_string(spec.sizes.size()) + " dimensions, not " +
           std::to_string(sizes.size()) + wanted());
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      const DimSpec& dim = spec.sizes[d];
      if (sizes[d] < dim.min || sizes[d] > dim.max)
        fail("has size " + std::to_string(sizes[d]) + " in dimension " + std::to_string(d) +
             wanted());
      if (dim.is_static()) continue;
      const auto [seen, inserted] = symbols_.emplace(dim.symbol, Seen{sizes[d], where_});
      if (!inserted && seen->second.size != sizes[d])
        fail("has size " + std::to_string(sizes[d]) + " in dimension " + std::to_string(d) +
             ", but " + seen->second.where + " has size " + std::to_string(seen->second.size) +
             " for the same exported dimension " + dim.symbol + wanted());
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorCode::BadArgument, message_prefix(source_) + where_ + " " + what);
  }

  struct Seen {
    std::int64_t size;
    std::string where;
  };
  Device device_;
  const std::string& source_;
  std::string where_;
  std::map<std::string, Seen> symbols_;
};

}  // namespace

void check_input_count(std::size_t count, std::span<const TensorArg> inputs,
                       const std::string& source) {
  if (inputs.size() != count)
    throw Error(ErrorCode::BadArgument, message_prefix(source) + "the model takes " +
                                            std::to_string(count) + " input tensor(s), got " +
                                            std::to_string(inputs.size()));
}

void check_inputs(const Signature& signature, std::span<const TensorArg> inputs, Device device,
                  const std::string& source) {
  check_input_count(signature.inputs.size(), inputs, source);
  InputChecker checker(device, source);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    checker.check(signature.inputs[i], i, inputs[i].raw());
}

}  // namespace fp::aoti::detail
