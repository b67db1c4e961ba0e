#include "flash_powder/abi/error.h"

#include <string>
#include <utility>

#include "flash_powder/abi/runtime.h"
#include "schema_error.h"
#include "torch_c.h"

namespace fp::abi {

std::string last_torch_error() {
  if (const char* message = late::last_error_message()) return message;
  return "libtorch " + torch_version().str() +
         " reports errors only on stderr (torch 2.13 and later say it here)";
}

void throw_torch_error(std::string_view what) {
  throw Error(ErrorCode::TorchError, std::string(what) + ": " + last_torch_error());
}

void fail_against_schema(ErrorCode code, std::string_view op, std::string_view problem,
                         std::string_view schema) {
  std::string message(op);
  message.append(": ").append(problem).append("; the schema is ").append(schema);
  throw Error(code, std::move(message));
}

}  // namespace fp::abi
