// Parses op schemas in TorchScript's schema language and keeps the registry
// fp::dispatch checks calls against.
//
// Why this file is long: the parser (a recursive descent over the whole
// schema grammar: alias annotations, fixed-size lists, defaults) and the two
// registries it fills (the builtin table's lock-free slots, the custom ops'
// map) are one unit: Schema's private facts are set only here.
#include "flash_powder/abi/schema.h"
#include "flash_powder/abi/schema_types.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "custom_schemas.h"
#include "defaults.h"
#include "flash_powder/abi/error.h"

namespace fp::abi {
namespace {

using Kind = SchemaType::Kind;

/// The kind of a base type name (schema_types.h); Unsupported for the
/// types the stable ABI cannot carry (Scalar, Dimname, Storage, ...).
Kind kind_of_base(std::string_view base) {
  for (const auto& [name, kind] : schema_base_types) {
    if (name == base) return kind;
  }
  return Kind::Unsupported;
}

}  // namespace

/// Recursive descent over one schema string. Positions in errors are 0-based
/// offsets into the text.
class SchemaParser {
 public:
  explicit SchemaParser(std::string_view text) : text_(text) {}

  Schema parse(std::string_view default_namespace) {
    Schema schema;
    schema.text = std::string(text_);
    parse_name(schema, default_namespace);
    schema.op_name_ = schema.ns + "::" + schema.name;
    schema.qualified_ = schema.op_name_ + (schema.overload.empty() ? "" : "." + schema.overload);
    expect('(');
    parse_arguments(schema.arguments);
    expect(')');
    skip_space();
    expect_word("->");
    parse_returns(schema.returns);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the returns");
    schema.compute_call_facts();
    return schema;
  }

 private:
  [[noreturn]] void fail(std::string_view problem) const {
    throw Error(ErrorCode::BadArgument, "fp::abi::Schema::parse: " + std::string(problem) +
                                            " at position " + std::to_string(pos_) + " in \"" +
                                            std::string(text_) + "\"");
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  bool peek(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  bool accept(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }

  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }

  void expect_word(std::string_view word) {
    skip_space();
    if (text_.substr(pos_, word.size()) != word) fail("expected '" + std::string(word) + "'");
    pos_ += word.size();
  }

  std::string_view identifier() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (pos_ == start) fail("expected a name");
    return text_.substr(start, pos_ - start);
  }

  void parse_name(Schema& schema, std::string_view default_namespace) {
    std::string_view first = identifier();
    if (text_.substr(pos_, 2) == "::") {
      pos_ += 2;
      schema.ns = std::string(first);
      first = identifier();
    } else {
      schema.ns = std::string(default_namespace);
    }
    schema.name = std::string(first);
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      schema.overload = std::string(identifier());
    }
  }

  SchemaType parse_type() {
    skip_space();
    const std::size_t start = pos_;
    SchemaType type;
    type.kind = kind_of_base(identifier());
    if (peek('(')) type.alias = alias_annotation();
    for (;;) {
      skip_space();
      const std::size_t before = pos_;
      if (accept('?')) {
        type = wrap(std::move(type), Kind::Optional, -1, text_.substr(start, before - start));
      } else if (accept('[')) {
        std::int64_t fixed = -1;
        skip_space();
        if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
          fixed = std::stoll(std::string(identifier()));
        }
        expect(']');
        type = wrap(std::move(type), Kind::List, fixed, text_.substr(start, before - start));
        // An annotation may follow the brackets too: `Tensor[](a!)`.
        if (peek('(') && type.alias.empty()) type.alias = alias_annotation();
      } else {
        break;
      }
    }
    type.spelling = trimmed(text_.substr(start, pos_ - start));
    return type;
  }

  static std::string trimmed(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
      text.remove_suffix(1);
    }
    return std::string(text);
  }

  static SchemaType wrap(SchemaType inner, Kind kind, std::int64_t fixed,
                         std::string_view inner_spelling) {
    inner.spelling = trimmed(inner_spelling);
    SchemaType outer;
    outer.kind = kind;
    outer.fixed_size = fixed;
    outer.alias = inner.alias;  // the annotation applies to the value as a whole
    outer.element = std::make_shared<const SchemaType>(std::move(inner));
    return outer;
  }

  std::string alias_annotation() {
    expect('(');
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ')')
      ++pos_;
    if (pos_ == text_.size()) fail("unterminated alias annotation");
    std::string alias(text_.substr(start, pos_ - start));
    ++pos_;
    return alias;
  }

  // A default runs to the next ',' or ')' outside brackets and quotes.
  std::string default_value() {
    skip_space();
    const std::size_t start = pos_;
    int depth = 0;
    char quote = 0;
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (quote != 0) {
        if (c == '\\') {
          ++pos_;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '[' || c == '(') {
        ++depth;
      } else if (c == ']' || (c == ')' && depth > 0)) {
        --depth;
      } else if ((c == ',' || c == ')') && depth == 0) {
        break;
      }
    }
    if (quote != 0) fail("unterminated string in a default value");
    std::string_view value = text_.substr(start, pos_ - start);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) {
      value.remove_suffix(1);
    }
    if (value.empty()) fail("empty default value");
    return std::string(value);
  }

  void parse_arguments(std::vector<SchemaArgument>& arguments) {
    bool kwarg_only = false;
    if (peek(')')) return;
    do {
      if (accept('*')) {
        kwarg_only = true;
        continue;
      }
      SchemaArgument argument;
      argument.type = parse_type();
      argument.name = std::string(identifier());
      argument.kwarg_only = kwarg_only;
      if (accept('=')) argument.default_value = default_value();
      arguments.push_back(std::move(argument));
    } while (accept(','));
  }

  SchemaArgument parse_return() {
    SchemaArgument result;
    result.type = parse_type();
    skip_space();
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      result.name = std::string(identifier());
    }
    return result;
  }

  void parse_returns(std::vector<SchemaArgument>& returns) {
    // `(Tensor a, Tensor b)` is a tuple; `(Tensor(a!))`-less forms are a single type.
    skip_space();
    if (accept('(')) {
      if (accept(')')) return;
      do {
        returns.push_back(parse_return());
      } while (accept(','));
      expect(')');
    } else {
      returns.push_back(parse_return());
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

namespace {

/// The name part of a schema: "max.dim" from "max.dim(Tensor self, ...)".
std::string_view key_of(std::string_view schema_text) {
  return schema_text.substr(0, schema_text.find('('));
}

std::string key_of(std::string_view op, std::string_view overload) {
  std::string key;
  key.reserve(op.size() + 1 + overload.size());
  key.append(op);
  if (!overload.empty()) {
    key += '.';
    key.append(overload);
  }
  return key;
}

/// The position of `op.overload` among the builtin schemas, if it is one.
std::optional<std::size_t> builtin_index(std::string_view op, std::string_view overload) {
  constexpr std::string_view prefix = "aten::";
  if (op.substr(0, prefix.size()) != prefix) return std::nullopt;
  const std::string key = key_of(op.substr(prefix.size()), overload);
  const auto table = builtin_schemas();
  const auto found = std::lower_bound(
      table.begin(), table.end(), key,
      [](std::string_view entry, const std::string& wanted) { return key_of(entry) < wanted; });
  if (found == table.end() || key_of(*found) != key) return std::nullopt;
  return static_cast<std::size_t>(found - table.begin());
}

// The releases that have a builtin overload: most have been in every one
// since the oldest, so only the others are listed.
Availability availability_of(std::string_view key) {
  const auto table = builtin_availability();
  const auto found = std::lower_bound(
      table.begin(), table.end(), key,
      [](const BuiltinAvailability& entry, std::string_view wanted) { return entry.key < wanted; });
  if (found != table.end() && found->key == key) return found->availability;
  return {builtin_oldest_release(), std::nullopt};
}

}  // namespace

/// The builtin schemas, each parsed the first time it is asked for. A slot is
/// filled once with a compare-and-swap; a thread that loses the race drops
/// its own parse, so no lock is taken, ever.
class BuiltinSchemas {
 public:
  BuiltinSchemas() : slots_(builtin_schemas().size()) {}
  BuiltinSchemas(const BuiltinSchemas&) = delete;
  BuiltinSchemas& operator=(const BuiltinSchemas&) = delete;
  ~BuiltinSchemas() {
    for (auto& slot : slots_)
      delete slot.load(std::memory_order_acquire);
  }

  const Schema& at(std::size_t index) {
    if (index >= slots_.size()) {
      throw Error(ErrorCode::BadArgument, "fp::abi::builtin_schema: index " +
                                              std::to_string(index) + " is out of range (" +
                                              std::to_string(slots_.size()) + " schemas)");
    }
    std::atomic<const Schema*>& slot = slots_[index];
    if (const Schema* parsed = slot.load(std::memory_order_acquire)) return *parsed;
    const std::string_view text = builtin_schemas()[index];
    auto fresh = std::make_unique<Schema>(Schema::parse(text, "aten"));
    fresh->availability = availability_of(key_of(text));
    fresh->builtin_index_ = index;
    const Schema* expected = nullptr;
    if (slot.compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel)) {
      return *fresh.release();
    }
    return *expected;
  }

 private:
  std::vector<std::atomic<const Schema*>> slots_;
};

namespace {

BuiltinSchemas& builtin_registry() {
  static BuiltinSchemas instance;
  return instance;
}

/// The schemas of custom ops (register_schema): few, registered once, so a
/// lock guards them.
class Registry {
 public:
  const Schema& find(std::string_view op, std::string_view overload) {
    if (const auto index = builtin_index(op, overload)) return builtin_registry().at(*index);
    const std::string key = key_of(op, overload);
    std::lock_guard lock(mutex_);
    if (withdrawn_.contains(key)) {
      throw Error(ErrorCode::OpNotFound,
                  key +
                      ": libtorch no longer has this op: the fp::library::Library that "
                      "defined it was destroyed");
    }
    if (auto found = parsed_.find(key); found != parsed_.end()) return found->second;
    throw Error(ErrorCode::OpNotFound,
                key + ": no such op in the schemas flash_powder knows" + suggestions(op));
  }

  void withdraw(std::string_view key) {
    std::lock_guard lock(mutex_);
    if (parsed_.contains(std::string(key))) withdrawn_.emplace(key);
  }

  void add(std::string_view text) {
    Schema schema = Schema::parse(text, "");
    if (schema.ns.empty()) {
      throw Error(ErrorCode::BadArgument, "fp::abi::register_schema: \"" + std::string(text) +
                                              "\" needs a namespace, e.g. \"myops::" + schema.name +
                                              "(...)\"");
    }
    const std::string key = schema.qualified_name();
    const auto refuse = [&](const std::string& registered) {
      throw Error(ErrorCode::BadArgument, "fp::abi::register_schema: " + key +
                                              " is already registered as \"" + registered + "\"");
    };
    // An aten op newer than the builtin table may be registered; a builtin one
    // only as it is.
    if (const auto index = builtin_index(schema.op_name(), schema.overload)) {
      const Schema& builtin = builtin_registry().at(*index);
      const std::string_view unqualified =
          std::string_view(schema.text).substr(schema.ns.size() + 2);
      if (builtin.text != unqualified) refuse("aten::" + builtin.text);
      return;
    }
    std::lock_guard lock(mutex_);
    auto [where, inserted] = parsed_.try_emplace(key, schema);
    if (!inserted && where->second.text != schema.text) refuse(where->second.text);
    withdrawn_.erase(key);
  }

 private:
  // Lists the overloads of `op` so a user who got the overload name wrong sees
  // the right one. Called with the lock held.
  std::string suggestions(std::string_view op) const {
    std::string names;
    constexpr std::string_view prefix = "aten::";
    if (op.substr(0, prefix.size()) == prefix) {
      const std::string_view base = op.substr(prefix.size());
      for (std::string_view entry : builtin_schemas()) {
        const std::string_view key = key_of(entry);
        if (key == base || (key.substr(0, base.size()) == base && key.size() > base.size() &&
                            key[base.size()] == '.')) {
          const std::string_view overload =
              key.size() > base.size() ? key.substr(base.size() + 1) : std::string_view("\"\"");
          names += (names.empty() ? "" : ", ") + std::string(overload);
        }
      }
    }
    for (const auto& [key, schema] : parsed_) {
      if (schema.ns + "::" + schema.name == op) {
        names += (names.empty() ? "" : ", ") +
                 (schema.overload.empty() ? std::string("\"\"") : schema.overload);
      }
    }
    if (names.empty()) {
      return " (op names look like \"aten::add\"; custom ops need fp::abi::register_schema)";
    }
    return " (its overloads: " + names + ")";
  }

  std::mutex mutex_;
  // std::map never moves its nodes, so references handed out stay valid.
  std::map<std::string, Schema, std::less<>> parsed_;
  // Registered, but taken back from libtorch (withdraw_schema).
  std::set<std::string, std::less<>> withdrawn_;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

bool SchemaType::carries_unsupported() const {
  if (kind == Kind::Unsupported) return true;
  return element != nullptr && element->carries_unsupported();
}

namespace {

/// A type's spelling without its alias annotation: "Tensor(a!)" -> "Tensor".
std::string strip_alias(const std::string& spelling) {
  std::string out;
  int depth = 0;
  for (char c : spelling) {
    if (c == '(') ++depth;
    if (depth == 0) out += c;
    if (c == ')') --depth;
  }
  return out;
}

std::string problem_with_returns(const std::vector<SchemaArgument>& returns) {
  for (const auto& result : returns) {
    if (result.type.carries_unsupported()) {
      return "returns " + result.type.spelling + ", which libtorch's stable ABI cannot carry";
    }
  }
  // torch_call_dispatcher (2.13) pops results from the back of its stack but
  // takes their types from the front, so a result tuple whose types do not
  // read the same both ways fails inside libtorch after the op has run.
  for (std::size_t i = 0; i < returns.size() / 2; ++i) {
    const auto& front = returns[i].type.spelling;
    const auto& back = returns[returns.size() - 1 - i].type.spelling;
    if (strip_alias(front) != strip_alias(back)) {
      return "returns a tuple of mixed types, which libtorch's stable-ABI dispatcher converts in "
             "the wrong order (torch 2.13)";
    }
  }
  return "";
}

}  // namespace

void Schema::compute_call_facts() {
  required_ = 0;
  writes_ = false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (!arguments[i].default_value) required_ = i + 1;
    writes_ = writes_ || arguments[i].type.is_mutable();
  }
  stack_size_ = std::max(arguments.size(), returns.size());
  returns_problem_ = problem_with_returns(returns);
  defaults_ = parse_defaults(*this);
}

Schema Schema::parse(std::string_view text, std::string_view default_namespace) {
  return SchemaParser(text).parse(default_namespace);
}

const Schema& find_schema(std::string_view op, std::string_view overload) {
  return registry().find(op, overload);
}

const Schema& builtin_schema(std::size_t index) {
  return builtin_registry().at(index);
}

void register_schema(std::string_view text) {
  registry().add(text);
}

void withdraw_schema(std::string_view qualified_name) {
  registry().withdraw(qualified_name);
}

}  // namespace fp::abi
