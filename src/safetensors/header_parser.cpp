// The JSON header, read with nlohmann::json's event (SAX) interface rather
// than into a DOM: the events let us see duplicate keys (a DOM keeps one of
// them silently), keep the header's order of the tensors, and reject a
// malformed entry the moment it appears, without building a tree of a
// hostile 100 MB header first.
#include "header_parser.h"

#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages.h"

namespace fp::safetensors::detail {
namespace {

using Json = nlohmann::json;

/// The deepest nesting the reference implementation's JSON parser
/// (serde_json, with its recursion limit) accepts.
constexpr std::size_t max_depth = 127;

/// The container the parser is in.
enum class Scope { Top, Metadata, Entry, Shape, Offsets };

/// What the next value (after a key) fills.
enum class Slot { Document, Tensor, Metadata, MetadataValue, DType, Shape, Offsets, Ignored };

/// One tensor entry while its fields arrive.
struct PendingEntry {
  TensorInfo info;
  bool has_dtype = false;
  bool has_shape = false;
  bool has_offsets = false;
  std::unordered_set<std::string> other_fields;
};

class HeaderReader {
 public:
  // --- nlohmann's SAX interface: each returns false to stop parsing ---------
  bool null() { return scalar("null"); }
  bool boolean(bool) { return scalar("a boolean"); }
  bool number_integer(Json::number_integer_t value) {
    return number(value == 0 ? "-0" : std::to_string(value), std::nullopt);
  }
  bool number_unsigned(Json::number_unsigned_t value) {
    return number(std::to_string(value), value);
  }
  bool number_float(Json::number_float_t, const Json::string_t& text) {
    return number(text, std::nullopt);
  }
  bool string(Json::string_t& value);
  bool binary(Json::binary_t&) { return scalar("binary data"); }
  bool start_object(std::size_t);
  bool key(Json::string_t& name);
  bool end_object();
  bool start_array(std::size_t);
  bool end_array();
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
    std::string what = error.what();
    if (what.size() > 300) what = what.substr(0, 300) + "...";
    return fail("the header is not valid JSON: " + what);
  }

  Header take() { return std::move(header_); }
  const std::string& error() const { return error_; }

 private:
  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }
  bool fail_tensor(const std::string& message) {
    return fail("tensor " + in_quotes(entry_.info.name) + ": " + message);
  }
  /// Fails when one more level of nesting would go past max_depth.
  bool deeper() {
    if (scopes_.size() + ignored_depth_ < max_depth) return true;
    return fail("the header nests objects and lists deeper than " + std::to_string(max_depth) +
                " levels");
  }
  bool in_array() const {
    return !scopes_.empty() && (scopes_.back() == Scope::Shape || scopes_.back() == Scope::Offsets);
  }
  bool scalar(const char* kind);
  bool number(const std::string& text, std::optional<std::uint64_t> value);
  bool array_element(const std::string& kind, std::optional<std::uint64_t> value);
  bool wrong_type(const std::string& kind);
  bool top_level_key(const std::string& name);
  bool entry_field(const std::string& name);
  bool finish_entry();

  Header header_;
  std::string error_;
  std::vector<Scope> scopes_;
  Slot slot_ = Slot::Document;
  // Nesting depth inside the value of an unknown entry field, which is skipped.
  std::size_t ignored_depth_ = 0;
  std::size_t offsets_seen_ = 0;
  std::unordered_set<std::string> top_level_keys_;
  std::string metadata_key_;
  PendingEntry entry_;
};

bool HeaderReader::scalar(const char* kind) {
  if (ignored_depth_ > 0 || slot_ == Slot::Ignored) return true;
  if (in_array()) return array_element(kind, std::nullopt);
  return wrong_type(kind);
}

bool HeaderReader::number(const std::string& text, std::optional<std::uint64_t> value) {
  if (ignored_depth_ > 0 || slot_ == Slot::Ignored) return true;
  if (in_array()) return array_element("the number " + text, value);
  return wrong_type("the number " + text);
}

bool HeaderReader::array_element(const std::string& kind, std::optional<std::uint64_t> value) {
  if (scopes_.back() == Scope::Shape) {
    if (!value) {
      return fail_tensor("\"shape\" must be a list of non-negative integers; it holds " + kind);
    }
    if (*value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return fail_tensor("the dimension " + std::to_string(*value) +
                         " in \"shape\" does not fit int64");
    }
    entry_.info.shape.push_back(static_cast<std::int64_t>(*value));
    return true;
  }
  if (!value) {
    return fail_tensor("\"data_offsets\" must be a list of two non-negative integers; it holds " +
                       kind);
  }
  if (offsets_seen_ == 0) entry_.info.begin = *value;
  if (offsets_seen_ == 1) entry_.info.end = *value;
  ++offsets_seen_;
  return true;
}

bool HeaderReader::wrong_type(const std::string& kind) {
  switch (slot_) {
    case Slot::Document:
      return fail("the header is not a JSON object");
    case Slot::Tensor:
      return fail_tensor("the entry must be an object with dtype, shape and data_offsets, not " +
                         kind);
    case Slot::Metadata:
      return fail("\"__metadata__\" must be an object mapping strings to strings, not " + kind);
    case Slot::MetadataValue:
      return fail("\"__metadata__\": the value of " + in_quotes(metadata_key_) +
                  " must be a string, not " + kind);
    case Slot::DType:
      return fail_tensor("\"dtype\" must be a string, not " + kind);
    case Slot::Shape:
      return fail_tensor("\"shape\" must be a list of non-negative integers, not " + kind);
    case Slot::Offsets:
      return fail_tensor("\"data_offsets\" must be a list of two non-negative integers, not " +
                         kind);
    case Slot::Ignored:
      return true;
  }
  return true;
}

bool HeaderReader::string(Json::string_t& value) {
  if (ignored_depth_ > 0 || slot_ == Slot::Ignored) return true;
  if (in_array()) return array_element("a string", std::nullopt);
  if (slot_ == Slot::MetadataValue) {
    header_.metadata->emplace(std::move(metadata_key_), std::move(value));
    return true;
  }
  if (slot_ == Slot::DType) {
    const auto dtype = parse_file_dtype(value);
    if (!dtype) return fail_tensor("unknown dtype " + in_quotes(value));
    entry_.info.dtype = *dtype;
    return true;
  }
  return wrong_type("a string");
}

bool HeaderReader::start_object(std::size_t) {
  if (!deeper()) return false;
  if (ignored_depth_ > 0 || (slot_ == Slot::Ignored && !in_array())) {
    ++ignored_depth_;
    return true;
  }
  if (in_array()) return array_element("an object", std::nullopt);
  switch (slot_) {
    case Slot::Document:
      scopes_.push_back(Scope::Top);
      return true;
    case Slot::Metadata:
      header_.metadata.emplace();
      scopes_.push_back(Scope::Metadata);
      return true;
    case Slot::Tensor:
      scopes_.push_back(Scope::Entry);
      return true;
    default:
      return wrong_type("an object");
  }
}

bool HeaderReader::start_array(std::size_t) {
  if (!deeper()) return false;
  if (ignored_depth_ > 0 || (slot_ == Slot::Ignored && !in_array())) {
    ++ignored_depth_;
    return true;
  }
  if (in_array()) return array_element("a list", std::nullopt);
  if (slot_ == Slot::Shape) {
    scopes_.push_back(Scope::Shape);
    return true;
  }
  if (slot_ == Slot::Offsets) {
    offsets_seen_ = 0;
    scopes_.push_back(Scope::Offsets);
    return true;
  }
  return wrong_type("a list");
}

bool HeaderReader::key(Json::string_t& name) {
  if (ignored_depth_ > 0) return true;
  switch (scopes_.back()) {
    case Scope::Top:
      return top_level_key(name);
    case Scope::Metadata:
      if (header_.metadata->contains(name)) {
        return fail("\"__metadata__\": the key " + in_quotes(name) + " appears twice");
      }
      metadata_key_ = std::move(name);
      slot_ = Slot::MetadataValue;
      return true;
    case Scope::Entry:
      return entry_field(name);
    default:
      return true;  // arrays have no keys
  }
}

bool HeaderReader::top_level_key(const std::string& name) {
  if (!top_level_keys_.insert(name).second) {
    return fail("the key " + in_quotes(name) + " appears twice in the header");
  }
  if (name == "__metadata__") {
    slot_ = Slot::Metadata;
  } else {
    entry_ = PendingEntry{};
    entry_.info.name = name;
    slot_ = Slot::Tensor;
  }
  return true;
}

bool HeaderReader::entry_field(const std::string& name) {
  bool* seen = nullptr;
  if (name == "dtype") {
    seen = &entry_.has_dtype;
    slot_ = Slot::DType;
  } else if (name == "shape") {
    seen = &entry_.has_shape;
    slot_ = Slot::Shape;
  } else if (name == "data_offsets") {
    seen = &entry_.has_offsets;
    slot_ = Slot::Offsets;
  } else {
    // Unknown fields are ignored, as by the reference implementation.
    slot_ = Slot::Ignored;
    if (entry_.other_fields.insert(name).second) return true;
  }
  if (seen != nullptr && !*seen) {
    *seen = true;
    return true;
  }
  return fail_tensor("the field " + in_quotes(name) + " appears twice");
}

bool HeaderReader::end_array() {
  if (ignored_depth_ > 0) {
    --ignored_depth_;
    return true;
  }
  const Scope closed = scopes_.back();
  scopes_.pop_back();
  if (closed == Scope::Offsets && offsets_seen_ != 2) {
    return fail_tensor("\"data_offsets\" must hold two integers, not " +
                       std::to_string(offsets_seen_));
  }
  return true;
}

bool HeaderReader::end_object() {
  if (ignored_depth_ > 0) {
    --ignored_depth_;
    return true;
  }
  const Scope closed = scopes_.back();
  scopes_.pop_back();
  if (closed == Scope::Entry) return finish_entry();
  return true;
}

bool HeaderReader::finish_entry() {
  for (const auto& [present, field] :
       {std::pair{entry_.has_dtype, "\"dtype\""}, std::pair{entry_.has_shape, "\"shape\""},
        std::pair{entry_.has_offsets, "\"data_offsets\""}}) {
    if (!present) return fail_tensor(std::string("the entry lacks ") + field);
  }
  header_.tensors.push_back(std::move(entry_.info));
  entry_ = PendingEntry{};
  return true;
}

}  // namespace

Header parse_header_json(std::string_view json, std::string_view source) {
  HeaderReader reader;
  bool parsed = false;
  try {
    parsed =
        Json::sax_parse(json.begin(), json.end(), &reader, nlohmann::detail::input_format_t::json,
                        /*strict=*/true, /*ignore_comments=*/false);
  } catch (const nlohmann::json::exception& error) {
    throw Error(ErrorCode::Format,
                message_prefix(source) + "the header is not valid JSON: " + error.what());
  }
  if (!parsed) throw Error(ErrorCode::Format, message_prefix(source) + reader.error());
  return reader.take();
}

}  // namespace fp::safetensors::detail
