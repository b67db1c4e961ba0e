// abi::check and libtorch's error messages.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <flash_powder/flash_powder.h>

#include "support/expect_error.h"

namespace {

TEST(Error, CheckPassesSuccess) {
  EXPECT_NO_THROW(fp::abi::check(0, "anything"));
}

TEST(Error, CheckThrowsWithTheOperationAndLibtorchsMessage) {
  /*
  #|PYTHON
  try:
      torch.empty(2).view(3)
  except RuntimeError as e:
      message = str(e)
  */
  // Make libtorch fail once so that its message slot holds something known.
  EXPECT_ANY_THROW(
      fp::dispatch<fp::Tensor>("aten::view", "", fp::tensor({1.f, 2.f}), std::vector<int64_t>{3}));
  const std::string expected = "shape '[3]' is invalid for input of size 2";  // #PYTHON message
  EXPECT_EQ(fp::abi::last_torch_error(), fp_test::torch_message(expected));
  EXPECT_TORCH_ERROR_EXACT("my_shim_call", expected, fp::abi::check(1, "my_shim_call"));
}

TEST(Error, CarriesACodeBesideItsMessage) {
  const fp::Error error(fp::ErrorCode::Format, "fp::image::decode_png: x.png: corrupt PNG");
  EXPECT_EQ(error.code(), fp::ErrorCode::Format);
  EXPECT_STREQ(error.what(), "fp::image::decode_png: x.png: corrupt PNG");
  try {
    fp::abi::check(1, "op");
    FAIL() << "check(1) did not throw";
  } catch (const fp::Error& failure) {
    EXPECT_EQ(failure.code(), fp::ErrorCode::TorchError);
  }
}

TEST(Error, EveryCodeHasItsName) {
  const std::vector<std::pair<fp::ErrorCode, std::string>> names = {
      {fp::ErrorCode::BadArgument, "BadArgument"},
      {fp::ErrorCode::TorchError, "TorchError"},
      {fp::ErrorCode::OpNotFound, "OpNotFound"},
      {fp::ErrorCode::UnsupportedByTorch, "UnsupportedByTorch"},
      {fp::ErrorCode::Unsupported, "Unsupported"},
      {fp::ErrorCode::Borrow, "Borrow"},
      {fp::ErrorCode::Io, "Io"},
      {fp::ErrorCode::Format, "Format"},
      {fp::ErrorCode::OutOfMemory, "OutOfMemory"}};
  for (const auto& [code, name] : names) {
    EXPECT_EQ(fp::name(code), name);
    std::ostringstream printed;
    printed << code;
    EXPECT_EQ(printed.str(), "fp::ErrorCode::" + name);
  }
  EXPECT_EQ(fp::name(static_cast<fp::ErrorCode>(200)), "ErrorCode(?)");
}

TEST(Error, ErrorIsARuntimeError) {
  try {
    fp::abi::check(1, "op");
    FAIL() << "check(1) did not throw";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()).rfind("op: ", 0), 0u);
  }
}

TEST(Error, MessagesCarryNoBacktrace) {
  try {
    fp::dispatch<fp::Tensor>("aten::mm", "", fp::tensor({1.f}), fp::tensor({1.f}));
    FAIL() << "mm of two vectors did not throw";
  } catch (const fp::Error& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.find("Exception raised from"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

}  // namespace
