// Schema parsing and the registry fp::dispatch checks calls against.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include "abi/testing.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "support/expect_error.h"

namespace {

using fp::TorchVersion;
using fp::abi::Availability;
using fp::abi::Schema;
using Kind = fp::abi::SchemaType::Kind;

TEST(Schema, ParsesNamesArgumentsDefaultsAndReturns) {
  const Schema schema = Schema::parse(
      "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  EXPECT_EQ(schema.ns, "aten");
  EXPECT_EQ(schema.name, "max");
  EXPECT_EQ(schema.overload, "dim");
  EXPECT_EQ(schema.qualified_name(), "aten::max.dim");
  ASSERT_EQ(schema.arguments.size(), 3u);
  EXPECT_EQ(schema.arguments[1].name, "dim");
  EXPECT_EQ(schema.arguments[1].type.kind, Kind::Int);
  EXPECT_EQ(schema.arguments[2].default_value, "False");
  EXPECT_EQ(schema.required_arguments(), 2u);
  ASSERT_EQ(schema.returns.size(), 2u);
  EXPECT_EQ(schema.returns[1].name, "indices");
}

TEST(Schema, ParsesNestedTypesAliasesAndKeywordOnlyArguments) {
  const Schema schema = Schema::parse(
      "aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False, "
      "*, int[2] stride=1, SymInt[1]? dims=None, str mode=\"a,b\") -> Tensor(a!)");
  const auto& self = schema.arguments[0].type;
  EXPECT_EQ(self.kind, Kind::Tensor);
  EXPECT_EQ(self.alias, "a!");
  EXPECT_TRUE(self.is_mutable());
  const auto& indices = schema.arguments[1].type;
  EXPECT_EQ(indices.kind, Kind::List);
  EXPECT_EQ(indices.element->kind, Kind::Optional);
  EXPECT_EQ(indices.element->element->kind, Kind::Tensor);
  EXPECT_EQ(indices.spelling, "Tensor?[]");
  EXPECT_FALSE(schema.arguments[3].kwarg_only);
  EXPECT_TRUE(schema.arguments[4].kwarg_only);
  EXPECT_EQ(schema.arguments[4].type.fixed_size, 2);
  EXPECT_EQ(schema.arguments[5].type.kind, Kind::Optional);
  EXPECT_EQ(schema.arguments[5].type.element->fixed_size, 1);
  EXPECT_EQ(schema.arguments[6].default_value, "\"a,b\"");
  EXPECT_EQ(schema.returns[0].type.alias, "a!");
}

TEST(Schema, MarksTypesTheStableAbiCannotCarry) {
  const Schema schema =
      Schema::parse("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_FALSE(schema.arguments[0].type.carries_unsupported());
  EXPECT_TRUE(schema.arguments[2].type.carries_unsupported());
  EXPECT_TRUE(Schema::parse("f(Dimname[]? names) -> ()").arguments[0].type.carries_unsupported());
  EXPECT_TRUE(Schema::parse("f(Tensor x) -> ()").returns.empty());
}

TEST(Schema, EveryBuiltinSchemaParses) {
  // That these are all of the build torch's schemas is what the CTest check
  // schemas_up_to_date proves (the table is generated from its yaml); here
  // they must all parse.
  const auto schemas = fp::abi::builtin_schemas();
  EXPECT_GT(schemas.size(), 2000u);
  for (std::string_view text : schemas) {
    EXPECT_NO_THROW(Schema::parse(text)) << text;
  }
}

TEST(Schema, FindsBuiltinSchemasByOpAndOverload) {
  const Schema& flip = fp::abi::find_schema("aten::flip", "");
  EXPECT_EQ(flip.text, "flip(Tensor self, int[] dims) -> Tensor");
  const Schema& mode = fp::abi::find_schema("aten::div", "Tensor_mode");
  EXPECT_EQ(mode.arguments[2].type.spelling, "str?");
  // The same object on every lookup: schemas are parsed once.
  EXPECT_EQ(&fp::abi::find_schema("aten::flip", ""), &flip);
}

TEST(Schema, BuiltinSchemasComeFromTheBuildTorch) {
  // TORCH_ABI_VERSION of the headers flash_powder was built with, whichever
  // torch is loaded: libtorch adapts calls made against older schemas.
  const fp::TorchVersion build = fp::torch_build_version();
  EXPECT_EQ(fp::abi::builtin_schema_abi_version(),
            (std::uint64_t(build.major) << 56) | (std::uint64_t(build.minor) << 48));
}

TEST(Schema, RegisteredSchemasAreFound) {
  fp::abi::register_schema("fp_test::scale(Tensor x, float factor=2.0) -> Tensor");
  // Registering the same text again is harmless.
  fp::abi::register_schema("fp_test::scale(Tensor x, float factor=2.0) -> Tensor");
  const Schema& scale = fp::abi::find_schema("fp_test::scale", "");
  EXPECT_EQ(scale.ns, "fp_test");
  EXPECT_EQ(scale.arguments[1].default_value, "2.0");
}

TEST(SchemaErrors, SyntaxErrorsNameThePosition) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected '(' at position 4 in \"flip\"",
                  Schema::parse("flip"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected '->' at position 18",
                  Schema::parse("flip(Tensor self) => Tensor"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected a name",
                  Schema::parse("f(Tensor) -> Tensor"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "unterminated alias annotation",
                  Schema::parse("f(Tensor(a!"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "unterminated string in a default value",
                  Schema::parse("f(str x=\"abc) -> Tensor"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "unexpected text after the returns",
                  Schema::parse("f() -> Tensor junk junk"));
}

TEST(SchemaErrors, RegistrationNeedsANamespaceAndConsistency) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "needs a namespace, e.g. \"myops::scale2(...)\"",
                  fp::abi::register_schema("scale2(Tensor x) -> Tensor"));
  fp::abi::register_schema("fp_test::twice(Tensor x) -> Tensor");
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp_test::twice is already registered as \"fp_test::twice(Tensor x) -> Tensor\"",
                  fp::abi::register_schema("fp_test::twice(Tensor x, int n) -> Tensor"));
}

TEST(SchemaErrors, UnknownOpsListTheOverloadsThatExist) {
  /*
  #|PYTHON
  import importlib.util, pathlib, re
  root = pathlib.Path(importlib.util.find_spec("torch").submodule_search_locations[0]).parent
  yaml = (root / "torchgen/packaged/ATen/native/native_functions.yaml").read_text()
  overloads = ", ".join(sorted(re.findall(r"^- func: div\.(\w+)\(", yaml, re.M)))
  */
  const std::string overloads =
      "Scalar, Scalar_mode, Tensor, Tensor_mode, out, out_mode";  // #PYTHON overloads
  EXPECT_FP_ERROR(fp::ErrorCode::OpNotFound,
                  "aten::div.floor: no such op in the schemas flash_powder knows (its overloads: " +
                      overloads + ")",
                  fp::abi::find_schema("aten::div", "floor"));
}

// --- Ops by torch release ----------------------------------------------------

TEST(SchemaReleases, BuiltinSchemasSayWhichTorchFirstHasThem) {
  const Schema& lanczos = fp::abi::find_schema("aten::_upsample_lanczos2d_aa", "");
  EXPECT_EQ(lanczos.availability.since, (TorchVersion{2, 12, 0}));
  EXPECT_EQ(lanczos.availability.removed_in, std::nullopt);
  const Schema& flip = fp::abi::find_schema("aten::flip", "");
  EXPECT_EQ(flip.availability.since, (TorchVersion{2, 11, 0}));
  EXPECT_EQ(flip.availability.removed_in, std::nullopt);
  EXPECT_EQ(fp::abi::builtin_oldest_release(), (TorchVersion{2, 11, 0}));
}

TEST(SchemaReleases, BuiltinSchemasSayWhichTorchRemovedThem) {
  const Schema& qr = fp::abi::find_schema("aten::qr", "Q");
  EXPECT_EQ(qr.availability.since, (TorchVersion{2, 11, 0}));
  EXPECT_EQ(qr.availability.removed_in, (TorchVersion{2, 14, 0}));
}

TEST(SchemaReleases, ListedOverloadsAreSortedBuiltinSchemas) {
  const auto listed = fp::abi::builtin_availability();
  const auto schemas = fp::abi::builtin_schemas();
  EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end(),
                             [](const auto& a, const auto& b) { return a.key < b.key; }));
  for (const auto& entry : listed) {
    const auto named = [&](std::string_view text) {
      return text.substr(0, text.find('(')) == entry.key;
    };
    EXPECT_TRUE(std::any_of(schemas.begin(), schemas.end(), named)) << entry.key;
  }
}

TEST(SchemaReleases, AvailabilityIncludesPatchReleasesUpToTheRemoval) {
  const Availability qr{{2, 11, 0}, TorchVersion{2, 14, 0}};
  EXPECT_FALSE(qr.includes({2, 10, 3}));
  EXPECT_TRUE(qr.includes({2, 11, 0}));
  EXPECT_TRUE(qr.includes({2, 13, 9}));
  EXPECT_FALSE(qr.includes({2, 14, 0}));
  EXPECT_FALSE(qr.includes({2, 15, 1}));
  const Availability lanczos{{2, 12, 0}, std::nullopt};
  EXPECT_FALSE(lanczos.includes({2, 11, 0}));
  EXPECT_TRUE(lanczos.includes({2, 12, 1}));
  EXPECT_TRUE(lanczos.includes({3, 0, 0}));
}

TEST(SchemaReleases, RegisteredSchemasAreInEveryRelease) {
  fp::abi::register_schema("fp_test::anywhere(Tensor x) -> Tensor");
  const Schema& anywhere = fp::abi::find_schema("fp_test::anywhere", "");
  EXPECT_TRUE(anywhere.availability.includes({2, 11, 0}));
  EXPECT_TRUE(anywhere.availability.includes({9, 0, 0}));
}

/// Makes fp::dispatch's release check take another torch for the loaded one
/// while it lives, so that the refusals of other releases can be tested with
/// the torch the suite runs on.
class PretendLoadedTorch {
 public:
  explicit PretendLoadedTorch(TorchVersion version) {
    fp::abi::testing::pretend_loaded_torch(version);
  }
  ~PretendLoadedTorch() { fp::abi::testing::pretend_loaded_torch(std::nullopt); }
  PretendLoadedTorch(const PretendLoadedTorch&) = delete;
  PretendLoadedTorch& operator=(const PretendLoadedTorch&) = delete;
};

TEST(SchemaReleasesErrors, OpsNewerThanTheLoadedTorchAreRefused) {
  const fp::Tensor x = fp::ones({1, 1, 4, 4});
  const PretendLoadedTorch torch_2_11({2, 11, 0});
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::UnsupportedByTorch,
      "aten::_upsample_lanczos2d_aa needs torch 2.12 or later; this process loaded torch 2.11.0",
      fp::dispatch<fp::Tensor>("aten::_upsample_lanczos2d_aa", "", x,
                               std::vector<std::int64_t>{2, 2}, false));
  // The generated wrappers go through the same check.
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::UnsupportedByTorch,
      "aten::_upsample_lanczos2d_aa.vec needs torch 2.12 or later; this process loaded torch "
      "2.11.0",
      fp::aten::_upsample_lanczos2d_aa_vec(x, {2, 2}, false, std::nullopt));
}

TEST(SchemaReleasesErrors, TheReleaseIsCheckedBeforeTheArguments) {
  // The check comes first, before the arguments are looked at (here: there
  // are none) and anything is boxed for libtorch.
  const PretendLoadedTorch torch_2_11({2, 11, 0});
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::UnsupportedByTorch,
      "aten::storage_offset needs torch 2.12 or later; this process loaded torch 2.11.0",
      fp::dispatch<std::int64_t>("aten::storage_offset", ""));
}

TEST(SchemaReleasesErrors, OpsRemovedBeforeTheLoadedTorchAreRefused) {
  const fp::Tensor a = fp::ones({2, 2});
  const PretendLoadedTorch torch_2_14({2, 14, 1});
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::UnsupportedByTorch,
                        "aten::qr was removed in torch 2.14; this process loaded torch 2.14.1",
                        fp::dispatch<std::tuple<fp::Tensor, fp::Tensor>>("aten::qr", "", a));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::UnsupportedByTorch,
      "aten::cholesky was removed in torch 2.14; this process loaded torch 2.14.1",
      fp::aten::cholesky(a));
}

TEST(SchemaReleases, OpsOfTheLoadedTorchAreCalled) {
  const fp::Tensor x = fp::ones({1, 1, 4, 4});
  const auto downsample = [&] {
    return fp::dispatch<fp::Tensor>("aten::_upsample_lanczos2d_aa", "", x,
                                    std::vector<std::int64_t>{2, 2}, false);
  };
  // A pretence ends with its scope: then the check sees the real torch.
  { const PretendLoadedTorch torch_2_11({2, 11, 0}); }
  if (fp::torch_version() >= TorchVersion{2, 12, 0}) {
    const fp::Tensor small = downsample();
    EXPECT_EQ(std::vector<std::int64_t>(small.sizes().begin(), small.sizes().end()),
              (std::vector<std::int64_t>{1, 1, 2, 2}));
  } else {
    EXPECT_FP_ERROR_EXACT(fp::ErrorCode::UnsupportedByTorch,
                          "aten::_upsample_lanczos2d_aa needs torch 2.12 or later; this process "
                          "loaded torch " +
                              fp::torch_version().str(),
                          downsample());
  }
}

}  // namespace
