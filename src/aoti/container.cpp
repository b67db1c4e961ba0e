#include "container.h"

#include "flash_powder/abi/enum_codes.h"
#include "flash_powder/base/error.h"
#include "messages.h"

namespace fp::aoti::detail {
namespace {

// "cpu", "cuda:1" (the container's device_str; "cuda" means the current one).
std::string device_string(Device device) {
  return device.str();
}

}  // namespace

Container::Container(const ModelInterface& api, std::size_t num_models, Device device,
                     const std::string& source)
    : api_(api), source_(source) {
  if (num_models == 0)
    throw Error(ErrorCode::BadArgument,
                message_prefix(source) + "Options::num_runners must be at least 1");
  api_.check(api_.create_with_device(&handle_, num_models, device_string(device).c_str(), nullptr),
             source_, "creating the model container");
}

Container::~Container() {
  if (handle_ != nullptr) api_.destroy(handle_);
}

std::vector<std::string> Container::names(const NameFunctions& functions) const {
  std::size_t count = 0;
  api_.check(functions.count(handle_, &count), source_, functions.count_call);
  std::vector<std::string> names(count);
  for (std::size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    api_.check(functions.name(handle_, i, &name), source_, functions.name_call);
    names[i] = name != nullptr ? name : "";
  }
  return names;
}

std::vector<std::string> Container::input_names() const {
  return names({api_.num_inputs, api_.input_name, "GetNumInputs", "GetInputName"});
}

std::vector<std::string> Container::output_names() const {
  return names({api_.num_outputs, api_.output_name, "GetNumOutputs", "GetOutputName"});
}

std::vector<ConstantInfo> Container::constants() const {
  std::size_t count = 0;
  api_.check(api_.num_constants(handle_, &count), source_, "GetNumConstants");
  std::vector<ConstantInfo> constants(count);
  for (std::size_t i = 0; i < count; ++i) {
    ConstantInfo& info = constants[i];
    const char* text = nullptr;
    api_.check(api_.constant_name(handle_, i, &text), source_, "GetConstantName");
    info.name = text != nullptr ? text : "";
    text = nullptr;
    api_.check(api_.constant_fqn(handle_, i, &text), source_, "GetConstantOriginalFQN");
    info.original_fqn = text != nullptr ? text : "";
    std::int32_t code = 0;
    api_.check(api_.constant_dtype(handle_, i, &code), source_, "GetConstantDtype");
    info.dtype = abi::dtype_from_code(code);
    api_.check(api_.constant_data_size(handle_, i, &info.data_size), source_,
               "GetConstantDataSize");
    api_.check(api_.constant_from_folded(handle_, i, &info.from_folded), source_,
               "GetConstantFromFolded");
  }
  return constants;
}

std::pair<std::string, std::string> Container::call_spec() const {
  const char* in = nullptr;
  const char* out = nullptr;
  api_.check(api_.call_spec(handle_, &in, &out), source_, "GetCallSpec");
  return {in != nullptr ? in : "", out != nullptr ? out : ""};
}

std::optional<std::uint64_t> Container::constants_blob_size() const {
  std::uint64_t size = 0;
  if (api_.constants_blob_size == nullptr || api_.constants_blob_size(handle_, &size) != 0)
    return std::nullopt;
  return size;
}

}  // namespace fp::aoti::detail
