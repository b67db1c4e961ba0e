// The C interface an AOTInductor model library exports.
//
// These are the model's own functions, not libtorch's: their declarations
// mirror torch/csrc/inductor/aoti_runtime/interface.h, which flash_powder
// does not include (only the abi layer sees torch's headers). The interface
// has been stable since torch 2.6; the functions a model may lack are optional.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "flash_powder/abi/tensor_handle.h"
#include "shared_object.h"

namespace fp::aoti::detail {

struct ContainerOpaque;
using ContainerHandle = ContainerOpaque*;
/// AOTIRuntimeError: 0 is success.
using RuntimeError = std::int32_t;

/// Pointers to the container functions of one loaded model library.
struct ModelInterface {
  RuntimeError (*create_with_device)(ContainerHandle*, std::size_t num_models, const char* device,
                                     const char* cubin_dir) = nullptr;
  RuntimeError (*destroy)(ContainerHandle) = nullptr;
  RuntimeError (*run)(ContainerHandle, abi::RawTensor* inputs, std::size_t num_inputs,
                      abi::RawTensor* outputs, std::size_t num_outputs, void* stream,
                      void* proxy_executor) = nullptr;
  RuntimeError (*num_inputs)(ContainerHandle, std::size_t*) = nullptr;
  RuntimeError (*input_name)(ContainerHandle, std::size_t, const char**) = nullptr;
  RuntimeError (*num_outputs)(ContainerHandle, std::size_t*) = nullptr;
  RuntimeError (*output_name)(ContainerHandle, std::size_t, const char**) = nullptr;
  RuntimeError (*num_constants)(ContainerHandle, std::size_t*) = nullptr;
  RuntimeError (*constant_name)(ContainerHandle, std::size_t, const char**) = nullptr;
  RuntimeError (*constant_fqn)(ContainerHandle, std::size_t, const char**) = nullptr;
  RuntimeError (*constant_dtype)(ContainerHandle, std::size_t, std::int32_t*) = nullptr;
  RuntimeError (*constant_data_size)(ContainerHandle, std::size_t, std::size_t*) = nullptr;
  RuntimeError (*constant_from_folded)(ContainerHandle, std::size_t, bool*) = nullptr;
  RuntimeError (*call_spec)(ContainerHandle, const char**, const char**) = nullptr;
  // Optional (absent in older models).
  RuntimeError (*constants_blob_size)(ContainerHandle, std::uint64_t*) = nullptr;
  RuntimeError (*update_constants_from_blob)(ContainerHandle, const std::uint8_t*) = nullptr;
  RuntimeError (*last_error)(const char**) = nullptr;
  /// {name, borrowed handle} pairs; the model copies the data.
  struct ConstantPair {
    const char* name;
    abi::RawTensor handle;
  };
  RuntimeError (*update_inactive_pairs)(ContainerHandle, const ConstantPair*,
                                        std::size_t) = nullptr;
  RuntimeError (*run_constant_folding)(ContainerHandle, bool use_inactive, void* stream,
                                       void* proxy_executor) = nullptr;
  RuntimeError (*swap_constant_buffer)(ContainerHandle) = nullptr;

  /// Looks every function up; throws fp::Error naming a missing required one.
  static ModelInterface bind(const SharedObject& library, const std::string& source);

  /// Throws fp::Error("<source>: <what> failed[: <the model's message>]") when
  /// `status` is not success.
  void check(RuntimeError status, const std::string& source, const char* what) const;
};

}  // namespace fp::aoti::detail
