// EXPECT_FP_ERROR(code, message, statement): the statement throws fp::Error
// (or a type derived from it) with code() == `code` and a what() that
// contains `message`.
// EXPECT_FP_ERROR_EXACT(code, message, statement): what() equals `message`.
// EXPECT_TORCH_ERROR(message, statement): code() is fp::ErrorCode::TorchError
// and what() contains `message`, libtorch's own text. torch before 2.13
// reports errors only on stderr, so with such a torch loaded what() must
// contain the documented stand-in (fp::abi::last_torch_error()) instead.
// EXPECT_TORCH_ERROR_EXACT(op, message, statement): code() is TorchError and
// what() equals "<op>: <message>", or "<op>: <that stand-in>" with torch
// before 2.13.
// The code is what a program decides by; the message is asserted where its
// words are the promise (an actionable message, libtorch's text carried
// through). The statement comes last so that commas inside it need no
// parentheses.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "flash_powder/abi/error.h"
#include "flash_powder/abi/runtime.h"

namespace fp_test {

template <class Statement>
void expect_error(const char* file, int line, Statement&& statement, fp::ErrorCode code,
                  const std::string& message, bool exact) {
  ::testing::ScopedTrace trace(file, line, "EXPECT_FP_ERROR");
  try {
    statement();
  } catch (const fp::Error& error) {
    EXPECT_EQ(error.code(), code) << "the fp::Error says: " << error.what();
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
  ADD_FAILURE() << "expected fp::Error (" << code << ") containing \"" << message
                << "\", nothing was thrown";
}

/// What a libtorch failure says in this process: `message`, or the stand-in
/// of a torch that reports errors only on stderr.
inline std::string torch_error_text(const std::string& message) {
  if (fp::torch_version() < fp::TorchVersion{2, 13, 0}) return "reports errors only on stderr";
  return message;
}

/// libtorch's `message` as this process reads it (fp::abi::last_torch_error()):
/// the message itself, or the stand-in of a torch before 2.13.
inline std::string torch_message(const std::string& message) {
  const fp::TorchVersion loaded = fp::torch_version();
  if (loaded < fp::TorchVersion{2, 13, 0}) {
    return "libtorch " + loaded.str() +
           " reports errors only on stderr (torch 2.13 and later say it here)";
  }
  return message;
}

/// "<op>: <message>" as fp::abi::throw_torch_error words it in this process.
inline std::string torch_error_exact(const std::string& op, const std::string& message) {
  return op + ": " + torch_message(message);
}

}  // namespace fp_test

#define EXPECT_FP_ERROR(code, message, ...) \
  ::fp_test::expect_error(                  \
      __FILE__, __LINE__, [&] { __VA_ARGS__; }, (code), (message), false)
#define EXPECT_FP_ERROR_EXACT(code, message, ...) \
  ::fp_test::expect_error(                        \
      __FILE__, __LINE__, [&] { __VA_ARGS__; }, (code), (message), true)
#define EXPECT_TORCH_ERROR(message, ...)                                     \
  ::fp_test::expect_error(                                                   \
      __FILE__, __LINE__, [&] { __VA_ARGS__; }, ::fp::ErrorCode::TorchError, \
      ::fp_test::torch_error_text(message), false)
#define EXPECT_TORCH_ERROR_EXACT(op, message, ...)                           \
  ::fp_test::expect_error(                                                   \
      __FILE__, __LINE__, [&] { __VA_ARGS__; }, ::fp::ErrorCode::TorchError, \
      ::fp_test::torch_error_exact(op, message), true)
