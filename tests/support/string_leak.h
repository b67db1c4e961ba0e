// FP_SKIP_UNDER_VALGRIND_WHERE_TORCH_LEAKS_STRINGS(): for a test whose point
// is to send a `str` through torch_call_dispatcher where no stable route
// avoids it (an error message about the string itself, gelu's tanh, a custom
// op's string): libtorch 2.10-2.13 leak each such string (48 bytes), and the
// valgrind lane carries no suppression for that leak, so that it catches any
// call flash_powder makes itself. Such a test still runs everywhere else.
#pragma once

#include <gtest/gtest.h>
#include <valgrind/valgrind.h>

#include "flash_powder/abi/runtime.h"

#define FP_SKIP_UNDER_VALGRIND_WHERE_TORCH_LEAKS_STRINGS()                           \
  do {                                                                               \
    if (RUNNING_ON_VALGRIND && ::fp::torch_leaks_string_arguments()) {               \
      GTEST_SKIP() << "passes a str through torch_call_dispatcher, which torch "     \
                   << ::fp::torch_version().str() << " leaks (libtorch's own leak)"; \
    }                                                                                \
  } while (false)
