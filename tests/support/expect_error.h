// EXPECT_FP_ERROR(message, statement): the statement throws fp::Error (or a
// type derived from it) whose what() contains `message`.
// EXPECT_FP_ERROR_EXACT(message, statement): what() equals `message`.
// The statement comes last so that commas inside it need no parentheses.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "flash_powder/abi/error.h"

namespace fp_test {

template <class Statement>
void expect_error(const char* file, int line, Statement&& statement, const std::string& message,
                  bool exact) {
  ::testing::ScopedTrace trace(file, line, "EXPECT_FP_ERROR");
  try {
    statement();
  } catch (const fp::Error& error) {
    const std::string what = error.what();
    if (exact) {
      EXPECT_EQ(what, message);
    } else {
      EXPECT_NE(what.find(message), std::string::npos)
          << "the fp::Error says:\n  " << what << "\nwhich does not contain:\n  " << message;
    }
    return;
  } catch (const std::exception& other) {
    ADD_FAILURE() << "expected fp::Error, got another exception: " << other.what();
    return;
  }
  ADD_FAILURE() << "expected fp::Error containing \"" << message << "\", nothing was thrown";
}

}  // namespace fp_test

#define EXPECT_FP_ERROR(message, ...) \
  ::fp_test::expect_error(            \
      __FILE__, __LINE__, [&] { __VA_ARGS__; }, (message), false)
#define EXPECT_FP_ERROR_EXACT(message, ...) \
  ::fp_test::expect_error(                  \
      __FILE__, __LINE__, [&] { __VA_ARGS__; }, (message), true)
