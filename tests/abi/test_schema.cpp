// Schema parsing and the registry fp::dispatch checks calls against.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "support/expect_error.h"

namespace {

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
  const auto schemas = fp::abi::builtin_schemas();
  /*
  #|PYTHON
  import importlib.util, pathlib, re
  root = pathlib.Path(importlib.util.find_spec("torch").submodule_search_locations[0]).parent
  yaml = (root / "torchgen/packaged/ATen/native/native_functions.yaml").read_text()
  count = len(re.findall(r"^- func:", yaml, re.M))
  */
  EXPECT_EQ(schemas.size(), 2584u);  // #PYTHON count
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
  /*
  #|PYTHON
  major, minor = (int(p) for p in torch.__version__.split(".")[:2])
  version = (major << 56) | (minor << 48)
  */
  EXPECT_EQ(fp::abi::builtin_schema_abi_version(), 147774362773094400u);  // #PYTHON version
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
  EXPECT_FP_ERROR("expected '(' at position 4 in \"flip\"", Schema::parse("flip"));
  EXPECT_FP_ERROR("expected '->' at position 18", Schema::parse("flip(Tensor self) => Tensor"));
  EXPECT_FP_ERROR("expected a name", Schema::parse("f(Tensor) -> Tensor"));
  EXPECT_FP_ERROR("unterminated alias annotation", Schema::parse("f(Tensor(a!"));
  EXPECT_FP_ERROR("unterminated string in a default value",
                  Schema::parse("f(str x=\"abc) -> Tensor"));
  EXPECT_FP_ERROR("unexpected text after the returns", Schema::parse("f() -> Tensor junk junk"));
}

TEST(SchemaErrors, RegistrationNeedsANamespaceAndConsistency) {
  EXPECT_FP_ERROR("needs a namespace, e.g. \"myops::scale2(...)\"",
                  fp::abi::register_schema("scale2(Tensor x) -> Tensor"));
  fp::abi::register_schema("fp_test::twice(Tensor x) -> Tensor");
  EXPECT_FP_ERROR("fp_test::twice is already registered as \"fp_test::twice(Tensor x) -> Tensor\"",
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
  EXPECT_FP_ERROR("aten::div.floor: no such op in the schemas flash_powder knows (its overloads: " +
                      overloads + ")",
                  fp::abi::find_schema("aten::div", "floor"));
}

}  // namespace
