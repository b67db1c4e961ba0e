// Op schemas: what `fp::dispatch` checks a call against before it reaches
// libtorch, whose boxed calling convention trusts the caller blindly.
//
// flash_powder carries the schemas of every ATen op of the torch it was built
// with (generated from the wheel's native_functions.yaml by
// tools/generate_schemas.py), each with the torch releases that have it.
// Custom ops are made known with register_schema().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/abi/runtime.h"

namespace fp::abi {

struct SchemaDefaults;

/// The torch releases that have an op: `since` up to, not including,
/// `removed_in`. Patch releases add and remove no ops, so both are x.y.0.
struct Availability {
  /// The first release that has the op.
  TorchVersion since;
  /// The first release that no longer has it, if any.
  std::optional<TorchVersion> removed_in;

  /// Whether torch `version` has the op.
  constexpr bool includes(const TorchVersion& version) const {
    return since <= version && !(removed_in && *removed_in <= version);
  }
};

/// A type in a schema, e.g. `Tensor(a!)`, `int[2]`, `Tensor?[]`, `ScalarType?`.
struct SchemaType {
  /// What kind of type it is.
  enum class Kind : std::uint8_t {
    Tensor,
    Int,  // int and SymInt
    Float,
    Bool,
    Str,
    ScalarType,
    Layout,
    MemoryFormat,
    Device,
    Generator,
    Optional,     // element: the wrapped type
    List,         // element: the item type; fixed_size for `int[2]`
    Unsupported,  // Scalar, Dimname, Storage, Stream, ...: the stable ABI cannot carry them
  };
  /// The kind of the type.
  Kind kind = Kind::Unsupported;
  /// The wrapped type of an Optional, the item type of a List; null otherwise.
  std::shared_ptr<const SchemaType> element;
  /// The fixed length of a list such as `int[2]`; -1 when any length goes.
  std::int64_t fixed_size = -1;
  /// The alias annotation without parentheses, e.g. "a!" ("" when none).
  std::string alias;
  /// The type as written in the schema, e.g. "Tensor(a!)[]".
  std::string spelling;

  /// Whether the op writes through this type (`Tensor(a!)`).
  bool is_mutable() const { return alias.find('!') != std::string::npos; }
  /// True when this type (or anything inside it) cannot cross the stable ABI.
  bool carries_unsupported() const;
};

/// One argument or return of a schema.
struct SchemaArgument {
  std::string name;  ///< may be empty for returns
  /// Its type.
  SchemaType type;
  std::optional<std::string> default_value;  ///< as written, e.g. "None", "[0, 1]", "'linear'"
  /// True when it comes after `*` in the schema: keyword-only.
  bool kwarg_only = false;
};

/// A parsed op schema, e.g.
/// `aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)`.
struct Schema {
  std::string ns;        ///< "aten"
  std::string name;      ///< "max"
  std::string overload;  ///< "dim" ("" for the default overload)
  /// The arguments, in order.
  std::vector<SchemaArgument> arguments;
  /// The returns, in order.
  std::vector<SchemaArgument> returns;
  std::string text;  ///< the schema as given
  /// The torch releases that have the op; fp::dispatch refuses to call it
  /// with any other loaded. For a builtin ATen op, from the
  /// native_functions.yaml of each release (tools/data/aten_ops_by_release.txt):
  /// `since` is builtin_oldest_release() (2.11) for the ops that release already
  /// has. For a schema parsed or registered here: every release.
  Availability availability;

  /// "aten::max.dim" (or "aten::max" for the default overload), built once
  /// by parse(): every call's messages and checks use it.
  const std::string& qualified_name() const { return qualified_; }
  /// "aten::max": the name libtorch's dispatcher looks the op up by.
  const std::string& op_name() const { return op_name_; }
  /// The number of leading arguments without a default value.
  std::size_t required_arguments() const { return required_; }
  /// Whether some argument is written to (`Tensor(a!)`): only then does a
  /// call check the borrow rules of its arguments.
  bool writes_arguments() const { return writes_; }
  /// The StableIValues a call needs room for: one per argument or result,
  /// whichever is more.
  std::size_t stack_size() const { return stack_size_; }
  /// Why no call can carry the results ("returns Scalar, which ..."), or ""
  /// when they can.
  const std::string& returns_problem() const { return returns_problem_; }
  /// Its position among builtin_schemas(); none for a schema parsed or
  /// registered here.
  std::optional<std::size_t> builtin_index() const { return builtin_index_; }

  /// Parses a schema in TorchScript's schema language; `default_namespace` is
  /// used when the text has none (native_functions.yaml omits "aten::").
  /// Throws fp::Error naming the position of a syntax error.
  static Schema parse(std::string_view text, std::string_view default_namespace = "aten");

 private:
  friend class SchemaParser;
  friend class BuiltinSchemas;
  friend const struct Arg& default_argument(const Schema& schema, std::size_t index);
  // What every call needs to know, worked out once by parse() (from the
  // arguments and returns as parsed).
  void compute_call_facts();
  std::string op_name_;
  std::string qualified_;
  std::size_t required_ = 0;
  bool writes_ = false;
  std::size_t stack_size_ = 0;
  std::string returns_problem_;
  std::optional<std::size_t> builtin_index_;
  std::shared_ptr<const SchemaDefaults> defaults_;
};

/// The schema of `op` (e.g. "aten::max") and `overload` (e.g. "dim", or "" for
/// the default). Thread-safe; parses on first use. Throws fp::Error when the op
/// is unknown, listing the overloads that exist.
const Schema& find_schema(std::string_view op, std::string_view overload);

/// Makes a schema known to fp::dispatch, for custom ops registered by an
/// extension: `register_schema("myops::scale(Tensor x, float factor) -> Tensor")`.
/// Registering the same text twice is allowed; a different text for an existing
/// name throws fp::Error.
void register_schema(std::string_view text);

/// The ATen schemas built into this library, as written in native_functions.yaml,
/// sorted by their name and overload.
std::span<const std::string_view> builtin_schemas();

/// The parsed schema of `builtin_schemas()[index]`: how the generated
/// fp::aten wrappers find theirs, with no lookup by name. Parses on first use;
/// thread-safe without a lock. Throws fp::Error for an index out of range.
const Schema& builtin_schema(std::size_t index);

/// A builtin ATen overload that not every torch from builtin_oldest_release()
/// on has; `key` is its name part, e.g. "qr.Q".
struct BuiltinAvailability {
  /// The overload's name part, e.g. "qr.Q".
  std::string_view key;
  /// The releases that have it.
  Availability availability;
};

/// Those overloads, sorted by key. Every other builtin schema is in every
/// release from builtin_oldest_release() on.
std::span<const BuiltinAvailability> builtin_availability();

/// The oldest torch release whose ops the builtin schemas were compared with
/// (the oldest one flash_powder supports).
TorchVersion builtin_oldest_release();

/// The torch release those schemas come from; fp::dispatch passes it to
/// libtorch, which adapts calls made with older schemas.
std::uint64_t builtin_schema_abi_version();

}  // namespace fp::abi
