// fp::library::Library: op definitions and kernel bindings over
// abi::TorchLibrary, with the schema checks that keep a kernel from
// misreading its arguments.
#include "flash_powder/library/library.h"

#include <cstdio>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "abi/custom_schemas.h"
#include "abi/schema_error.h"
#include "flash_powder/abi/schema.h"

namespace fp::library {
namespace {

using Kind = abi::SchemaType::Kind;

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<std::string>& failed_registrations() {
  static std::vector<std::string> errors;
  return errors;
}

/// "scale.out" -> {"ns::scale", "out"}.
std::pair<std::string, std::string> split_name(const std::string& ns, std::string_view name) {
  const auto dot = name.find('.');
  std::string op = ns + "::" + std::string(name.substr(0, dot));
  std::string overload = dot == std::string_view::npos ? "" : std::string(name.substr(dot + 1));
  return {std::move(op), std::move(overload)};
}

/// The schema fp::dispatch knows for `op`.`overload`, or null.
const abi::Schema* known_schema(const std::string& op, const std::string& overload) {
  try {
    return &abi::find_schema(op, overload);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::OpNotFound) throw;
    return nullptr;
  }
}

/// A C++ parameter's schema type as the kernel's author would recognise it.
std::string kernel_spelling(const abi::SchemaType& type) {
  return type.spelling.find('!') != std::string::npos ? "Tensor(a!)" : type.spelling;
}

/// Same kinds all the way down (`int[2]` and `int[]` both read as lists of ints).
bool same_kind(const abi::SchemaType& op, const abi::SchemaType& kernel) {
  if (op.kind != kernel.kind) return false;
  if (op.kind == Kind::Optional || op.kind == Kind::List) {
    return same_kind(*op.element, *kernel.element);
  }
  return true;
}

[[noreturn]] void mismatch(const abi::Schema& op, std::string_view key,
                           const std::string& problem) {
  const std::string where = key.empty() ? "" : " (" + std::string(key) + ")";
  abi::fail_against_schema(ErrorCode::BadArgument, "fp::library",
                           "the kernel bound to " + op.qualified_name() + where +
                               " does not match its schema: " + problem,
                           op.text);
}

void check_argument(const abi::Schema& op, const abi::Schema& kernel, std::size_t i,
                    std::string_view key) {
  const abi::SchemaArgument& expected = op.arguments[i];
  const abi::SchemaType& given = kernel.arguments[i].type;
  const std::string which = "argument " + std::to_string(i) + " '" + expected.name + "'";
  if (expected.type.carries_unsupported()) {
    mismatch(op, key,
             which + " has type " + expected.type.spelling +
                 ", which libtorch's stable ABI cannot carry (a Scalar, Dimname, ...)");
  }
  if (!same_kind(expected.type, given)) {
    mismatch(op, key,
             which + " is " + expected.type.spelling + " but the C++ parameter reads " +
                 kernel_spelling(given));
  }
  if (expected.type.kind == Kind::Tensor && expected.type.is_mutable() != given.is_mutable()) {
    mismatch(
        op, key,
        expected.type.is_mutable()
            ? which + " is written (" + expected.type.spelling + "); take it as fp::TensorMutView"
            : which +
                  " is taken as fp::TensorMutView but the schema does not let the op "
                  "write it; declare it Tensor(a!)");
  }
}

void check_result(const abi::Schema& op, const abi::Schema& kernel, std::size_t i,
                  std::string_view key) {
  const abi::SchemaType& expected = op.returns[i].type;
  const abi::SchemaType& given = kernel.returns[i].type;
  const std::string which = "result " + std::to_string(i);
  if (!expected.alias.empty()) {
    mismatch(op, key,
             which + " (" + expected.spelling +
                 ") shares memory with an argument, which a kernel cannot return; let the op "
                 "return () and write its Tensor(a!) argument");
  }
  if (expected.carries_unsupported() || !same_kind(expected, given)) {
    mismatch(op, key,
             which + " is " + expected.spelling + " but the C++ kernel returns " + given.spelling);
  }
}

}  // namespace

std::string_view name(DispatchKey key) {
  switch (key) {
    case DispatchKey::CPU:
      return "CPU";
    case DispatchKey::CUDA:
      return "CUDA";
    case DispatchKey::Meta:
      return "Meta";
    case DispatchKey::CompositeExplicitAutograd:
      return "CompositeExplicitAutograd";
    case DispatchKey::CompositeImplicitAutograd:
      return "CompositeImplicitAutograd";
  }
  return "?";
}

namespace detail {

void check_kernel_matches(const abi::Schema& op, const abi::Schema& kernel, std::string_view key) {
  if (op.arguments.size() != kernel.arguments.size()) {
    mismatch(op, key,
             "it has " + std::to_string(op.arguments.size()) + " arguments, the C++ kernel " +
                 std::to_string(kernel.arguments.size()) + " parameters");
  }
  if (op.returns.size() != kernel.returns.size()) {
    mismatch(op, key,
             "it returns " + std::to_string(op.returns.size()) + " values, the C++ kernel " +
                 std::to_string(kernel.returns.size()) + " (" + kernel.text + ")");
  }
  for (std::size_t i = 0; i < op.arguments.size(); ++i)
    check_argument(op, kernel, i, key);
  for (std::size_t i = 0; i < op.returns.size(); ++i)
    check_result(op, kernel, i, key);
}

void check_on_first_call(KernelState& state, const abi::Schema& kernel) {
  const std::lock_guard lock(registry_mutex());
  if (state.checked) return;
  const auto dot = state.unchecked_op.find('.');
  const std::string op = state.unchecked_op.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : state.unchecked_op.substr(dot + 1);
  // An op defined from Python is unknown to flash_powder: only the argument
  // and result counts can be checked, at each call (abi::KernelStack).
  if (const abi::Schema* schema = known_schema(op, overload)) {
    check_kernel_matches(*schema, kernel, state.key);
  }
  state.checked = true;
}

}  // namespace detail

// ---------------------------------------------------------------------------

namespace {

/// The ops a library defined ("ns::name.overload"): libtorch takes them back
/// when the library is destroyed, and fp::dispatch must then refuse them
/// rather than box arguments for an op libtorch cannot find.
struct DefinedOps {
  std::vector<std::string> names;
  DefinedOps() = default;
  DefinedOps(const DefinedOps&) = delete;
  DefinedOps& operator=(const DefinedOps&) = delete;
  ~DefinedOps() {
    for (const std::string& name : names)
      abi::withdraw_schema(name);
  }
};

}  // namespace

struct Library::State {
  std::string ns;
  abi::TorchLibrary::Kind kind;
  std::string key;     // "" for DEF and FRAGMENT libraries
  DefinedOps defined;  // before `torch`: withdrawn after libtorch took them back
  abi::TorchLibrary torch;
  bool tags_dropped = false;

  State(std::string ns_, abi::TorchLibrary::Kind kind_, std::string key_, const char* file,
        std::uint32_t line)
      : ns(std::move(ns_)), kind(kind_), key(std::move(key_)), torch(kind, ns, key, file, line) {}
};

Library::Library(std::unique_ptr<State> state) : state_(std::move(state)) {}
Library::Library(Library&&) noexcept = default;
Library& Library::operator=(Library&&) noexcept = default;
Library::~Library() = default;

Library Library::define(std::string ns, const char* file, std::uint32_t line) {
  return Library(
      std::make_unique<State>(std::move(ns), abi::TorchLibrary::Kind::Def, "", file, line));
}

Library Library::fragment(std::string ns, const char* file, std::uint32_t line) {
  return Library(
      std::make_unique<State>(std::move(ns), abi::TorchLibrary::Kind::Fragment, "", file, line));
}

Library Library::implement(std::string ns, DispatchKey key, const char* file, std::uint32_t line) {
  return Library(std::make_unique<State>(std::move(ns), abi::TorchLibrary::Kind::Impl,
                                         std::string(name(key)), file, line));
}

const std::string& Library::ns() const {
  return state_->ns;
}

bool Library::tags_dropped() const {
  return state_->tags_dropped;
}

Library& Library::def(std::string_view schema, std::initializer_list<Tag> tags) {
  if (state_->kind == abi::TorchLibrary::Kind::Impl) {
    throw Error(ErrorCode::BadArgument,
                "fp::library: " + std::string(schema) + " is defined in a library of kernels for " +
                    state_->key + "; define ops in FP_LIBRARY or FP_LIBRARY_FRAGMENT");
  }
  // Parsed first, so that a syntax error or a type the stable ABI cannot
  // carry is refused with flash_powder's message before libtorch sees it.
  const std::string qualified = state_->ns + "::" + std::string(schema);
  const abi::Schema parsed = abi::Schema::parse(qualified, state_->ns);
  for (const auto& argument : parsed.arguments) {
    if (argument.type.carries_unsupported()) {
      throw Error(ErrorCode::BadArgument,
                  "fp::library: " + parsed.qualified_name() + ": argument '" + argument.name +
                      "' has type " + argument.type.spelling +
                      ", which libtorch's stable ABI cannot carry (a Scalar, Dimname, ...); the "
                      "schema is " +
                      std::string(schema));
    }
  }
  const std::vector<Tag> tag_list(tags);
  const bool tagged = state_->torch.def(std::string(schema), tag_list);
  state_->tags_dropped = state_->tags_dropped || !tagged;
  abi::register_schema(qualified);
  state_->defined.names.push_back(parsed.qualified_name());
  return *this;
}

void Library::bind(std::string_view name, const abi::Schema& kernel, detail::KernelState& state,
                   abi::BoxedKernel boxed) {
  const auto [op, overload] = split_name(state_->ns, name);
  const std::string key = state_->key.empty() ? "every dispatch key" : state_->key;
  {
    const std::lock_guard lock(registry_mutex());
    if (const abi::Schema* schema = known_schema(op, overload)) {
      detail::check_kernel_matches(*schema, kernel, key);
      if (state.unchecked_op.empty()) state.checked = true;
    } else if (state.unchecked_op.empty()) {
      state.unchecked_op = overload.empty() ? op : op + "." + overload;
      state.key = key;
      state.checked = false;
    }
  }
  state_->torch.impl(std::string(name), boxed);
}

bool Library::set_python_module(const std::string& module, const std::string& context) {
  return state_->torch.set_python_module(module, context);
}

std::vector<std::string> registration_errors() {
  const std::lock_guard lock(registry_mutex());
  return failed_registrations();
}

detail::StaticLibrary::StaticLibrary(Library (*make)(const char*, std::uint32_t), Block block,
                                     const char* file, std::uint32_t line) noexcept {
  try {
    library_ = std::make_unique<Library>(make(file, line));
    block(*library_);
  } catch (const std::exception& error) {
    const std::string message =
        std::string(file) + ":" + std::to_string(line) + ": " + error.what();
    std::fprintf(stderr, "flash_powder: registering custom ops failed: %s\n", message.c_str());
    try {
      const std::lock_guard lock(registry_mutex());
      failed_registrations().push_back(message);
    } catch (...) {
      // Out of memory while reporting: the message above is all there is.
    }
  }
}

}  // namespace fp::library
