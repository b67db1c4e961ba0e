// FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS(): for a test whose
// point is to send a `str` through torch_call_dispatcher where no stable route
// avoids it (an error about the string itself, gelu's tanh, a custom op's
// string, or the op a string-free route is compared with): libtorch
// 2.10-2.13 leak each such string (48 bytes), and neither the valgrind lane
// nor the sanitizer lane's LeakSanitizer suppresses that leak, so that they
// catch any such call flash_powder makes itself. Such a test runs in every
// other lane, and under the leak checkers with torch 2.14 and later.
#pragma once

#include <gtest/gtest.h>
#include <valgrind/valgrind.h>

#include "flash_powder/abi/runtime.h"

namespace fp_test {

/// Whether this process checks for leaks: under valgrind, or built with
/// AddressSanitizer (whose LeakSanitizer checks at exit).
inline bool checks_leaks() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return RUNNING_ON_VALGRIND != 0;
}

}  // namespace fp_test

#define FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS()                      \
  do {                                                                               \
    if (::fp_test::checks_leaks() && ::fp::torch_leaks_string_arguments()) {         \
      GTEST_SKIP() << "passes a str through torch_call_dispatcher, which torch "     \
                   << ::fp::torch_version().str() << " leaks (libtorch's own leak)"; \
    }                                                                                \
  } while (false)
