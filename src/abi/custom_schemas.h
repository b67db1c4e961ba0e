// What the registry of custom ops' schemas (register_schema) knows of
// libtorch's side: which ops a library flash_powder registered has taken
// back. Private to the abi layer and fp::library.
#pragma once

#include <string_view>

namespace fp::abi {

/// The op `qualified_name` ("myops::scale" or "myops::scale.out") is gone
/// from libtorch: the fp::library::Library that defined it was destroyed.
/// fp::dispatch then refuses it before boxing anything (ErrorCode::OpNotFound)
/// until its schema is registered again.
void withdraw_schema(std::string_view qualified_name);

}  // namespace fp::abi
