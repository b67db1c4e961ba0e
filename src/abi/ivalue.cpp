#include "flash_powder/abi/ivalue.h"

#include <string>

#include "schema_error.h"

namespace fp::abi {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
// Clang 14 does not deduce an aggregate's template arguments (C++20's P1816).
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

std::string_view Arg::type_name() const {
  return std::visit(
      Overloaded{[](None) { return "None"; }, [](RawTensor) { return "Tensor"; },
                 [](std::int64_t) { return "int"; }, [](double) { return "float"; },
                 [](bool) { return "bool"; }, [](DType) { return "ScalarType"; },
                 [](Layout) { return "Layout"; }, [](MemoryFormat) { return "MemoryFormat"; },
                 [](Device) { return "Device"; }, [](const std::string&) { return "str"; },
                 [](RawGenerator) { return "Generator"; },
                 [](const std::vector<std::int64_t>&) { return "int[]"; },
                 [](const std::vector<double>&) { return "float[]"; },
                 [](const std::vector<bool>&) { return "bool[]"; },
                 [](const std::vector<RawTensor>&) { return "Tensor[]"; }},
      value);
}

std::string_view Returned::type_name() const {
  return std::visit(
      Overloaded{[](None) { return "None"; }, [](const TensorHandle&) { return "Tensor"; },
                 [](std::int64_t) { return "int"; }, [](double) { return "float"; },
                 [](bool) { return "bool"; }, [](DType) { return "ScalarType"; },
                 [](Layout) { return "Layout"; }, [](MemoryFormat) { return "MemoryFormat"; },
                 [](Device) { return "Device"; }, [](const std::string&) { return "str"; },
                 [](const GeneratorHandle&) { return "Generator"; },
                 [](const std::vector<TensorHandle>&) { return "Tensor[]"; },
                 [](const std::vector<std::int64_t>&) { return "int[]"; },
                 [](const std::vector<double>&) { return "float[]"; },
                 [](const std::vector<bool>&) { return "bool[]"; }},
      value);
}

void Results::fail(std::string_view problem) const {
  fail_against_schema(ErrorCode::BadArgument, op, problem, schema);
}

}  // namespace fp::abi
