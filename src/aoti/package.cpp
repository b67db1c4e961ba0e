#include "flash_powder/aoti/package.h"

#include <mutex>
#include <utility>

#include "container.h"
#include "flash_powder/base/error.h"
#include "input_check.h"
#include "messages.h"
#include "model_interface.h"
#include "package_reader.h"
#include "refusals.h"
#include "replace_weights.h"
#include "run_model.h"
#include "shared_object.h"
#include "weights.h"

namespace fp::aoti {

// Members in the order they must be built; they are destroyed in reverse:
// the container before the blob it reads and the library it runs.
struct Package::Impl {
  std::string source;
  Device device;
  std::unique_ptr<detail::SharedObject> library;
  detail::ModelInterface api;
  std::unique_ptr<detail::Container> container;
  std::unique_ptr<detail::WeightsBlob> weights;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::vector<ConstantInfo> constants;
  std::map<std::string, std::string> metadata;
  std::optional<Signature> signature;
  std::string in_spec;
  std::string out_spec;
  /// One weight swap at a time: both would fill the same inactive buffer.
  std::mutex swapping;
};

namespace {

std::unique_ptr<Package::Impl> load(detail::PackageContents contents, std::string source,
                                    const Options& options) {
  if (!contents.signature && options.require_signature)
    throw Error(
        ErrorCode::BadArgument,
        detail::message_prefix(source) +
            "the package has no signature (extra/flash_powder.json), so its inputs cannot "
            "be checked and a wrongly shaped input would be read out of bounds; export it "
            "with tools/export_aoti.py, or open it with Options{.require_signature = false} "
            "to check only the number of inputs");
  detail::refuse_unrunnable(contents, options.device, source);
  auto impl = std::make_unique<Package::Impl>();
  impl->source = std::move(source);
  impl->device = options.device;
  impl->library = std::make_unique<detail::SharedObject>(contents.library, impl->source);
  impl->api = detail::ModelInterface::bind(*impl->library, impl->source);
  impl->container = std::make_unique<detail::Container>(impl->api, options.num_runners,
                                                        options.device, impl->source);
  impl->weights =
      detail::load_weights(contents, *impl->library, impl->api, *impl->container, impl->source);
  impl->input_names = impl->container->input_names();
  impl->output_names = impl->container->output_names();
  impl->constants = impl->container->constants();
  std::tie(impl->in_spec, impl->out_spec) = impl->container->call_spec();
  impl->metadata = std::move(contents.metadata);
  impl->signature = std::move(contents.signature);
  if (impl->signature && impl->signature->inputs.size() != impl->input_names.size())
    throw Error(ErrorCode::BadArgument,
                detail::message_prefix(impl->source) + "the signature lists " +
                    std::to_string(impl->signature->inputs.size()) +
                    " inputs but the model takes " + std::to_string(impl->input_names.size()) +
                    "; the package was altered");
  return impl;
}

}  // namespace

Package::Package(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Package::Package(Package&&) noexcept = default;
Package& Package::operator=(Package&&) noexcept = default;
Package::~Package() = default;

Package Package::open(const std::filesystem::path& path, const Options& options) {
  const auto archive = detail::ZipArchive::open(path);
  return Package(load(detail::read_package(archive, options.model_name), path.string(), options));
}

Package Package::open(std::span<const std::byte> bytes, const Options& options) {
  const std::string source = "<package in memory>";
  const auto archive = detail::ZipArchive::open(bytes, source);
  return Package(load(detail::read_package(archive, options.model_name), source, options));
}

std::vector<Tensor> Package::run(std::span<const TensorArg> inputs) const {
  if (!impl_) throw Error(ErrorCode::BadArgument, "fp::aoti: the Package was moved from");
  if (impl_->signature)
    detail::check_inputs(*impl_->signature, inputs, impl_->device, impl_->source);
  else
    detail::check_input_count(impl_->input_names.size(), inputs, impl_->source);
  return detail::run_model(impl_->api, impl_->container->get(), inputs, impl_->output_names.size(),
                           impl_->source);
}

void Package::load_weights(const StateDictReader& weights) {
  if (!impl_) throw Error(ErrorCode::BadArgument, "fp::aoti: the Package was moved from");
  const std::lock_guard lock(impl_->swapping);
  detail::replace_weights(impl_->api, impl_->container->get(), impl_->constants, weights,
                          impl_->device, impl_->source);
}

namespace {
const Package::Impl& checked(const std::unique_ptr<Package::Impl>& impl) {
  if (!impl) throw Error(ErrorCode::BadArgument, "fp::aoti: the Package was moved from");
  return *impl;
}
}  // namespace

const std::vector<std::string>& Package::input_names() const {
  return checked(impl_).input_names;
}
const std::vector<std::string>& Package::output_names() const {
  return checked(impl_).output_names;
}
const std::optional<Signature>& Package::signature() const {
  return checked(impl_).signature;
}
const std::vector<ConstantInfo>& Package::constants() const {
  return checked(impl_).constants;
}
const std::map<std::string, std::string>& Package::metadata() const {
  return checked(impl_).metadata;
}
const std::string& Package::in_spec() const {
  return checked(impl_).in_spec;
}
const std::string& Package::out_spec() const {
  return checked(impl_).out_spec;
}
Device Package::device() const {
  return checked(impl_).device;
}

}  // namespace fp::aoti
