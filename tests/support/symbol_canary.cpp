// Deliberately references a libtorch C++ symbol, so that the test
// abi_symbols_canary can show tools/check_abi_symbols.py catches one.
// It is built apart from the library and never linked into anything.
#include <cstdint>
#include <string>

namespace c10::detail {
[[noreturn]] void torchCheckFail(const char* func, const char* file, std::uint32_t line,
                                 const std::string& message);
}  // namespace c10::detail

void fp_symbol_canary() {
  c10::detail::torchCheckFail("canary", __FILE__, __LINE__, "canary");
}
