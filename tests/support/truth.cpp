// Reads the run-time truth cache that tools/python_truth.py evaluate writes.
#include "support/truth.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <utility>

#ifndef FP_TRUTH_DIR
#error "FP_TRUTH_DIR must name the folder of the truth caches (the build's truth/)"
#endif

namespace fp_test {
namespace {

// Must match CPU_SETTINGS and cache_file_name() in tools/python_truth.py.
constexpr const char* cpu_settings[] = {"ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS",
                                        "ONEDNN_MAX_CPU_ISA", "MKL_CBWR"};

std::string file_name_part(std::string text) {
  for (char& c : text) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '.';
    if (!plain) c = '_';
  }
  return text;
}

std::string setting(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : "auto";
}

using truth_detail::Value;

Value from_json(const nlohmann::json& json) {
  Value value;
  switch (json.type()) {
    case nlohmann::json::value_t::null:
      break;
    case nlohmann::json::value_t::boolean:
      value.kind = Value::Kind::Bool;
      value.boolean = json.get<bool>();
      break;
    case nlohmann::json::value_t::number_integer:
      value.kind = Value::Kind::Int;
      value.integer = json.get<std::int64_t>();
      break;
    case nlohmann::json::value_t::number_unsigned:
      value.kind = Value::Kind::UInt;
      value.unsigned_integer = json.get<std::uint64_t>();
      if (value.unsigned_integer <= static_cast<std::uint64_t>(INT64_MAX)) {
        value.kind = Value::Kind::Int;
        value.integer = static_cast<std::int64_t>(value.unsigned_integer);
      }
      break;
    case nlohmann::json::value_t::number_float:
      value.kind = Value::Kind::Float;
      value.number = json.get<double>();
      break;
    case nlohmann::json::value_t::string:
      value.kind = Value::Kind::String;
      value.text = json.get<std::string>();
      break;
    case nlohmann::json::value_t::array:
      value.kind = Value::Kind::List;
      for (const auto& item : json)
        value.items.push_back(from_json(item));
      break;
    case nlohmann::json::value_t::object:
      // The tagged forms python_truth.py's to_json() writes.
      if (json.contains("complex")) {
        value.kind = Value::Kind::Complex;
        for (const auto& part : json["complex"])
          value.items.push_back(from_json(part));
      } else if (json.contains("dtype")) {
        value.kind = Value::Kind::DType;
        value.text = json["dtype"].get<std::string>();
      } else if (json.contains("device")) {
        value.kind = Value::Kind::Device;
        value.text = json["device"].get<std::string>();
      } else {
        throw std::runtime_error("truth cache: unknown tagged value " + json.dump());
      }
      break;
    default:
      throw std::runtime_error("truth cache: unexpected value " + json.dump());
  }
  return value;
}

std::string describe(const Value& value) {
  switch (value.kind) {
    case Value::Kind::None:
      return "None";
    case Value::Kind::Bool:
      return value.boolean ? "True" : "False";
    case Value::Kind::Int:
      return std::to_string(value.integer);
    case Value::Kind::UInt:
      return std::to_string(value.unsigned_integer);
    case Value::Kind::Float:
      return std::to_string(value.number);
    case Value::Kind::String:
      return "'" + value.text + "'";
    case Value::Kind::DType:
      return "torch." + value.text;
    case Value::Kind::Device:
      return "device('" + value.text + "')";
    case Value::Kind::Complex:
      return "complex";
    case Value::Kind::List: {
      std::string text = "[";
      for (std::size_t i = 0; i < value.items.size() && text.size() < 200; ++i)
        text += (i ? ", " : "") + describe(value.items[i]);
      return text + "]";
    }
  }
  return "?";
}

// The cache holds every test's values (tens of megabytes): a process parses
// only the entries of the tests it runs. Loading indexes the file (where each
// test's entry lies), and the first lookup in a test parses that entry. A full
// parse took 0.5 s of every test process, and a minute or two under valgrind.
class Cache {
 public:
  explicit Cache(std::string path) : path_(std::move(path)) {
    std::ifstream file(path_, std::ios::binary);
    if (!file) {
      throw std::runtime_error(
          "no truth cache " + path_ +
          " for this torch and these CPU settings; CTest's truth_cache fixture writes it (run "
          "the test through ctest or scripts/test, or `tools/python_truth.py evaluate tests "
          "--cache-dir <build>/truth` with the same torch and environment)");
    }
    text_.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    index_entries();
  }

  const std::string& path() const { return path_; }

  /// The values of `test` ("Suite.Name"), or nullptr if the cache has none.
  const std::map<std::string, Value, std::less<>>* values_of(const std::string& test) const {
    const std::lock_guard lock(mutex_);
    if (const auto done = parsed_.find(test); done != parsed_.end()) return &done->second;
    const auto entry = entries_.find(test);
    if (entry == entries_.end()) return nullptr;
    auto& values = parsed_[test];
    try {
      const nlohmann::json parsed = nlohmann::json::parse(entry->second);
      for (const auto& [expression, value] : parsed.at("values").items())
        values.emplace(expression, from_json(value));
    } catch (const nlohmann::json::exception& error) {
      parsed_.erase(test);
      unreadable(error.what());
    }
    return &values;
  }

 private:
  [[noreturn]] void unreadable(const std::string& why) const {
    throw std::runtime_error("truth cache " + path_ + " is unreadable: " + why);
  }

  std::size_t skip_space(std::size_t at) const {
    while (at < text_.size() &&
           (text_[at] == ' ' || text_[at] == '\n' || text_[at] == '\r' || text_[at] == '\t'))
      ++at;
    return at;
  }

  void expect(std::size_t at, char c) const {
    if (at >= text_.size() || text_[at] != c)
      unreadable("expected '" + std::string(1, c) + "' at byte " + std::to_string(at));
  }

  /// The end of the string that starts at `at` (its opening quote).
  std::size_t skip_string(std::size_t at) const {
    expect(at, '"');
    for (++at; at < text_.size(); ++at) {
      if (text_[at] == '\\') {
        ++at;
      } else if (text_[at] == '"') {
        return at + 1;
      }
    }
    unreadable("a string runs to the end of the file");
  }

  /// The end of the value that starts at `at`: strings and nesting are
  /// followed; nlohmann::json checks the rest when the entry is parsed.
  std::size_t skip_value(std::size_t at) const {
    if (at < text_.size() && text_[at] == '"') return skip_string(at);
    std::size_t depth = 0;
    for (; at < text_.size(); ++at) {
      const char c = text_[at];
      if (c == '"') {
        at = skip_string(at) - 1;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (depth == 0) return at;
        if (--depth == 0) return at + 1;
      } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
        return at;
      }
    }
    if (depth != 0) unreadable("an object or array runs to the end of the file");
    return at;
  }

  /// Calls `member(key, value_begin, value_end)` for each member of the
  /// object at `at`; returns the object's end.
  template <class Member>
  std::size_t for_each_member(std::size_t at, Member member) const {
    at = skip_space(at);
    expect(at, '{');
    at = skip_space(at + 1);
    if (at < text_.size() && text_[at] == '}') return at + 1;
    while (true) {
      const std::size_t key_end = skip_string(at);
      const auto key = nlohmann::json::parse(text_.begin() + static_cast<std::ptrdiff_t>(at),
                                             text_.begin() + static_cast<std::ptrdiff_t>(key_end))
                           .get<std::string>();
      at = skip_space(key_end);
      expect(at, ':');
      const std::size_t value_begin = skip_space(at + 1);
      const std::size_t value_end = skip_value(value_begin);
      member(key, value_begin, value_end);
      at = skip_space(value_end);
      if (at < text_.size() && text_[at] == '}') return at + 1;
      expect(at, ',');
      at = skip_space(at + 1);
    }
  }

  void index_entries() {
    bool found = false;
    try {
      for_each_member(0, [&](const std::string& key, std::size_t begin, std::size_t) {
        if (key != "tests") return;
        found = true;
        for_each_member(
            begin, [&](const std::string& test, std::size_t value_begin, std::size_t value_end) {
              entries_.emplace(
                  test, std::string_view(text_).substr(value_begin, value_end - value_begin));
            });
      });
    } catch (const nlohmann::json::exception& error) {
      unreadable(error.what());
    }
    if (!found) unreadable("no \"tests\" object");
  }

  std::string path_;
  std::string text_;
  // Per test ("Suite.Name"): its entry's text, and once looked up, its values.
  std::map<std::string, std::string_view, std::less<>> entries_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::map<std::string, Value, std::less<>>, std::less<>> parsed_;
};

const Cache& cache() {
  static const Cache loaded(truth_cache_path());
  return loaded;
}

/// "Suite.Name" as written in the TEST macro: parameterised and typed tests
/// run as "Prefix/Suite.Name/0" or "Suite/0.Name", and share one Python namespace.
std::string current_test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) throw std::runtime_error("truth<T>() is only available inside a test");
  std::string suite = info->test_suite_name();
  std::string name = info->name();
  if (info->value_param() != nullptr && suite.find('/') != std::string::npos)
    suite = suite.substr(suite.find('/') + 1);
  if (info->type_param() != nullptr && suite.rfind('/') != std::string::npos)
    suite = suite.substr(0, suite.rfind('/'));
  if (name.find('/') != std::string::npos) name = name.substr(0, name.find('/'));
  return suite + "." + name;
}

}  // namespace

std::string truth_cache_path() {
  const char* directory = std::getenv("FP_TRUTH_DIR");
  std::string path = directory != nullptr && *directory != '\0' ? directory : FP_TRUTH_DIR;
  path += "/truth-" + file_name_part(fp::torch_version().str());
  for (const char* name : cpu_settings)
    path += "-" + file_name_part(setting(name));
  return path + ".json";
}

namespace truth_detail {

const Value& lookup(std::string_view expression) {
  const Cache& loaded = cache();
  const std::string test = current_test_name();
  const auto* values = loaded.values_of(test);
  if (values == nullptr) {
    throw std::runtime_error("truth cache " + loaded.path() + " has no values for " + test +
                             "; is it stale? (CTest's truth_cache fixture rewrites it)");
  }
  const auto value = values->find(expression);
  if (value == values->end()) {
    throw std::runtime_error("truth cache " + loaded.path() + " has no value of `" +
                             std::string(expression) + "` in " + test);
  }
  return value->second;
}

void conversion_error(const Value& value, std::string_view wanted) {
  throw std::runtime_error("truth: the Python value " + describe(value) + " is not " +
                           std::string(wanted));
}

fp::DType dtype(const Value& value) {
  if (value.kind == Value::Kind::DType) {
    for (const fp::DType candidate : fp::all_dtypes) {
      if (fp::name(candidate) == value.text) return candidate;
    }
  }
  conversion_error(value, "a torch.dtype flash_powder knows");
}

fp::Device device(const Value& value) {
  if (value.kind != Value::Kind::Device) conversion_error(value, "a torch.device");
  return fp::Device::parse(value.text);
}

}  // namespace truth_detail
}  // namespace fp_test
