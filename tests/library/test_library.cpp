// fp::library: ops defined and bound in this process, called through
// fp::dispatch; every parameter and result type; the schema checks at
// binding; kernel errors; what older torch releases cannot do.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/library/library.h>

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "support/expect_error.h"
#include "support/string_leak.h"

namespace {

using fp::Tensor;
using fp::TensorMutView;
using fp::TensorView;
using fp::library::DispatchKey;
using fp::library::Library;

std::string list_text(const auto& values) {
  std::string text = "[";
  for (const auto& value : values)
    text += (text.size() > 1 ? ", " : "") + std::to_string(value);
  return text + "]";
}

/// Reads back every kind of argument as text.
std::string describe(TensorView x, std::int64_t n, double f, bool b, std::string_view s,
                     std::vector<std::int64_t> sizes, std::vector<double> weights,
                     std::optional<TensorView> maybe, std::vector<TensorView> list, fp::DType dtype,
                     fp::Device device, std::optional<std::int64_t> absent) {
  return "x=" + list_text(x.sizes()) + " n=" + std::to_string(n) + " f=" + std::to_string(f) +
         " b=" + (b ? "true" : "false") + " s=" + std::string(s) + " sizes=" + list_text(sizes) +
         " weights=" + list_text(weights) +
         " maybe=" + (maybe ? list_text(maybe->sizes()) : "None") +
         " list=" + std::to_string(list.size()) + " dtype=" + std::string(fp::name(dtype)) +
         " device=" + device.str() + " absent=" + (absent ? "set" : "None");
}

void scale_(TensorMutView x, double factor) {
  x.mul_(factor);
}

std::tuple<Tensor, Tensor> sum_and_max(TensorView x) {
  return {x.sum(), x.max()};
}

std::int64_t count(const std::vector<Tensor>& tensors) {
  return static_cast<std::int64_t>(tensors.size());
}

std::vector<Tensor> halves(TensorView x) {
  const std::int64_t half = x.size(0) / 2;
  return {x.narrow(0, 0, half).to_owned(), x.narrow(0, half, x.size(0) - half).to_owned()};
}

/// Takes its argument by value: changing it must not change the caller's.
Tensor plus_one(Tensor x) {
  x.add_(1.0);
  return x;
}

Tensor twice(const Tensor& x) {
  return x * 2.0;
}

Tensor always_fails(TensorView) {
  throw fp::Error(fp::ErrorCode::BadArgument, "always_fails: this kernel refuses everything");
}

/// Fails with the words libtorch uses for an op it cannot find: what the
/// caller does with the boxed arguments must not depend on them.
Tensor claims_absent(TensorView, const std::vector<std::int64_t>&, std::optional<TensorView>) {
  throw fp::Error(fp::ErrorCode::BadArgument,
                  "Could not find schema for fp_test_library::claims_absent (a kernel's words)");
}

bool truthy(bool b) {
  return !b;
}

/// The ops every test below calls, registered once for the whole program.
void register_test_ops() {
  static const auto libraries = [] {
    std::vector<Library> made;
    made.push_back(Library::define("fp_test_library"));
    made.back()
        .def(
            "describe(Tensor x, int n, float f, bool b, str s, int[] sizes, float[] weights, "
            "Tensor? maybe, Tensor[] list, ScalarType dtype, Device device, int? absent=None) "
            "-> str")
        .def("scale_(Tensor(a!) x, float factor) -> ()")
        .def("sum_and_max(Tensor x) -> (Tensor, Tensor)")
        .def("count(Tensor[] tensors) -> int")
        .def("halves(Tensor x) -> Tensor[]")
        .def("plus_one(Tensor x) -> Tensor")
        .def("twice(Tensor x) -> Tensor")
        .def("always_fails(Tensor x) -> Tensor")
        .def("claims_absent(Tensor x, int[] sizes, Tensor? y) -> Tensor")
        .def("negate(bool b) -> bool");
    made.push_back(Library::implement("fp_test_library", DispatchKey::CPU));
    made.back()
        .impl<describe>("describe")
        .impl<scale_>("scale_")
        .impl<sum_and_max>("sum_and_max")
        .impl<count>("count")
        .impl<halves>("halves")
        .impl<plus_one>("plus_one")
        .impl<twice>("twice")
        .impl<always_fails>("always_fails")
        .impl<claims_absent>("claims_absent");
    // An op without tensor arguments has no device to dispatch on.
    made.push_back(Library::implement("fp_test_library", DispatchKey::CompositeExplicitAutograd));
    made.back().impl<truthy>("negate");
    made.push_back(Library::implement("fp_test_library", DispatchKey::Meta));
    made.back().impl<twice>("twice");
    return made;
  }();
  (void)libraries;
}

class LibraryTest : public ::testing::Test {
 protected:
  void SetUp() override { register_test_ops(); }
};

TEST_F(LibraryTest, EveryArgumentTypeReachesTheKernel) {
  // A `str` argument and result cross libtorch's boxing both ways.
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();
  const Tensor x = fp::zeros({2, 3});
  const Tensor y = fp::ones({4});
  const auto text = fp::dispatch<std::string>(
      "fp_test_library::describe", "", x, 5, 2.5, true, "hello", std::vector<std::int64_t>{1, 2},
      std::vector<double>{0.5}, y, std::vector<Tensor>{x, y}, fp::DType::F64, fp::Device::cpu());
  EXPECT_EQ(text,
            "x=[2, 3] n=5 f=2.500000 b=true s=hello sizes=[1, 2] weights=[0.500000] maybe=[4] "
            "list=2 dtype=float64 device=cpu absent=None");
  const auto without = fp::dispatch<std::string>(
      "fp_test_library::describe", "", x, -1, 0.0, false, "", std::vector<std::int64_t>{},
      std::vector<double>{}, std::nullopt, std::vector<Tensor>{}, fp::DType::U8, fp::Device::meta(),
      std::int64_t{3});
  EXPECT_EQ(without,
            "x=[2, 3] n=-1 f=0.000000 b=false s= sizes=[] weights=[] maybe=None list=0 "
            "dtype=uint8 device=meta absent=set");
}

TEST_F(LibraryTest, AWrittenArgumentIsTheCallersTensor) {
  Tensor x = fp::arange(4.0);
  const Tensor expected = x * 2.5;
  fp::dispatch("fp_test_library::scale_", "", x, 2.5);
  EXPECT_TRUE(x.is_equal(expected));
  // A view's writes reach its parent.
  Tensor parent = fp::zeros({2, 2});
  parent.i_mut(0).fill_(2.0);
  {
    TensorMutView row = parent.i_mut(0);
    fp::dispatch("fp_test_library::scale_", "", row, 3.0);
  }
  EXPECT_TRUE(parent.is_equal(fp::tensor({{6.f, 6.f}, {0.f, 0.f}})));
}

TEST_F(LibraryTest, ResultsOfEveryKind) {
  const Tensor x = fp::arange(5.0);
  auto [sum, max] = fp::dispatch<std::tuple<Tensor, Tensor>>("fp_test_library::sum_and_max", "", x);
  EXPECT_TRUE(sum.is_equal(x.sum()));
  EXPECT_TRUE(max.is_equal(x.max()));
  EXPECT_EQ(fp::dispatch<std::int64_t>("fp_test_library::count", "", std::vector<Tensor>{x, x, x}),
            3);
  const auto parts = fp::dispatch<std::vector<Tensor>>("fp_test_library::halves", "", x);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_TRUE(parts[0].is_equal(x.narrow(0, 0, 2)));
  EXPECT_TRUE(parts[1].is_equal(x.narrow(0, 2, 3)));
  EXPECT_TRUE(fp::dispatch<bool>("fp_test_library::negate", "", false));
  EXPECT_FALSE(fp::dispatch<bool>("fp_test_library::negate", "", true));
}

TEST_F(LibraryTest, ATensorParameterIsAnIndependentValue) {
  const Tensor x = fp::zeros({3});
  const Tensor y = fp::dispatch<Tensor>("fp_test_library::plus_one", "", x);
  EXPECT_TRUE(y.is_equal(fp::ones({3})));
  EXPECT_TRUE(x.is_equal(fp::zeros({3})));
}

TEST_F(LibraryTest, AMetaKernelComputesShapesOnly) {
  const Tensor x = fp::empty({2, 7}, fp::Device::meta());
  const Tensor y = fp::dispatch<Tensor>("fp_test_library::twice", "", x);
  EXPECT_EQ(y.device(), fp::Device::meta());
  EXPECT_EQ(std::vector<std::int64_t>(y.sizes().begin(), y.sizes().end()),
            (std::vector<std::int64_t>{2, 7}));
}

TEST_F(LibraryTest, AKernelsErrorReachesTheCaller) {
  // torch before 2.13 prints the kernel's message instead (EXPECT_TORCH_ERROR).
  EXPECT_TORCH_ERROR("always_fails: this kernel refuses everything",
                     fp::dispatch<Tensor>("fp_test_library::always_fails", "", fp::zeros({1})));
  // libtorch consumed the boxed tensors and list before the kernel ran:
  // freeing them again because of the message's words would be a double
  // free (ASan, valgrind), leaving them because of other words a leak.
  EXPECT_TORCH_ERROR("Could not find schema for fp_test_library::claims_absent (a kernel's words)",
                     fp::dispatch<Tensor>("fp_test_library::claims_absent", "", fp::zeros({2}),
                                          std::vector<std::int64_t>{1, 2}, fp::ones({3})));
  // Arguments the schema does not take are refused before the kernel runs.
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp_test_library::twice: argument 0 'x' expects Tensor, got int",
                  fp::dispatch<Tensor>("fp_test_library::twice", "", 3));
}

// --- binding checks --------------------------------------------------------------

Tensor takes_int(TensorView, std::int64_t n) {
  return fp::zeros({n});
}
Tensor takes_view(TensorView x) {
  return x.to_owned();
}
void writes(TensorMutView x) {
  x.zero_();
}
void reads(TensorView) {}
Tensor writes_and_returns(TensorMutView x) {
  return x.to_owned();
}
std::int64_t returns_int(TensorView) {
  return 1;
}

TEST(LibraryBinding, AKernelMustMatchItsSchema) {
  Library defs = Library::define("fp_test_binding");
  defs.def("by_float(Tensor x, float n) -> Tensor")
      .def("two(Tensor x, Tensor y) -> Tensor")
      .def("written(Tensor(a!) x) -> ()")
      .def("read(Tensor x) -> ()")
      .def("tensor_result(Tensor x) -> Tensor")
      .def("aliasing(Tensor(a!) x) -> Tensor(a!)");
  Library cpu = Library::implement("fp_test_binding", DispatchKey::CPU);
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::library: the kernel bound to fp_test_binding::by_float (CPU) does not match its "
      "schema: argument 1 'n' is float but the C++ parameter reads int; the schema is "
      "fp_test_binding::by_float(Tensor x, float n) -> Tensor",
      cpu.impl<takes_int>("by_float"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "it has 2 arguments, the C++ kernel 1 parameters",
                  cpu.impl<takes_view>("two"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "argument 0 'x' is written (Tensor(a!)); take it as fp::TensorMutView",
                  cpu.impl<reads>("written"));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "argument 0 'x' is taken as fp::TensorMutView but the schema does not let the op write "
      "it; declare it Tensor(a!)",
      cpu.impl<writes>("read"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "result 0 is Tensor but the C++ kernel returns int",
                  cpu.impl<returns_int>("tensor_result"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "result 0 (Tensor(a!)) shares memory with an argument",
                  cpu.impl<writes_and_returns>("aliasing"));
  // The matching ones bind.
  cpu.impl<takes_view>("tensor_result").impl<writes>("written");
}

TEST(LibraryBinding, SchemasTheStableAbiCannotCarryAreRefused) {
  Library defs = Library::define("fp_test_refusals");
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::library: fp_test_refusals::add_scalar: argument 'other' has type Scalar, which "
      "libtorch's stable ABI cannot carry",
      defs.def("add_scalar(Tensor x, Scalar other) -> Tensor"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp_test_refusals::broken(",
                  defs.def("broken(Tensor x -> Tensor"));
  Library cpu = Library::implement("fp_test_refusals", DispatchKey::CPU);
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::library: late(Tensor x) -> Tensor is defined in a library of kernels for CPU; define "
      "ops in FP_LIBRARY or FP_LIBRARY_FRAGMENT",
      cpu.def("late(Tensor x) -> Tensor"));
}

TEST(LibraryBinding, AnOpDefinedLaterIsCheckedAtItsFirstCall) {
  // Kernels may be bound before their op is defined (FP_LIBRARY_IMPL in
  // another file whose static initialiser runs first).
  Library cpu = Library::implement("fp_test_later", DispatchKey::CPU);
  cpu.impl<takes_int>("later");
  Library defs = Library::define("fp_test_later");
  defs.def("later(Tensor x, float n) -> Tensor");
  EXPECT_TORCH_ERROR("argument 1 'n' is float but the C++ parameter reads int",
                     fp::dispatch<Tensor>("fp_test_later::later", "", fp::zeros({1}), 2.0));
}

TEST(LibraryBinding, AnUnregisteredLibrarysOpsAreGone) {
  {
    Library defs = Library::define("fp_test_scoped");
    defs.def("scoped_twice(Tensor x) -> Tensor");
    Library cpu = Library::implement("fp_test_scoped", DispatchKey::CPU);
    cpu.impl<twice>("scoped_twice");
    EXPECT_TRUE(fp::dispatch<Tensor>("fp_test_scoped::scoped_twice", "", fp::ones({2}))
                    .is_equal(fp::full({2}, 2.0f)));
  }
  // Refused before anything is boxed: nothing leaks (valgrind and ASan check).
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::OpNotFound,
                        "fp_test_scoped::scoped_twice: libtorch no longer has this op: the "
                        "fp::library::Library that defined it was destroyed",
                        fp::dispatch<Tensor>("fp_test_scoped::scoped_twice", "", fp::ones({2})));
  {
    // Defined again: callable again.
    Library defs = Library::define("fp_test_scoped");
    defs.def("scoped_twice(Tensor x) -> Tensor");
    Library cpu = Library::implement("fp_test_scoped", DispatchKey::CPU);
    cpu.impl<twice>("scoped_twice");
    EXPECT_TRUE(fp::dispatch<Tensor>("fp_test_scoped::scoped_twice", "", fp::ones({2}))
                    .is_equal(fp::full({2}, 2.0f)));
  }
}

TEST(LibraryVersions, NewerFeaturesDegradeOnOlderTorch) {
  const fp::TorchVersion loaded = fp::torch_version();
  const bool has_tags = loaded >= fp::TorchVersion{2, 12, 0};
  const bool has_python_module = loaded >= fp::TorchVersion{2, 13, 0};
  Library defs = Library::define("fp_test_versions");
  defs.def("tagged(Tensor x) -> Tensor", {fp::library::Tag::Pt2Compliant});
  EXPECT_EQ(defs.tags_dropped(), !has_tags);
  EXPECT_EQ(defs.set_python_module("fp_test_versions"), has_python_module);
}

TEST(LibraryNames, DispatchKeysAreNamedAsTorchNamesThem) {
  EXPECT_EQ(fp::library::name(DispatchKey::CPU), "CPU");
  EXPECT_EQ(fp::library::name(DispatchKey::CUDA), "CUDA");
  EXPECT_EQ(fp::library::name(DispatchKey::Meta), "Meta");
  EXPECT_EQ(fp::library::name(DispatchKey::CompositeExplicitAutograd), "CompositeExplicitAutograd");
  EXPECT_EQ(fp::library::name(DispatchKey::CompositeImplicitAutograd), "CompositeImplicitAutograd");
}

// --- FP_LIBRARY blocks run when the program starts --------------------------------

Tensor doubled(TensorView x) {
  return x * 2.0;
}

FP_LIBRARY(fp_test_static, m) {
  m.def("doubled(Tensor x) -> Tensor");
}
FP_LIBRARY_IMPL(fp_test_static, CPU, m) {
  m.impl<doubled>("doubled");
}
// A block that fails: a static initialiser cannot throw, so it reports.
FP_LIBRARY(fp_test_static_broken, m) {
  m.def("broken(Scalar s) -> Tensor");
}

TEST(StaticLibrary, BlocksRegisterAtLoadAndReportTheirFailures) {
  EXPECT_TRUE(fp::dispatch<Tensor>("fp_test_static::doubled", "", fp::ones({2}))
                  .is_equal(fp::full({2}, 2.0f)));
  const std::vector<std::string> errors = fp::library::registration_errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("test_library.cpp:"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("argument 's' has type Scalar"), std::string::npos) << errors[0];
}

// --- a kernel like docs/guide/custom_ops.md's, compiled and run ------------------------

fp::Tensor scale(fp::TensorView x, double factor) {
  if (!fp::is_floating_point(x.dtype()))
    throw fp::Error(fp::ErrorCode::BadArgument, "scale: x must be floating point");
  return x * factor;
}

FP_LIBRARY(myops, m) {           // TORCH_LIBRARY(myops, m)
  m.set_python_module("myops");  // where the fake kernels live (torch 2.13+)
  m.def("scale(Tensor x, float factor) -> Tensor");
}
FP_LIBRARY_IMPL(myops, CPU, m) {  // also CUDA, Meta, CompositeExplicitAutograd
  m.impl<scale>("scale");
}

TEST(Readme, CustomOps) {
  const Tensor x = fp::ones({3});
  EXPECT_TRUE(fp::dispatch<Tensor>("myops::scale", "", x, 2.0).is_equal(x * 2.0));
  EXPECT_TORCH_ERROR("scale: x must be floating point",
                     fp::dispatch<Tensor>("myops::scale", "", fp::ones({3}, fp::DType::I64), 2.0));
}

}  // namespace
