// What a package or a call cannot do is refused up front with an fp::Error
// that says what to do: never a crash, an out-of-bounds read or a wrong result.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "../../src/aoti/refusals.h"
#include "aoti/fixture.h"
#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using aoti_test::package;
using aoti_test::references;
namespace aoti = fp::aoti;

// --- packages -------------------------------------------------------------------

TEST(AotiRefusals, PackageWithoutSignatureNeedsConsent) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "has no signature (extra/flash_powder.json)",
                  aoti::Package::open(package("mlp_no_signature")));
  // With consent it runs, checking only the number of inputs.
  const auto model = aoti::Package::open(package("mlp_no_signature"), {.require_signature = false});
  EXPECT_FALSE(model.signature().has_value());
  const auto refs = references("mlp");
  aoti_test::expect_case(model, refs, "b7", 2, 2);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "takes 2 input tensor(s), got 1",
                  model(refs.at("in.b7.0")));
}

TEST(AotiRefusals, ForeignCpuInstructionSet) {
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "compiled for CPU instruction set",
                  aoti::Package::open(package("mlp_foreign_isa")));
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "which this CPU lacks",
                  aoti::Package::open(package("mlp_foreign_isa")));
}

TEST(AotiRefusals, InstructionSetsAreCheckedWordByWord) {
  /*
  #|PYTHON
  import torch._inductor.cpu_vec_isa as vec_isa
  */
  using fp::aoti::detail::cpu_supports;
  EXPECT_TRUE(cpu_supports(""));
  EXPECT_FALSE(cpu_supports("AVX2 NO_SUCH_FEATURE"));
  EXPECT_EQ(cpu_supports("AVX512 AVX512_VNNI AMX_TILE"),
            cpu_supports("AVX512") && cpu_supports("AVX512_VNNI") && cpu_supports("AMX_TILE"));
  // What Inductor compiles for on this machine (as packages record it) runs here.
  const auto here = fp_test::truth<std::string>("str(vec_isa.pick_vec_isa()).upper()");
  EXPECT_TRUE(cpu_supports(here)) << here;
}

TEST(AotiRefusals, MissingStableAbiFunctionIsNamed) {
  // The fixture renamed one of the library's imports and wrote the new name here.
  std::ifstream renamed(aoti_test::fixture_dir() / "packages" / "mlp_missing_symbol.symbol");
  std::string symbol;
  ASSERT_TRUE(std::getline(renamed, symbol)) << "the fixture wrote no mlp_missing_symbol.symbol";
  EXPECT_FP_ERROR(
      fp::ErrorCode::UnsupportedByTorch,
      "C function(s) the loaded torch " + fp::torch_version().str() + " lacks: " + symbol,
      aoti::Package::open(package("mlp_missing_symbol")));
}

TEST(AotiRefusals, ProxyExecutorOpsAreNamed) {
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "needs PyTorch's proxy executor",
                  aoti::Package::open(package("eigh")));
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "linalg_eigh", aoti::Package::open(package("eigh")));
}

TEST(AotiRefusals, WrongDevice) {
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported,
                  "compiled for device \"cpu\" but was opened for cuda:0",
                  aoti::Package::open(package("mlp"), {.device = fp::Device::cuda(0)}));
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "compiled for device \"cuda\" but was opened for cpu",
                  aoti::Package::open(package("mlp_cuda_metadata")));
}

TEST(AotiRefusals, MissingWeightsBlob) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "weights (",
                  aoti::Package::open(package("mlp_blob_missing")));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "has no *.wrapper_weights.blob",
                  aoti::Package::open(package("mlp_blob_missing")));
}

TEST(AotiRefusals, MissingFileAndNotAZip) {
  EXPECT_FP_ERROR(fp::ErrorCode::Io, "cannot open the package as a zip archive",
                  aoti::Package::open(package("no_such_package")));
  const std::string text = "not a zip archive, but long enough to hold an end record......";
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "cannot open the package as a zip archive: Not a zip archive",
                  aoti::Package::open(std::as_bytes(std::span(text))));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the package is empty (0 bytes)",
                  aoti::Package::open(std::span<const std::byte>()));
}

TEST(AotiRefusals, TruncatedPackage) {
  const auto bytes = aoti_test::file_bytes(package("mlp"));
  for (std::size_t keep :
       {bytes.size() - 1, bytes.size() - 100, bytes.size() / 2, std::size_t{30}}) {
    SCOPED_TRACE(keep);
    EXPECT_FP_ERROR(fp::ErrorCode::Format, "fp::aoti: <package in memory>: ",
                    aoti::Package::open(std::span(bytes).first(keep)));
  }
}

TEST(AotiRefusals, CorruptModelLibrary) {
  auto bytes = aoti_test::file_bytes(package("mlp"));
  // Flip a byte in the middle of the library: libzip's CRC check refuses it.
  const std::string elf =
      "\x7f"
      "ELF";
  const auto* begin = reinterpret_cast<const char*>(bytes.data());
  const auto at = std::string_view(begin, bytes.size()).find(elf);
  ASSERT_NE(at, std::string_view::npos);
  bytes[at + 4096] ^= std::byte{0x5a};
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "CRC",
                  aoti::Package::open(std::span<const std::byte>(bytes)));
}

TEST(AotiRefusals, ModelChoiceAndRunners) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "no model \"other\" in the package; it holds \"model\"",
                  aoti::Package::open(package("mlp"), {.model_name = "other"}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "num_runners must be at least 1",
                  aoti::Package::open(package("mlp"), {.num_runners = 0}));
}

// --- inputs ---------------------------------------------------------------------

class AotiInputs : public ::testing::Test {
 protected:
  aoti::Package mlp = aoti::Package::open(package("mlp"));
  aoti::Package cnn = aoti::Package::open(package("cnn"));
  fp::StateDict refs = references("mlp");
  const fp::Tensor& x() { return refs.at("in.b7.0"); }
  const fp::Tensor& y() { return refs.at("in.b7.1"); }
};

TEST_F(AotiInputs, WrongCount) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "takes 2 input tensor(s), got 1", mlp(x()));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "takes 2 input tensor(s), got 3", mlp(x(), y(), y()));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "takes 2 input tensor(s), got 0", mlp.run({}));
}

TEST_F(AotiInputs, WrongDtype) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "input 0 \"x\" must have dtype float32, not float64",
                  mlp(x().to(fp::DType::F64), y()));
}

TEST_F(AotiInputs, WrongDevice) {
  const fp::Tensor meta = fp::empty({7, 4}, fp::Device::meta());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "input 0 \"x\" must be on cpu (the model's device), not meta", mlp(meta, y()));
}

TEST_F(AotiInputs, WrongRank) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "input 1 \"y\" must have 2 dimensions, not 1",
                  mlp(x(), y().flatten()));
}

TEST_F(AotiInputs, WrongStaticSize) {
  const fp::Tensor wide = fp::zeros({7, 5});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "input 0 \"x\" has size 5 in dimension 1",
                  mlp(wide, y()));
  const fp::Tensor image = fp::zeros({3, 3, 8, 8});  // the cnn was exported with batch 2
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "has size 3 in dimension 0 (the exported shape is [2, 3, 8, 8]", cnn(image));
}

TEST_F(AotiInputs, DynamicSizeOutOfRange) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "has size 65 in dimension 0",
                  mlp(fp::zeros({65, 4}), fp::zeros({65, 3})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "has size 0 in dimension 0",
                  mlp(fp::zeros({0, 4}), fp::zeros({0, 3})));
}

TEST_F(AotiInputs, DimensionsThatMustBeEqual) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "input 1 \"y\" has size 3 in dimension 0, but input 0 \"x\" has size 7",
                  mlp(x(), fp::zeros({3, 3})));
}

TEST_F(AotiInputs, UndefinedTensor) {
  const fp::Tensor undefined;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "input 0 \"x\" is an undefined tensor",
                  mlp(undefined, y()));
}

TEST_F(AotiInputs, ValidCallStillWorksAfterRefusals) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "must have dtype", mlp(x().to(fp::DType::F64), y()));
  aoti_test::expect_case(mlp, refs, "b7", 2, 2);
}

}  // namespace
