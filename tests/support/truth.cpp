// Reads the run-time truth cache that tools/python_truth.py evaluate writes.
#include "support/truth.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>

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

struct Cache {
  std::string path;
  // Per test ("Suite.Name"), per expression.
  std::map<std::string, std::map<std::string, Value, std::less<>>, std::less<>> tests;
};

const Cache& cache() {
  static const Cache loaded = [] {
    Cache result{truth_cache_path(), {}};
    std::ifstream file(result.path);
    if (!file) {
      throw std::runtime_error(
          "no truth cache " + result.path +
          " for this torch and these CPU settings; CTest's truth_cache fixture writes it (run "
          "the test through ctest or scripts/test, or `tools/python_truth.py evaluate tests "
          "--cache-dir <build>/truth` with the same torch and environment)");
    }
    try {
      const nlohmann::json parsed = nlohmann::json::parse(file);
      for (const auto& [test, entry] : parsed.at("tests").items()) {
        auto& values = result.tests[test];
        for (const auto& [expression, value] : entry.at("values").items())
          values.emplace(expression, from_json(value));
      }
    } catch (const nlohmann::json::exception& error) {
      throw std::runtime_error("truth cache " + result.path + " is unreadable: " + error.what());
    }
    return result;
  }();
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
  const auto entry = loaded.tests.find(test);
  if (entry == loaded.tests.end()) {
    throw std::runtime_error("truth cache " + loaded.path + " has no values for " + test +
                             "; is it stale? (CTest's truth_cache fixture rewrites it)");
  }
  const auto value = entry->second.find(expression);
  if (value == entry->second.end()) {
    throw std::runtime_error("truth cache " + loaded.path + " has no value of `" +
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
