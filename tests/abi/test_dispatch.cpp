// fp::dispatch against Python's torch.ops.aten: one tensor, tuples, lists and
// scalars back; optional, string, list and enum arguments in; and every way a
// call can be wrong.
//
// Why this file is long: fp::dispatch is one function with every schema type
// on both sides of the call; its tests read best as one catalogue.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <limits>
#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

using fp::Tensor;

/// arange(6.) reshaped to [2, 3], as `m` in the Python blocks.
Tensor two_by_three() {
  return fp::tensor({{0.f, 1.f, 2.f}, {3.f, 4.f, 5.f}});
}

TEST(Dispatch, ReturnsOneTensor) {
  /*
  #|PYTHON
  m = torch.arange(6.).reshape(2, 3)
  r = torch.ops.aten.flip(m, [0])
  */
  const Tensor r = fp::dispatch<Tensor>("aten::flip", "", two_by_three(), std::vector<int64_t>{0});
  EXPECT_EQ(r.to_vector<float>(), truth<std::vector<float>>("r.flatten().tolist()"));
  EXPECT_EQ(std::vector<int64_t>(r.sizes().begin(), r.sizes().end()),
            (std::vector<int64_t>{2, 3}));  // #PYTHON list(r.shape)
}

TEST(Dispatch, ATensorResultIsAValueEvenWhereTheOpHandsBackItsInput) {
  // atleast_1d of a 1-D tensor and a composite's no-op reshape return the
  // input itself, though their schemas promise a new Tensor: the result must
  // still be independent of the argument, as from the typed wrapper.
  const auto unchanged_by_writing_the_result = [](auto call) {
    Tensor x = fp::tensor({1.f, 2.f, 3.f});
    Tensor y = call(x);
    y.fill_(7.0);
    return x.to_vector<float>() == std::vector<float>{1.f, 2.f, 3.f};
  };
  EXPECT_TRUE(unchanged_by_writing_the_result(
      [](Tensor& x) { return fp::dispatch<Tensor>("aten::atleast_1d", "", x); }));
  EXPECT_TRUE(unchanged_by_writing_the_result(
      [](Tensor& x) { return fp::dispatch<Tensor>("aten::type_as", "", x, x); }));
  EXPECT_TRUE(unchanged_by_writing_the_result([](Tensor& x) { return fp::aten::atleast_1d(x); }));
}

TEST(Dispatch, ReturnsATuple) {
  /*
  #|PYTHON
  m = torch.tensor([[1., 7., 3.], [9., 2., 9.]])
  values, indices = torch.ops.aten.max.dim(m, 1)
  */
  const auto m = fp::tensor({{1.f, 7.f, 3.f}, {9.f, 2.f, 9.f}});
  auto [values, indices] = fp::dispatch<std::tuple<Tensor, Tensor>>("aten::max", "dim", m, 1);
  EXPECT_EQ(values.to_vector<float>(), truth<std::vector<float>>("values.tolist()"));
  EXPECT_EQ(indices.to_vector<int64_t>(),
            (std::vector<int64_t>{1, 0}));     // #PYTHON indices.tolist()
  EXPECT_EQ(indices.dtype(), fp::DType::I64);  // #PYTHON indices.dtype
}

TEST(Dispatch, ReturnsAList) {
  /*
  #|PYTHON
  m = torch.arange(6.).reshape(2, 3)
  parts = torch.ops.aten.split.Tensor(m, 2, 1)
  */
  const auto parts =
      fp::dispatch<std::vector<Tensor>>("aten::split", "Tensor", two_by_three(), 2, 1);
  ASSERT_EQ(parts.size(), 2);  // #PYTHON len(parts)
  EXPECT_EQ(parts[0].to_vector<float>(), truth<std::vector<float>>("parts[0].flatten().tolist()"));
  EXPECT_EQ(parts[1].to_vector<float>(), truth<std::vector<float>>("parts[1].flatten().tolist()"));
}

TEST(Dispatch, ReturnsScalars) {
  /*
  #|PYTHON
  m = torch.arange(6.).reshape(2, 3)
  */
  const Tensor m = two_by_three();
  EXPECT_EQ(fp::dispatch<int64_t>("aten::size", "int", m, -1),
            3);  // #PYTHON torch.ops.aten.size.int(m, -1)
  EXPECT_EQ(fp::dispatch<double>("aten::size", "int", m, 0),
            truth<double>("float(torch.ops.aten.size.int(m, 0))"));
  EXPECT_EQ(fp::dispatch<bool>("aten::equal", "", m, m),
            true);  // #PYTHON torch.ops.aten.equal(m, m)
  EXPECT_EQ(fp::dispatch<bool>("aten::is_nonzero", "", fp::tensor(0.f)),
            false);  // #PYTHON torch.ops.aten.is_nonzero(torch.tensor(0.))
  EXPECT_EQ(fp::dispatch<fp::DType>("aten::result_type", "Tensor", m, fp::tensor(int64_t{1})),
            fp::DType::F32);  // #PYTHON torch.result_type(m, torch.tensor(1))
}

TEST(Dispatch, OmittedTrailingOptionalScalarIsNone) {
  // `Scalar? correction=None`: a Scalar cannot cross the stable ABI, but None can.
  /*
  #|PYTHON
  x = torch.tensor([1.0, 2.0, 4.0, 7.0])
  */
  const Tensor x = fp::tensor({1.f, 2.f, 4.f, 7.f});
  EXPECT_EQ(fp::dispatch<Tensor>("aten::var", "correction", x).item<double>(),
            truth<double>("torch.ops.aten.var.correction(x).item()"));
  const auto [deviation, mean] =
      fp::dispatch<std::tuple<Tensor, Tensor>>("aten::std_mean", "correction", x);
  EXPECT_EQ(deviation.item<double>(),
            truth<double>("torch.ops.aten.std_mean.correction(x)[0].item()"));
  EXPECT_EQ(mean.item<double>(), truth<double>("torch.ops.aten.std_mean.correction(x)[1].item()"));
  // A Scalar that is not optional still cannot be passed, given or not.
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "cannot be passed through libtorch's stable ABI",
                  fp::dispatch<Tensor>("aten::add", "Tensor", x, x));
}

TEST(Dispatch, OptionalArgumentAsNoneAndAsValue) {
  /*
  #|PYTHON
  m = torch.arange(6.).reshape(2, 3)
  whole = torch.ops.aten.sum.dim_IntList(m, None)
  rows = torch.ops.aten.sum.dim_IntList(m, [1], True, dtype=torch.float64)
  */
  const Tensor m = two_by_three();
  const Tensor whole = fp::dispatch<Tensor>("aten::sum", "dim_IntList", m, std::nullopt);
  EXPECT_EQ(whole.item<float>(), truth<double>("whole.item()"));
  EXPECT_EQ(whole.dim(), 0);  // #PYTHON whole.dim()
  const Tensor rows =
      fp::dispatch<Tensor>("aten::sum", "dim_IntList", m, std::optional(std::vector<int64_t>{1}),
                           true, std::optional<fp::DType>(fp::DType::F64));
  EXPECT_EQ(rows.to_vector<double>(), truth<std::vector<double>>("rows.flatten().tolist()"));
  EXPECT_EQ(rows.dtype(), fp::DType::F64);  // #PYTHON rows.dtype
  EXPECT_EQ(rows.dim(), 2);                 // #PYTHON rows.dim()
}

TEST(Dispatch, OptionalTensorArguments) {
  /*
  #|PYTHON
  x = torch.tensor([-2., 0.5, 3.])
  low = torch.ops.aten.clamp.Tensor(x, torch.tensor(0.), None)
  both = torch.ops.aten.clamp.Tensor(x, torch.tensor(0.), torch.tensor(1.))
  */
  const auto x = fp::tensor({-2.f, 0.5f, 3.f});
  const Tensor low =
      fp::dispatch<Tensor>("aten::clamp", "Tensor", x, fp::tensor(0.f), std::nullopt);
  EXPECT_EQ(low.to_vector<float>(), truth<std::vector<float>>("low.tolist()"));
  const Tensor both =
      fp::dispatch<Tensor>("aten::clamp", "Tensor", x, fp::tensor(0.f), fp::tensor(1.f));
  EXPECT_EQ(both.to_vector<float>(), truth<std::vector<float>>("both.tolist()"));
}

TEST(Dispatch, StringArgument) {
  /*
  #|PYTHON
  a = torch.tensor([7, -7, 9], dtype=torch.int64)
  b = torch.tensor([2, 2, -4], dtype=torch.int64)
  floor = torch.ops.aten.div.Tensor_mode(a, b, rounding_mode="floor")
  trunc = torch.ops.aten.div.Tensor_mode(a, b, rounding_mode="trunc")
  true_div = torch.ops.aten.div.Tensor_mode(a, b, rounding_mode=None)
  */
  const auto a = fp::tensor({int64_t{7}, int64_t{-7}, int64_t{9}});
  const auto b = fp::tensor({int64_t{2}, int64_t{2}, int64_t{-4}});
  const auto floor = fp::dispatch<Tensor>("aten::div", "Tensor_mode", a, b, "floor");
  EXPECT_EQ(floor.to_vector<int64_t>(),
            (std::vector<int64_t>{3, -4, -3}));  // #PYTHON floor.tolist()
  EXPECT_EQ(floor.dtype(), fp::DType::I64);      // #PYTHON floor.dtype
  const auto trunc = fp::dispatch<Tensor>("aten::div", "Tensor_mode", a, b, std::string("trunc"));
  EXPECT_EQ(trunc.to_vector<int64_t>(),
            (std::vector<int64_t>{3, -3, -2}));  // #PYTHON trunc.tolist()
  const auto true_div = fp::dispatch<Tensor>("aten::div", "Tensor_mode", a, b, std::nullopt);
  EXPECT_EQ(true_div.to_vector<float>(), truth<std::vector<float>>("true_div.tolist()"));
  EXPECT_EQ(true_div.dtype(), fp::DType::F32);  // #PYTHON true_div.dtype
}

TEST(Dispatch, OmittedArgumentsTakeTheSchemaDefaults) {
  /*
  #|PYTHON
  m = torch.arange(16.).reshape(1, 1, 4, 4)
  pooled = torch.ops.aten.max_pool2d(m, [2, 2])
  strided = torch.ops.aten.max_pool2d(m, [2, 2], [1, 1])
  */
  std::vector<double> values(16);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<double>(i);
  const Tensor m = fp::dispatch<Tensor>("aten::reshape", "", fp::tensor(values),
                                        std::vector<int64_t>{1, 1, 4, 4});
  // A single int fills a fixed-size list, as in Python: kernel_size=2 means [2, 2].
  const Tensor pooled = fp::dispatch<Tensor>("aten::max_pool2d", "", m, 2);
  EXPECT_EQ(pooled.to_vector<double>(), truth<std::vector<double>>("pooled.flatten().tolist()"));
  const Tensor strided = fp::dispatch<Tensor>("aten::max_pool2d", "", m, 2, 1);
  EXPECT_EQ(strided.to_vector<double>(), truth<std::vector<double>>("strided.flatten().tolist()"));
}

TEST(Dispatch, EnumArguments) {
  /*
  #|PYTHON
  m = torch.arange(6.).reshape(2, 3)
  as_int = torch.ops.aten._to_copy(m, dtype=torch.int32)
  channels_last = torch.ops.aten.contiguous(torch.zeros(1, 2, 3, 3), memory_format=torch.channels_last)
  e = torch.ops.aten.empty.memory_format([2, 2], dtype=torch.float16, layout=torch.strided, device="cpu")
  */
  const Tensor as_int = fp::dispatch<Tensor>("aten::_to_copy", "", two_by_three(), fp::DType::I32);
  EXPECT_EQ(as_int.dtype(), fp::DType::I32);  // #PYTHON as_int.dtype
  EXPECT_EQ(as_int.to_vector<int32_t>(),
            (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));  // #PYTHON as_int.flatten().tolist()

  const Tensor zeros = fp::dispatch<Tensor>("aten::zeros", "", std::vector<int64_t>{1, 2, 3, 3});
  const Tensor channels_last =
      fp::dispatch<Tensor>("aten::contiguous", "", zeros, fp::MemoryFormat::ChannelsLast);
  EXPECT_EQ(std::vector<int64_t>(channels_last.strides().begin(), channels_last.strides().end()),
            (std::vector<int64_t>{18, 1, 6, 2}));  // #PYTHON list(channels_last.stride())

  const Tensor e = fp::dispatch<Tensor>("aten::empty", "memory_format", std::vector<int64_t>{2, 2},
                                        fp::DType::F16, fp::Layout::Strided, fp::Device::cpu());
  EXPECT_EQ(e.dtype(), fp::DType::F16);  // #PYTHON e.dtype
  EXPECT_EQ(e.device(), fp::Device::cpu());
}

TEST(Dispatch, TensorListsAndOptionalTensorLists) {
  /*
  #|PYTHON
  a = torch.tensor([[1., 2.]])
  b = torch.tensor([[3., 4.]])
  joined = torch.ops.aten.cat([a, b], 0)
  m = torch.arange(6.).reshape(2, 3)
  picked = torch.ops.aten.index.Tensor(m, [None, torch.tensor([2, 0])])
  */
  const auto a = fp::tensor({{1.f, 2.f}});
  const auto b = fp::tensor({{3.f, 4.f}});
  const Tensor joined = fp::dispatch<Tensor>("aten::cat", "", std::vector<fp::TensorView>{a, b}, 0);
  EXPECT_EQ(joined.to_vector<float>(), truth<std::vector<float>>("joined.flatten().tolist()"));
  EXPECT_EQ(joined.size(0), 2);  // #PYTHON joined.size(0)

  const Tensor columns = fp::tensor({int64_t{2}, int64_t{0}});
  const std::vector<std::optional<fp::TensorView>> indices = {std::nullopt, columns};
  const Tensor picked = fp::dispatch<Tensor>("aten::index", "Tensor", two_by_three(), indices);
  EXPECT_EQ(picked.to_vector<float>(), truth<std::vector<float>>("picked.flatten().tolist()"));
}

TEST(Dispatch, FloatAndBoolLists) {
  /*
  #|PYTHON
  x = torch.arange(4.).reshape(1, 1, 2, 2)
  up = torch.ops.aten.upsample_nearest2d.vec(x, None, [2.0, 1.5])
  g = torch.ones(1, 1, 2, 2)
  grid = torch.zeros(1, 2, 2, 2)
  grad_input, grad_grid = torch.ops.aten.grid_sampler_2d_backward(g, x, grid, 0, 0, False, [True, False])
  */
  const Tensor x = fp::tensor({{{{0.f, 1.f}, {2.f, 3.f}}}});
  const Tensor up = fp::dispatch<Tensor>("aten::upsample_nearest2d", "vec", x, std::nullopt,
                                         std::vector<double>{2.0, 1.5});
  EXPECT_EQ(std::vector<int64_t>(up.sizes().begin(), up.sizes().end()),
            (std::vector<int64_t>{1, 1, 4, 3}));  // #PYTHON list(up.shape)
  EXPECT_EQ(up.to_vector<float>(), truth<std::vector<float>>("up.flatten().tolist()"));

  const Tensor g = fp::tensor({{{{1.f, 1.f}, {1.f, 1.f}}}});
  const Tensor grid = fp::dispatch<Tensor>("aten::zeros", "", std::vector<int64_t>{1, 2, 2, 2});
  auto [grad_input, grad_grid] =
      fp::dispatch<std::tuple<Tensor, Tensor>>("aten::grid_sampler_2d_backward", "", g, x, grid, 0,
                                               0, false, std::vector<bool>{true, false});
  EXPECT_EQ(grad_input.to_vector<float>(),
            truth<std::vector<float>>("grad_input.flatten().tolist()"));
  EXPECT_EQ(grad_grid.is_defined(),
            true);  // #PYTHON grad_grid is not None and grad_grid.numel() > 0
}

TEST(Dispatch, UndefinedResultsComeBackAsUndefinedTensors) {
  /*
  #|PYTHON
  x = torch.tensor([[1., 2.], [3., 5.]])
  out, mean, rstd = torch.ops.aten.native_layer_norm(x, [2], None, None, 1e-5)
  grads = torch.ops.aten.native_layer_norm_backward(torch.ones(2, 2), x, [2], mean, rstd, None, None, [True, False, False])
  */
  const auto x = fp::tensor({{1.f, 2.f}, {3.f, 5.f}});
  auto [out, mean, rstd] = fp::dispatch<std::tuple<Tensor, Tensor, Tensor>>(
      "aten::native_layer_norm", "", x, std::vector<int64_t>{2}, std::nullopt, std::nullopt, 1e-5);
  const auto ones = fp::tensor({{1.f, 1.f}, {1.f, 1.f}});
  auto [grad_input, grad_weight, grad_bias] = fp::dispatch<std::tuple<Tensor, Tensor, Tensor>>(
      "aten::native_layer_norm_backward", "", ones, x, std::vector<int64_t>{2}, mean, rstd,
      std::nullopt, std::nullopt, std::vector<bool>{true, false, false});
  EXPECT_EQ(grad_input.is_defined(), true);    // #PYTHON grads[0] is not None
  EXPECT_EQ(grad_weight.is_defined(), false);  // #PYTHON grads[1] is not None
  EXPECT_EQ(grad_bias.is_defined(), false);    // #PYTHON grads[2] is not None
  EXPECT_EQ(grad_input.to_vector<float>(),
            truth<std::vector<float>>("grads[0].flatten().tolist()"));
}

TEST(Dispatch, IntegersFillFloatArguments) {
  /*
  #|PYTHON
  x = torch.tensor([float("nan"), 1., float("inf")])
  r = torch.ops.aten.nan_to_num(x, 0, 100, -100)
  */
  const auto x = fp::tensor(
      {std::numeric_limits<float>::quiet_NaN(), 1.f, std::numeric_limits<float>::infinity()});
  const Tensor r = fp::dispatch<Tensor>("aten::nan_to_num", "", x, 0, 100, -100);
  EXPECT_EQ(r.to_vector<float>(), truth<std::vector<float>>("r.tolist()"));
}

TEST(Dispatch, VoidDiscardsResultsAndInPlaceOpsWrite) {
  /*
  #|PYTHON
  t = torch.zeros(3)
  torch.ops.aten.fill_.Tensor(t, torch.tensor(2.5))
  */
  Tensor t = fp::tensor({0.f, 0.f, 0.f});
  fp::dispatch("aten::fill_", "Tensor", t, fp::tensor(2.5f));
  EXPECT_EQ(t.to_vector<float>(), truth<std::vector<float>>("t.tolist()"));
}

// --- bad input -------------------------------------------------------------------

TEST(DispatchErrors, WrongArgumentTypeNamesTheSchema) {
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "aten::flip: argument 1 'dims' expects int[], got float; the schema is flip(Tensor self, "
      "int[] dims) -> Tensor",
      fp::dispatch<Tensor>("aten::flip", "", two_by_three(), 1.5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "aten::flip: argument 0 'self' expects Tensor, got int",
                  fp::dispatch<Tensor>("aten::flip", "", 3, std::vector<int64_t>{0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "argument 1 'dtype' expects ScalarType?, got bool",
                  fp::dispatch<Tensor>("aten::sum", "", two_by_three(), true));
}

TEST(DispatchErrors, WrongArgumentCount) {
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "aten::flip: missing argument 1 'dims' (int[]); 2 arguments have no default, got 1",
      fp::dispatch<Tensor>("aten::flip", "", two_by_three()));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "aten::neg: takes at most 1 arguments, got 2; the schema is neg(Tensor self) -> Tensor",
      fp::dispatch<Tensor>("aten::neg", "", two_by_three(), 1));
}

TEST(DispatchErrors, UnknownOpsAndOverloads) {
  EXPECT_FP_ERROR(fp::ErrorCode::OpNotFound,
                  "aten::flipp: no such op in the schemas flash_powder knows",
                  fp::dispatch<Tensor>("aten::flipp", "", two_by_three()));
  EXPECT_FP_ERROR(fp::ErrorCode::OpNotFound,
                  "aten::max.foo: no such op in the schemas flash_powder knows (its "
                  "overloads: \"\", dim, dim_max, other, out, unary_out)",
                  fp::dispatch<Tensor>("aten::max", "foo", two_by_three()));
  EXPECT_FP_ERROR(fp::ErrorCode::OpNotFound, "op names look like \"aten::add\"",
                  fp::dispatch<Tensor>("flip", "", two_by_three()));
}

TEST(DispatchErrors, ScalarArgumentsCannotCrossTheStableAbi) {
  EXPECT_FP_ERROR(
      fp::ErrorCode::Unsupported,
      "aten::add.Tensor: argument 2 'alpha' (Scalar, default 1) cannot be passed through "
      "libtorch's stable ABI",
      fp::dispatch<Tensor>("aten::add", "Tensor", two_by_three(), two_by_three()));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Unsupported,
      "aten::mul.Scalar: argument 1 'other' has type Scalar, which libtorch's stable ABI cannot "
      "carry",
      fp::dispatch<Tensor>("aten::mul", "Scalar", two_by_three(), 2.0));
}

TEST(DispatchErrors, ResultTypeMismatch) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "aten::flip: returns Tensor where the caller asked for int; the schema is flip",
                  fp::dispatch<int64_t>("aten::flip", "", two_by_three(), std::vector<int64_t>{0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "aten::max.dim: returns 2 values where the caller asked for one Tensor",
                  fp::dispatch<Tensor>("aten::max", "dim", two_by_three(), 1));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "aten::max.dim: returns 2 values where the caller asked for a tuple of 3",
      fp::dispatch<std::tuple<Tensor, Tensor, Tensor>>("aten::max", "dim", two_by_three(), 1));
}

TEST(DispatchErrors, LibtorchMessagesArriveWithoutBacktrace) {
  /*
  #|PYTHON
  try:
      torch.ops.aten.mm(torch.zeros(2, 3), torch.zeros(2, 3))
  except RuntimeError as e:
      message = str(e)
  */
  // libtorch's wording changes between releases (2.15 prefixes "mm: ").
  const std::string expected = truth<std::string>("message");
  EXPECT_TORCH_ERROR_EXACT("aten::mm", expected,
                           fp::dispatch<Tensor>("aten::mm", "", two_by_three(), two_by_three()));
}

TEST(DispatchErrors, NullAndUndefinedTensors) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "aten::neg: argument 0 'self' expects Tensor, got a null tensor handle",
                  fp::dispatch<Tensor>("aten::neg", "", fp::abi::RawTensor{nullptr}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "aten::neg: argument 0 'self' expects Tensor, got a null tensor handle",
                  fp::dispatch<Tensor>("aten::neg", "", Tensor()));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "aten::cat: argument 0 'tensors' expects Tensor[], got a list holding a null tensor",
      fp::dispatch<Tensor>("aten::cat", "",
                           std::vector<fp::abi::RawTensor>{two_by_three().raw(), nullptr}));
}

TEST(DispatchErrors, IntegersTooLargeForInt64) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::dispatch: the integer 9223372036854775808 does not fit the int64",
                  fp::dispatch<int64_t>("aten::size", "int", two_by_three(), uint64_t{1} << 63));
}

TEST(DispatchErrors, AnOpTheLoadedTorchLacksFailsCleanly) {
  // Known to flash_powder (so the call is boxed) but registered nowhere in
  // libtorch: libtorch's error reaches the caller. Whether libtorch took the
  // boxed arguments is never read from its message, so a schema registered
  // for an op libtorch lacks leaves one call's arguments unfreed; these are
  // plain bits, which own nothing (valgrind and ASan check that). Ops of a
  // destroyed fp::library::Library are refused before boxing
  // (LibraryBinding.AnUnregisteredLibrarysOpsAreGone).
  fp::abi::register_schema("fp_test::absent(int n, float f, bool b) -> Tensor");
  EXPECT_TORCH_ERROR("fp_test::absent: Could not find schema for fp_test::absent",
                     fp::dispatch<Tensor>("fp_test::absent", "", 2, 0.5, true));
}

}  // namespace

namespace {

TEST(Dispatch, RunsOnCuda) {
  if (!fp::cuda_is_available()) GTEST_SKIP() << "no CUDA device here";
  /*
  #|PYTHON
  m = torch.arange(6.).reshape(2, 3)
  r = torch.ops.aten.flip(m, [1])
  */
  const Tensor on_gpu = fp::dispatch<Tensor>("aten::_to_copy", "", two_by_three(), std::nullopt,
                                             std::nullopt, fp::Device::cuda(0));
  EXPECT_EQ(on_gpu.device(), fp::Device::cuda(0));
  const Tensor r = fp::dispatch<Tensor>("aten::flip", "", on_gpu, std::vector<int64_t>{1});
  EXPECT_EQ(r.device(), fp::Device::cuda(0));
  EXPECT_EQ(r.to_vector<float>(), truth<std::vector<float>>("r.flatten().tolist()"));
}

TEST(DispatchErrors, CudaWithoutADeviceIsAnError) {
  if (fp::cuda_is_available()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::_to_copy: ",
                  fp::dispatch<Tensor>("aten::_to_copy", "", two_by_three(), std::nullopt,
                                       std::nullopt, fp::Device::cuda(0)));
}

}  // namespace

namespace {

// --- the tensor promises hold through fp::dispatch -------------------------------

TEST(DispatchSemantics, ViewOpsReturnIndependentTensors) {
  Tensor m = two_by_three();
  const Tensor transposed = fp::dispatch<Tensor>("aten::transpose", "int", m, 0, 1);
  m.data_mut<float>()[1] = 100.f;
  EXPECT_EQ(transposed.at<float>({1, 0}), 1.f);
  const auto rows = fp::dispatch<std::vector<Tensor>>("aten::unbind", "int", m, 0);
  m.data_mut<float>()[0] = -5.f;
  EXPECT_EQ(rows[0].at<float>({0}), 0.f);
}

TEST(DispatchSemantics, WritesNeedATensorLentForWriting) {
  const Tensor constant = two_by_three();
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "aten::fill_.Tensor: argument 0 'self' is written to (Tensor(a!)); pass a non-const "
      "fp::Tensor or an fp::TensorMutView",
      fp::dispatch("aten::fill_", "Tensor", constant, fp::tensor(1.f)));
  EXPECT_EQ(constant.at<float>({0, 0}), 0.f);
  Tensor variable = two_by_three();
  const fp::TensorView view = variable;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "argument 0 'self' is written to",
                  fp::dispatch("aten::fill_", "Tensor", view, fp::tensor(1.f)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "argument 0 'self' is written to",
                  fp::dispatch("aten::fill_", "Tensor", two_by_three(), fp::tensor(1.f)));
}

#if FP_BORROW_CHECK
TEST(DispatchSemantics, WritesFollowTheBorrowRules) {
  Tensor t = two_by_three();
  {
    const fp::TensorView reader = t;
    EXPECT_FP_ERROR(fp::ErrorCode::Borrow,
                    "fp::BorrowError: cannot call aten::fill_.Tensor on a Tensor while 1 "
                    "TensorView of it",
                    fp::dispatch("aten::fill_", "Tensor", t, fp::tensor(1.f)));
  }
  // A view of `t` passed to the very call that writes `t` is the op's own
  // business (like t.mul_(t) in Python): allowed.
  fp::dispatch("aten::mul_", "Tensor", t, fp::TensorView(t));
  EXPECT_EQ(t.to_vector<float>(),
            truth<std::vector<float>>("(torch.arange(6.) * torch.arange(6.)).tolist()"));
}
#endif

}  // namespace

namespace {

TEST(DispatchErrors, MixedTypeResultTuplesAreRefused) {
  // libtorch 2.13's dispatcher converts (float, int) or (Tensor, Tensor[])
  // results in the wrong order; refusing up front beats failing after the op ran.
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported,
                  "aten::_choose_qparams_per_tensor: returns a tuple of mixed types",
                  fp::dispatch<std::tuple<double, int64_t>>("aten::_choose_qparams_per_tensor", "",
                                                            two_by_three()));
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported,
                  "aten::histogramdd.int_bins: returns a tuple of mixed types",
                  fp::dispatch<std::tuple<Tensor, std::vector<Tensor>>>(
                      "aten::histogramdd", "int_bins", two_by_three(), 3));
}

}  // namespace
