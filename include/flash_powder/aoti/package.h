// Running an AOTInductor package (`.pt2`) through the stable C ABI.
//
// Python: `torch._inductor.aoti_load_package(path)` then `model(*inputs)`.
// C++ libtorch: `torch::inductor::AOTIModelPackageLoader`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flash_powder/aoti/spec.h"
#include "flash_powder/base/device.h"
#include "flash_powder/core/state_dict.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp::aoti {

/// How to open a package. Python: the keyword arguments of `aoti_load_package`.
struct Options {
  /// Where the model runs; must be the device the package was compiled for.
  /// Python: `device_index` (and the package's device).
  Device device = Device::cpu();
  /// How many calls may run at the same time (the model container's
  /// `num_models`); further concurrent calls wait. Python: `num_runners`.
  std::size_t num_runners = 1;
  /// Which model of a package holding several (`package_aoti` with a dict);
  /// empty: the only one. Python: `model_name`.
  std::string model_name;
  /// A package without a signature (`extra/flash_powder.json`, written by
  /// tools/export_aoti.py) cannot have its inputs checked, and the model
  /// reads wrongly shaped inputs out of bounds. Such packages are refused
  /// unless this is false; then only the number of inputs is checked.
  bool require_signature = true;
};

/// A constant (parameter or buffer) of the compiled model.
/// Python: the entries of `model.get_constant_fqns()`.
struct ConstantInfo {
  /// The name inside the model library.
  std::string name;
  /// The state-dict key of the original module (e.g. "conv.weight").
  std::string original_fqn;
  /// Its dtype.
  DType dtype = DType::F32;
  /// Bytes of data.
  std::size_t data_size = 0;
  /// True for a constant produced by constant folding (not in the state dict).
  bool from_folded = false;
};

/// A loaded AOTInductor model. Calls are thread-safe: up to
/// `Options::num_runners` run at once, the others wait. Move-only.
///
/// Opening refuses, with an fp::Error saying what to do, a package compiled
/// for another device or for a CPU instruction set this machine lacks, one
/// whose model needs C functions the loaded torch lacks, one needing the
/// proxy executor (ops without a C shim, which the stable ABI cannot run),
/// a corrupt or truncated archive, and a model whose external weights blob
/// is missing.
class Package {
 public:
  /// Reads and loads the package at `path`.
  static Package open(const std::filesystem::path& path, const Options& options = {});
  /// Reads and loads a package held in memory (copied; `bytes` may go after).
  static Package open(std::span<const std::byte> bytes, const Options& options = {});

  /// Takes the loaded model over; `other` can only be destroyed or assigned to.
  Package(Package&&) noexcept;
  /// Unloads this model and takes `other`'s.
  Package& operator=(Package&&) noexcept;
  ~Package();

  /// Runs the model on `inputs` (the exported program's flattened tensor
  /// inputs, in order) and returns its flattened outputs as new tensors.
  /// Inputs are checked against the signature first: count, dtype, device,
  /// rank, static sizes, dynamic sizes within their range and equal where
  /// the export said so; non-contiguous inputs are made contiguous.
  /// Python: `model(*inputs)`.
  std::vector<Tensor> run(std::span<const TensorArg> inputs) const;
  /// `model(x, y)`: any mix of Tensor, TensorView and TensorMutView.
  template <class... Tensors>
  std::vector<Tensor> operator()(const Tensors&... inputs) const {
    const TensorArg args[] = {TensorArg(inputs)...};
    return run(std::span<const TensorArg>(args, sizeof...(Tensors)));
  }

  /// Replaces the model's weights with `weights`, keyed by the original
  /// module's state-dict names (`ConstantInfo::original_fqn`): a StateDict,
  /// a safetensors MappedFile, any StateDictReader. Every constant that is
  /// not folded must be there with the same dtype and size, on the model's
  /// device; the data is copied. Calls running meanwhile finish with the old
  /// weights; later ones use the new; two swaps take turns.
  /// Python: `model.load_constants(state_dict, check_full_update=True)`.
  void load_weights(const StateDictReader& weights);

  /// The model's input and output names (`arg0_1`, ...; the names Inductor
  /// gave the graph's placeholders and outputs).
  const std::vector<std::string>& input_names() const;
  /// The names Inductor gave the graph's outputs.
  const std::vector<std::string>& output_names() const;
  /// The signature recorded at export, or nullopt for a package without one.
  const std::optional<Signature>& signature() const;
  /// The model's constants. Python: `model.get_constant_fqns()`.
  const std::vector<ConstantInfo>& constants() const;
  /// The compile-time metadata (`AOTI_DEVICE_KEY`, `AOTI_CPU_ISA`, ...).
  /// Python: `model.get_metadata()`.
  const std::map<std::string, std::string>& metadata() const;
  /// The pytree specs of the call, as JSON text. Python: `model.get_call_spec()`.
  const std::string& in_spec() const;
  /// The pytree spec of the outputs, as JSON text.
  const std::string& out_spec() const;
  /// The device the model runs on.
  Device device() const;

  /// Internal: the loaded model (defined in src/aoti/package.cpp).
  struct Impl;

 private:
  explicit Package(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace fp::aoti
