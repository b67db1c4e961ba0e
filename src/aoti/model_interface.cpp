#include "model_interface.h"

#include "flash_powder/base/error.h"
#include "messages.h"

namespace fp::aoti::detail {
namespace {

template <class Function>
void bind_one(Function& slot, const SharedObject& library, const char* name,
              const std::string& source, bool required) {
  slot = reinterpret_cast<Function>(library.find(name));
  if (slot == nullptr && required)
    throw Error(ErrorCode::Format,
                message_prefix(source) + "the model library does not export " + name +
                    "; it is not an AOTInductor model (or one older than torch 2.6)");
}

}  // namespace

ModelInterface ModelInterface::bind(const SharedObject& library, const std::string& source) {
  ModelInterface f;
  const auto need = [&](auto& slot, const char* name) {
    bind_one(slot, library, name, source, true);
  };
  const auto may = [&](auto& slot, const char* name) {
    bind_one(slot, library, name, source, false);
  };
  need(f.create_with_device, "AOTInductorModelContainerCreateWithDevice");
  need(f.destroy, "AOTInductorModelContainerDelete");
  need(f.run, "AOTInductorModelContainerRun");
  need(f.num_inputs, "AOTInductorModelContainerGetNumInputs");
  need(f.input_name, "AOTInductorModelContainerGetInputName");
  need(f.num_outputs, "AOTInductorModelContainerGetNumOutputs");
  need(f.output_name, "AOTInductorModelContainerGetOutputName");
  need(f.num_constants, "AOTInductorModelContainerGetNumConstants");
  need(f.constant_name, "AOTInductorModelContainerGetConstantName");
  need(f.constant_fqn, "AOTInductorModelContainerGetConstantOriginalFQN");
  need(f.constant_dtype, "AOTInductorModelContainerGetConstantDtype");
  need(f.constant_data_size, "AOTInductorModelContainerGetConstantDataSize");
  need(f.constant_from_folded, "AOTInductorModelContainerGetConstantFromFolded");
  need(f.call_spec, "AOTInductorModelContainerGetCallSpec");
  may(f.constants_blob_size, "AOTInductorModelContainerGetConstantsBlobSize");
  may(f.update_constants_from_blob, "AOTInductorModelUpdateConstantsFromBlob");
  may(f.last_error, "AOTInductorGetLastError");
  may(f.update_inactive_pairs, "AOTInductorModelContainerUpdateInactiveConstantBufferPairs");
  may(f.run_constant_folding, "AOTInductorModelContainerRunConstantFolding");
  may(f.swap_constant_buffer, "AOTInductorModelContainerSwapConstantBuffer");
  return f;
}

void ModelInterface::check(RuntimeError status, const std::string& source, const char* what) const {
  if (status == 0) return;
  std::string message = message_prefix(source) + what + " failed";
  const char* detail = nullptr;
  if (last_error != nullptr && last_error(&detail) == 0 && detail != nullptr && *detail != '\0')
    message += std::string(": ") + detail;
  else
    message += " (the model printed its reason to stderr)";
  throw Error(ErrorCode::TorchError, message);
}

}  // namespace fp::aoti::detail
