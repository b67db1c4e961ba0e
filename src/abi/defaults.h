// The defaults of a schema's arguments (`int dim=-1`, `int[2] stride=1`,
// `str approximate='none'`), parsed from their text once, when the schema is
// parsed, rather than on every call that omits them. Private to the abi layer.
#pragma once

#include <cstddef>
#include <memory>

#include "flash_powder/abi/ivalue.h"
#include "flash_powder/abi/schema.h"

namespace fp::abi {

/// Parses every default of `schema` (Schema::compute_call_facts calls it);
/// one that cannot be read or carried keeps its error for the call that
/// needs it.
std::shared_ptr<const SchemaDefaults> parse_defaults(const Schema& schema);

/// The value a call that omits argument `index` boxes. Throws the argument's
/// fp::Error when it has no default the stable ABI can carry.
const Arg& default_argument(const Schema& schema, std::size_t index);

}  // namespace fp::abi
