// fp::functional pooling against torch.nn.functional: max_pool3d, avg_pool1d/3d, adaptive
// pooling in 1d and 3d, lp_pool1d/2d/3d, max_unpool1d/2d/3d and fractional_max_pool2d/3d,
// in several option sets, dtypes, batched and unbatched, contiguous or not.
// Why this file is long: eleven pooling families, each with its bad-input checks, share its
// helpers.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <limits>
#include <tuple>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
from truth_helpers import g, lp_pool, values
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
def each_dtype(x, f, dtypes=FLOATS):
    """values(f(x.to(dtype))) for each dtype; for a pair, both (indices as floats)."""
    out = []
    for d in dtypes:
        r = f(x.to(d))
        out += [values(t.double()) for t in r] if isinstance(r, tuple) else [values(r.double())]
    return out
*/

// A named namespace: the unity build compiles this file together with others.
namespace pooling_test {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::randn;
using nn_test::shape;

using Doubles = std::vector<std::vector<double>>;
using Indices = std::vector<int64_t>;

constexpr double inf = std::numeric_limits<double>::infinity();

const std::vector<fp::DType> floats = {fp::DType::F32, fp::DType::F64, fp::DType::F16,
                                       fp::DType::BF16};
const std::vector<fp::DType> wide_floats = {fp::DType::F32, fp::DType::F64};

std::vector<double> doubles(const fp::detail::TensorBase& t) {
  return t.to_vector<double>();
}

/// The C++ side of the Python helper `each_dtype`.
template <class Function>
Doubles each_dtype(const fp::TensorView& x, Function f,
                   const std::vector<fp::DType>& dtypes = floats) {
  Doubles out;
  for (fp::DType dtype : dtypes) {
    const auto r = f(fp::TensorView(x.to(dtype)));
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(r)>, fp::Tensor>) {
      out.push_back(doubles(r));
    } else {
      out.push_back(doubles(std::get<0>(r)));
      out.push_back(doubles(std::get<1>(r)));
    }
  }
  return out;
}

// --- max_pool3d -------------------------------------------------------------------------

TEST(Pooling, MaxPool3d) {
  /*
  #|PYTHON
  x = torch.randn(2, 2, 5, 6, 4, generator=g(1))
  v, i = F.max_pool3d(x, 3, stride=(2, 1, 2), padding=1, dilation=(1, 2, 1), ceil_mode=True,
                      return_indices=True)
  */
  const fp::Tensor x = randn({2, 2, 5, 6, 4}, 1);
  EXPECT_PYTHON(each_dtype(x, [](const fp::TensorView& t) { return F::max_pool3d(t, 2); }),
                truth<Doubles>("each_dtype(x, lambda t: F.max_pool3d(t, 2))"));
  const F::MaxPool3dOptions options{
      .stride = {2, 1, 2}, .padding = 1, .dilation = {1, 2, 1}, .ceil_mode = true};
  fp::Tensor v, i;
  std::tie(v, i) = F::max_pool3d_with_indices(x, 3, options);
  EXPECT_PYTHON(doubles(v), truth<std::vector<double>>("values(v)"));
  EXPECT_EQ(i.to_vector<int64_t>(), truth<Indices>("values(i)"));
  EXPECT_PYTHON(doubles(F::max_pool3d(x, 3, options)), truth<std::vector<double>>("values(v)"));
  // Unbatched, and not contiguous.
  EXPECT_PYTHON(each_dtype(x.i(1).transpose(1, 3),
                           [](const fp::TensorView& t) {
                             return F::max_pool3d_with_indices(t, {2, 1, 2}, {.stride = 1});
                           }),
                truth<Doubles>("each_dtype(x[1].transpose(1, 3), lambda t: F.max_pool3d(t, "
                               "(2, 1, 2), stride=1, return_indices=True))"));
}

// --- avg_pool ---------------------------------------------------------------------------

TEST(Pooling, AvgPool1d) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 9, generator=g(2))
  */
  const fp::Tensor x = randn({2, 3, 9}, 2);
  EXPECT_PYTHON(each_dtype(x, [](const fp::TensorView& t) { return F::avg_pool1d(t, 2); }),
                truth<Doubles>("each_dtype(x, lambda t: F.avg_pool1d(t, 2))"));
  EXPECT_PYTHON(
      each_dtype(x,
                 [](const fp::TensorView& t) {
                   return F::avg_pool1d(t, 4, {.stride = 3, .padding = 2, .ceil_mode = true});
                 }),
      truth<Doubles>(
          "each_dtype(x, lambda t: F.avg_pool1d(t, 4, stride=3, padding=2, ceil_mode=True))"));
  EXPECT_PYTHON(each_dtype(x.i(0),
                           [](const fp::TensorView& t) {
                             return F::avg_pool1d(t, 3, {.padding = 1, .count_include_pad = false});
                           }),
                truth<Doubles>("each_dtype(x[0], lambda t: F.avg_pool1d(t, 3, padding=1, "
                               "count_include_pad=False))"));
  EXPECT_PYTHON(doubles(F::avg_pool1d(x.transpose(0, 2), 2)),
                truth<std::vector<double>>("values(F.avg_pool1d(x.transpose(0, 2), 2))"));
}

TEST(Pooling, AvgPool3d) {
  /*
  #|PYTHON
  x = torch.randn(2, 2, 4, 5, 6, generator=g(3))
  both = [torch.float32, torch.float64]
  */
  const fp::Tensor x = randn({2, 2, 4, 5, 6}, 3);
  EXPECT_PYTHON(each_dtype(
                    x, [](const fp::TensorView& t) { return F::avg_pool3d(t, 2); }, wide_floats),
                truth<Doubles>("each_dtype(x, lambda t: F.avg_pool3d(t, 2), both)"));
  EXPECT_PYTHON(each_dtype(
                    x,
                    [](const fp::TensorView& t) {
                      return F::avg_pool3d(t, {3, 2, 3},
                                           {.stride = {2, 1, 2},
                                            .padding = {1, 0, 1},
                                            .ceil_mode = true,
                                            .count_include_pad = false});
                    },
                    wide_floats),
                truth<Doubles>("each_dtype(x, lambda t: F.avg_pool3d(t, (3, 2, 3), stride=(2, 1, "
                               "2), padding=(1, 0, 1), ceil_mode=True, count_include_pad=False), "
                               "both)"));
  EXPECT_PYTHON(
      each_dtype(
          x.i(1).transpose(1, 3),
          [](const fp::TensorView& t) { return F::avg_pool3d(t, 2, {.divisor_override = 3}); },
          wide_floats),
      truth<Doubles>("each_dtype(x[1].transpose(1, 3), lambda t: F.avg_pool3d(t, 2, "
                     "divisor_override=3), both)"));
  EXPECT_TORCH_ERROR(R"("avg_pool3d_out_frame" not implemented for 'Half')",
                     F::avg_pool3d(x.to(fp::DType::F16), 2));
}

// --- adaptive pooling -------------------------------------------------------------------

TEST(Pooling, Adaptive1d3d) {
  /*
  #|PYTHON
  x1 = torch.randn(2, 3, 10, generator=g(4))
  x3 = torch.randn(2, 2, 5, 7, 6, generator=g(5))
  */
  const fp::Tensor x1 = randn({2, 3, 10}, 4), x3 = randn({2, 2, 5, 7, 6}, 5);
  EXPECT_PYTHON(
      each_dtype(x1,
                 [](const fp::TensorView& t) { return F::adaptive_max_pool1d_with_indices(t, 4); }),
      truth<Doubles>("each_dtype(x1, lambda t: F.adaptive_max_pool1d(t, 4, return_indices=True))"));
  EXPECT_PYTHON(doubles(F::adaptive_max_pool1d(x1.i(0), 3)),
                truth<std::vector<double>>("values(F.adaptive_max_pool1d(x1[0], 3))"));
  EXPECT_PYTHON(each_dtype(x3,
                           [](const fp::TensorView& t) {
                             return F::adaptive_max_pool3d_with_indices(t, {std::nullopt, 2, 4});
                           }),
                truth<Doubles>("each_dtype(x3, lambda t: F.adaptive_max_pool3d(t, (None, 2, 4), "
                               "return_indices=True))"));
  EXPECT_PYTHON(doubles(F::adaptive_max_pool3d(x3.transpose(2, 4), 3)),
                truth<std::vector<double>>("values(F.adaptive_max_pool3d(x3.transpose(2, 4), 3))"));
  EXPECT_PYTHON(each_dtype(x3,
                           [](const fp::TensorView& t) {
                             return F::adaptive_avg_pool3d(t, {3, 2, 4});
                           }),
                truth<Doubles>("each_dtype(x3, lambda t: F.adaptive_avg_pool3d(t, (3, 2, 4)))"));
  const fp::Tensor kept = F::adaptive_avg_pool3d(x3.i(0), {2, std::nullopt, 3});
  EXPECT_EQ(shape(kept),
            (std::vector<int64_t>{
                2, 2, 7, 3}));  // #PYTHON list(F.adaptive_avg_pool3d(x3[0], (2, None, 3)).shape)
  EXPECT_PYTHON(doubles(kept),
                truth<std::vector<double>>("values(F.adaptive_avg_pool3d(x3[0], (2, None, 3)))"));
}

// --- lp_pool ----------------------------------------------------------------------------

TEST(Pooling, LPPool1d2d) {
  /*
  #|PYTHON
  x1 = torch.randn(2, 3, 9, generator=g(6))
  x2 = torch.randn(2, 2, 6, 7, generator=g(7))
  */
  const fp::Tensor x1 = randn({2, 3, 9}, 6), x2 = randn({2, 2, 6, 7}, 7);
  EXPECT_PYTHON(each_dtype(x1, [](const fp::TensorView& t) { return F::lp_pool1d(t, 2.0, 3); }),
                truth<Doubles>("each_dtype(x1, lambda t: F.lp_pool1d(t, 2.0, 3))"));
  // Odd and fractional powers of |x| (of x, windows with a negative sum would be NaN, as in
  // Python), and a negative one.
  EXPECT_PYTHON(
      each_dtype(x1.abs(),
                 [](const fp::TensorView& t) {
                   return F::lp_pool1d(t, 3.0, 2, {.stride = 3, .ceil_mode = true});
                 }),
      truth<Doubles>(
          "each_dtype(x1.abs(), lambda t: F.lp_pool1d(t, 3.0, 2, stride=3, ceil_mode=True))"));
  EXPECT_PYTHON(each_dtype(x1, [](const fp::TensorView& t) { return F::lp_pool1d(t, -2.0, 2); }),
                truth<Doubles>("each_dtype(x1, lambda t: F.lp_pool1d(t, -2.0, 2))"));
  EXPECT_PYTHON(
      each_dtype(x1.abs(), [](const fp::TensorView& t) { return F::lp_pool1d(t.i(0), 1.5, 2); }),
      truth<Doubles>("each_dtype(x1.abs(), lambda t: F.lp_pool1d(t[0], 1.5, 2))"));
  EXPECT_PYTHON(each_dtype(x2, [](const fp::TensorView& t) { return F::lp_pool2d(t, 2.0, 2); }),
                truth<Doubles>("each_dtype(x2, lambda t: F.lp_pool2d(t, 2.0, 2))"));
  EXPECT_PYTHON(each_dtype(x2.transpose(2, 3),
                           [](const fp::TensorView& t) {
                             return F::lp_pool2d(t, 4.0, {3, 2}, {.stride = {1, 2}});
                           }),
                truth<Doubles>("each_dtype(x2.transpose(2, 3), lambda t: F.lp_pool2d(t, 4.0, (3, "
                               "2), stride=(1, 2)))"));
  // ±infinity: the max pool of |x| (of -|x|, negated).
  EXPECT_PYTHON(
      each_dtype(
          x2, [](const fp::TensorView& t) { return F::lp_pool2d(t, inf, 2, {.ceil_mode = true}); }),
      truth<Doubles>("each_dtype(x2, lambda t: lp_pool(2, t, float('inf'), 2, ceil_mode=True))"));
  EXPECT_PYTHON(each_dtype(x1, [](const fp::TensorView& t) { return F::lp_pool1d(t, -inf, 2); }),
                truth<Doubles>("each_dtype(x1, lambda t: lp_pool(1, t, -float('inf'), 2))"));
  // An integer input: x^p is float32, as in Python with a float norm_type.
  const fp::Tensor counts = (x2 * fp::tensor(4.f)).to(fp::DType::I64);
  const fp::Tensor integral = F::lp_pool2d(counts, 2.0, 2);
  EXPECT_EQ(integral.dtype(),
            fp::DType::F32);  // #PYTHON F.lp_pool2d((x2 * 4).long(), 2.0, 2).dtype
  EXPECT_PYTHON(doubles(integral),
                truth<std::vector<double>>("values(F.lp_pool2d((x2 * 4).long(), 2.0, 2))"));
}

TEST(Pooling, LPPool3d) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 4, 5, 6, generator=g(8))
  both = [torch.float32, torch.float64]
  */
  const fp::Tensor x = randn({1, 2, 4, 5, 6}, 8);
  EXPECT_PYTHON(
      each_dtype(
          x, [](const fp::TensorView& t) { return F::lp_pool3d(t, 2.0, 2); }, wide_floats),
      truth<Doubles>("each_dtype(x, lambda t: F.lp_pool3d(t, 2.0, 2), both)"));
  EXPECT_PYTHON(
      each_dtype(
          x.abs().i(0).transpose(1, 3),
          [](const fp::TensorView& t) {
            return F::lp_pool3d(t, 3.0, {2, 3, 2}, {.stride = {1, 2, 2}, .ceil_mode = true});
          },
          wide_floats),
      truth<Doubles>(
          "each_dtype(x.abs()[0].transpose(1, 3), lambda t: F.lp_pool3d(t, 3.0, (2, 3, 2), "
          "stride=(1, 2, 2), ceil_mode=True), both)"));
  // ±infinity is a max pool, which float16 has.
  EXPECT_PYTHON(each_dtype(x, [](const fp::TensorView& t) { return F::lp_pool3d(t, inf, 2); }),
                truth<Doubles>("each_dtype(x, lambda t: lp_pool(3, t, float('inf'), 2))"));
}

// --- max_unpool -------------------------------------------------------------------------

TEST(Pooling, MaxUnpool) {
  /*
  #|PYTHON
  x1 = torch.randn(2, 3, 8, generator=g(9))
  x2 = torch.randn(2, 2, 6, 8, generator=g(10))
  x3 = torch.randn(1, 2, 4, 5, 6, generator=g(11))
  v1, i1 = F.max_pool1d(x1, 3, stride=2, padding=1, return_indices=True)
  w1, j1 = F.max_pool1d(x1, 2, return_indices=True)
  v2, i2 = F.max_pool2d(x2, 2, return_indices=True)
  v3, i3 = F.max_pool3d(x3, (2, 3, 2), stride=(2, 2, 1), return_indices=True)
  */
  const fp::Tensor x1 = randn({2, 3, 8}, 9), x2 = randn({2, 2, 6, 8}, 10),
                   x3 = randn({1, 2, 4, 5, 6}, 11);
  fp::Tensor v1, i1;
  std::tie(v1, i1) = F::max_pool1d_with_indices(x1, 3, {.stride = 2, .padding = 1});
  fp::Tensor v2, i2;
  std::tie(v2, i2) = F::max_pool2d_with_indices(x2, 2);
  fp::Tensor v3, i3;
  std::tie(v3, i3) = F::max_pool3d_with_indices(x3, {2, 3, 2}, {.stride = {2, 2, 1}});
  EXPECT_PYTHON(
      each_dtype(
          v1,
          [&](const fp::TensorView& t) {
            return F::max_unpool1d(t, i1, 3, {.stride = 2, .padding = 1, .output_size = {2, 3, 8}});
          }),
      truth<Doubles>("each_dtype(v1, lambda t: F.max_unpool1d(t, i1, 3, stride=2, padding=1, "
                     "output_size=[2, 3, 8]))"));
  EXPECT_PYTHON(doubles(F::max_unpool1d(v1.i(0), i1.i(0), 3,
                                        {.stride = 2, .padding = 1, .output_size = {8}})),
                truth<std::vector<double>>("values(F.max_unpool1d(v1[0], i1[0], 3, stride=2, "
                                           "padding=1, output_size=[8]))"));
  fp::Tensor w1, j1;
  std::tie(w1, j1) = F::max_pool1d_with_indices(x1, 2);
  EXPECT_PYTHON(each_dtype(w1, [&](const fp::TensorView& t) { return F::max_unpool1d(t, j1, 2); }),
                truth<Doubles>("each_dtype(w1, lambda t: F.max_unpool1d(t, j1, 2))"));
  EXPECT_PYTHON(each_dtype(v2, [&](const fp::TensorView& t) { return F::max_unpool2d(t, i2, 2); }),
                truth<Doubles>("each_dtype(v2, lambda t: F.max_unpool2d(t, i2, 2))"));
  EXPECT_PYTHON(each_dtype(v2,
                           [&](const fp::TensorView& t) {
                             return F::max_unpool2d(t.i(1), i2.i(1), 2, {.output_size = {7, 9}});
                           }),
                truth<Doubles>("each_dtype(v2, lambda t: F.max_unpool2d(t[1], i2[1], 2, "
                               "output_size=(7, 9)))"));
  EXPECT_PYTHON(each_dtype(v3,
                           [&](const fp::TensorView& t) {
                             return F::max_unpool3d(
                                 t, i3, {2, 3, 2}, {.stride = {2, 2, 1}, .output_size = {4, 6, 6}});
                           }),
                truth<Doubles>("each_dtype(v3, lambda t: F.max_unpool3d(t, i3, (2, 3, 2), "
                               "stride=(2, 2, 1), output_size=(4, 6, 6)))"));
  EXPECT_PYTHON(doubles(F::max_unpool3d(v3.i(0), i3.i(0), {2, 3, 2}, {.stride = {2, 2, 1}})),
                truth<std::vector<double>>(
                    "values(F.max_unpool3d(v3[0], i3[0], (2, 3, 2), stride=(2, 2, 1)))"));
}

// --- fractional_max_pool ----------------------------------------------------------------

TEST(Pooling, FractionalMaxPoolWithSamples) {
  /*
  #|PYTHON
  x2 = torch.randn(2, 3, 9, 8, generator=g(12))
  x3 = torch.randn(2, 2, 7, 6, 8, generator=g(13))
  s2 = torch.rand(2, 3, 2, generator=g(14))
  s3 = torch.rand(2, 2, 3, generator=g(15))
  */
  const fp::Tensor x2 = randn({2, 3, 9, 8}, 12), x3 = randn({2, 2, 7, 6, 8}, 13);
  const fp::Tensor s2 = nn_test::rand({2, 3, 2}, 14), s3 = nn_test::rand({2, 2, 3}, 15);
  fp::Tensor v, i;
  std::tie(v, i) = F::fractional_max_pool2d_with_indices(
      x2, {3, 2}, {.output_size = {4, 5}, .random_samples = s2});
  EXPECT_PYTHON(doubles(v), truth<std::vector<double>>(
                                "values(F.fractional_max_pool2d(x2, (3, 2), output_size=(4, 5), "
                                "_random_samples=s2))"));
  EXPECT_EQ(i.to_vector<int64_t>(),
            truth<Indices>("values(F.fractional_max_pool2d(x2, (3, 2), output_size=(4, 5), "
                           "_random_samples=s2, return_indices=True)[1])"));
  EXPECT_PYTHON(
      each_dtype(x2,
                 [&](const fp::TensorView& t) {
                   return F::fractional_max_pool2d_with_indices(
                       t, 2, {.output_ratio = {0.5, 0.7}, .random_samples = s2.to(t.dtype())});
                 }),
      truth<Doubles>("each_dtype(x2, lambda t: F.fractional_max_pool2d(t, 2, output_ratio=(0.5, "
                     "0.7), _random_samples=s2.to(t.dtype), return_indices=True))"));
  EXPECT_PYTHON(
      doubles(F::fractional_max_pool2d(
          x2.i(1).transpose(1, 2), 2, {.output_size = 3, .random_samples = s2.i(fp::slice(1, 2))})),
      truth<std::vector<double>>("values(F.fractional_max_pool2d(x2[1].transpose(1, 2), 2, "
                                 "output_size=3, _random_samples=s2[1:2]))"));
  EXPECT_PYTHON(each_dtype(x3,
                           [&](const fp::TensorView& t) {
                             return F::fractional_max_pool3d_with_indices(
                                 t, {2, 3, 2},
                                 {.output_size = {3, 2, 4}, .random_samples = s3.to(t.dtype())});
                           }),
                truth<Doubles>("each_dtype(x3, lambda t: F.fractional_max_pool3d(t, (2, 3, 2), "
                               "output_size=(3, 2, 4), _random_samples=s3.to(t.dtype), "
                               "return_indices=True))"));
  EXPECT_PYTHON(
      doubles(F::fractional_max_pool3d(
          x3.i(0), 2, {.output_ratio = 0.6, .random_samples = s3.i(fp::slice(0, 1))})),
      truth<std::vector<double>>("values(F.fractional_max_pool3d(x3[0], 2, output_ratio=0.6, "
                                 "_random_samples=s3[0:1]))"));
}

TEST(Pooling, FractionalMaxPoolDrawsLikePython) {
  /*
  #|PYTHON
  x2 = torch.randn(2, 3, 9, 8, generator=g(16))
  x3 = torch.randn(1, 2, 6, 7, 5, generator=g(17))
  def from_generator(x, f, n):
      return lambda t: f(t, _random_samples=torch.rand(x.size(0), x.size(1), n,
                                                       generator=g(18), dtype=t.dtype))
  torch.manual_seed(19)
  first = values(F.fractional_max_pool2d(x2, 2, output_size=(5, 4)))
  second = values(F.fractional_max_pool2d(x2, 2, output_size=(5, 4)))
  unbatched = values(F.fractional_max_pool3d(x3[0], 2, output_ratio=(0.5, 0.5, 0.6)))
  */
  const fp::Tensor x2 = randn({2, 3, 9, 8}, 16), x3 = randn({1, 2, 6, 7, 5}, 17);
  // From a generator of one's own, in every dtype.
  EXPECT_PYTHON(
      each_dtype(x2,
                 [](const fp::TensorView& t) {
                   fp::Generator generator(18);
                   return F::fractional_max_pool2d_with_indices(t, {2, 3}, generator,
                                                                {.output_size = {4, 3}});
                 }),
      truth<Doubles>("each_dtype(x2, from_generator(x2, lambda t, **k: F.fractional_max_pool2d("
                     "t, (2, 3), output_size=(4, 3), return_indices=True, **k), 2))"));
  EXPECT_PYTHON(each_dtype(x3,
                           [](const fp::TensorView& t) {
                             fp::Generator generator(18);
                             return F::fractional_max_pool3d(t, 2, generator,
                                                             {.output_ratio = 0.5});
                           }),
                truth<Doubles>("each_dtype(x3, from_generator(x3, lambda t, **k: "
                               "F.fractional_max_pool3d(t, 2, output_ratio=0.5, **k), 3))"));
  // From the generator fp::nn::manual_seed seeds, as Python draws from torch's global one.
  fp::nn::manual_seed(19);
  EXPECT_PYTHON(doubles(F::fractional_max_pool2d(x2, 2, {.output_size = {5, 4}})),
                truth<std::vector<double>>("first"));
  EXPECT_PYTHON(doubles(F::fractional_max_pool2d(x2, 2, {.output_size = {5, 4}})),
                truth<std::vector<double>>("second"));
  EXPECT_PYTHON(doubles(F::fractional_max_pool3d(x3.i(0), 2, {.output_ratio = {0.5, 0.5, 0.6}})),
                truth<std::vector<double>>("unbatched"));
}

// --- bad input --------------------------------------------------------------------------

TEST(Pooling, BadInput) {
  const fp::Tensor x2 = randn({1, 2, 6, 6}, 20), x3 = randn({1, 2, 4, 4, 4}, 21);
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::max_pool3d", F::max_pool3d(x3, 5));
  EXPECT_TORCH_ERROR("pad should be at most half of effective kernel size",
                     F::avg_pool1d(x2.i(0), 2, {.padding = 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "adaptive pooling: Input dimension should be at least 4",
                  F::adaptive_avg_pool3d(x2.i(0), {std::nullopt, 2, 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::adaptive_max_pool1d",
                  F::adaptive_max_pool1d(x3, 2));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::functional::lp_pool2d: norm_type must not be 0 (Python: float division by zero)",
      F::lp_pool2d(x2, 0.0, 2));
  EXPECT_TORCH_ERROR(R"("avg_pool3d_out_frame" not implemented for 'BFloat16')",
                     F::lp_pool3d(x3.to(fp::DType::BF16), 2.0, 2));
}

TEST(Pooling, MaxUnpoolBadInput) {
  const fp::Tensor x = randn({2, 3, 6, 6}, 22);
  fp::Tensor v, i;
  std::tie(v, i) = F::max_pool2d_with_indices(x, 2);
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::max_unpool2d: invalid output_size \"[9, 9]\" (dim 0 must "
                        "be between 4 and 8)",
                        F::max_unpool2d(v, i, 2, {.output_size = {9, 9}}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::max_unpool2d: output_size should be a sequence "
                        "containing 2 or 4 elements, but it has a length of '3'",
                        F::max_unpool2d(v, i, 2, {.output_size = {1, 7, 7}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "but it has a length of '1'",
                  F::max_unpool2d(v, i, 2, {.output_size = 7}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::max_unpool2d: max_unpooling: output_size must contain "
                        "non-negative spatial dimensions, but got output_size[0]=-2",
                        F::max_unpool2d(v, i, 2, {.padding = 4}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::max_unpool3d: expected an input of at least 3 dimensions, got "
                  "[3, 3]",
                  F::max_unpool3d(v.i(0).i(0), i.i(0).i(0), 2));
  EXPECT_TORCH_ERROR("Expected shape of indices to be same as that of the input tensor",
                     F::max_unpool2d(v, i.i(fp::slice(0, 1)), 2));
  EXPECT_TORCH_ERROR("elements in indices should be type int64 but got: Int",
                     F::max_unpool2d(v, i.to(fp::DType::I32), 2));
  // Which invalid index libtorch names depends on how its threads split the planes.
  EXPECT_TORCH_ERROR("(output volumes are of size 6x6)",
                     F::max_unpool2d(v, i * fp::tensor(int64_t{10}), 2));
}

TEST(Pooling, FractionalMaxPoolBadInput) {
  const fp::Tensor x = randn({2, 3, 6, 6}, 23);
  const fp::Tensor s = nn_test::rand({2, 3, 2}, 24);
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::fractional_max_pool2d: fractional_max_pool2d requires "
                        "specifying either an output_size or an output_ratio",
                        F::fractional_max_pool2d(x, 2, {}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::fractional_max_pool3d: only one of output_size and "
                        "output_ratio may be specified",
                        F::fractional_max_pool3d(x, 2, {.output_size = 2, .output_ratio = 0.5}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::fractional_max_pool2d: Expected 3D or 4D tensor, but "
                        "got: [6, 6]",
                        F::fractional_max_pool2d(x.i(0).i(0), 2, {.output_size = 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fractional_max_pool3d: Expected 4D or 5D tensor, but got: [3, 6, 6]",
                  F::fractional_max_pool3d(x.i(0), 2, {.output_size = 2}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::fractional_max_pool2d: the samples are drawn in the "
                        "input's dtype, which must be floating point (got int64); or give "
                        "random_samples",
                        F::fractional_max_pool2d(x.to(fp::DType::I64), 2, {.output_size = 2}));
  EXPECT_TORCH_ERROR("fractional_max_pool2d(): pool height 2 too large relative to input height 6",
                     F::fractional_max_pool2d(x, 2, {.output_size = 6}));
  EXPECT_TORCH_ERROR(
      "Expect _random_samples to have the same dtype as input",
      F::fractional_max_pool2d(x, 2, {.output_size = 3, .random_samples = s.to(fp::DType::F64)}));
  EXPECT_TORCH_ERROR(
      "Expect _random_samples.size(0) no less then input batch size.",
      F::fractional_max_pool2d(x, 2, {.output_size = 3, .random_samples = s.i(fp::slice(0, 1))}));
}

}  // namespace pooling_test
