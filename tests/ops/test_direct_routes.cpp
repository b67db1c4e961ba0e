// The routes around libtorch's dispatcher (abi/direct.h, src/aten/direct_routes.h):
// every op that has one gives, for many dtypes and for contiguous,
// transposed, offset, strided, 0-dim and empty inputs, bit for bit what the
// dispatcher route gives (and PyTorch), or the same error; tensors not on the
// CPU (meta here, CUDA on a GPU machine) never reach a CPU kernel.
//
// Why this file is long: every route, each for many dtypes and layouts.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include "abi/direct.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ops/outcome.h"
#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp::Tensor;
using fp::TensorView;
using fp_test::truth;
using ops_test::describe;
using ops_test::Outcome;
using ops_test::outcome_of;
using ops_test::run;

/// `op()` on the direct route and forced through the dispatcher: the same.
template <class Op>
void expect_same_on_both_routes(const Op& op, const std::string& what) {
  const Outcome direct = run(op);
  Outcome dispatched;
  {
    const fp::abi::ForceDispatcher force;
    dispatched = run(op);
  }
  EXPECT_EQ(direct, dispatched) << what << "\n direct:     " << describe(direct)
                                << "\n dispatcher: " << describe(dispatched);
}

const std::vector<fp::DType> dtypes = {
    fp::DType::F32, fp::DType::F64, fp::DType::F16, fp::DType::BF16, fp::DType::I64,
    fp::DType::I32, fp::DType::I8,  fp::DType::U8,  fp::DType::Bool, fp::DType::C64};

/// Inputs of every layout the routes must handle, named for messages:
/// (arange(24) - 11) as [2, 3, 4] in `dtype`, and views of it.
std::vector<std::pair<std::string, Tensor>> inputs(fp::DType dtype) {
  const Tensor base = fp::aten::_to_copy((fp::arange(24) - 11).reshape({2, 3, 4}), dtype);
  std::vector<std::pair<std::string, Tensor>> out;
  out.emplace_back("contiguous [2,3,4]", base);
  out.emplace_back("transposed", Tensor(fp::aten::transpose_int(base, 0, 2).to_owned()));
  out.emplace_back("offset row", Tensor(fp::aten::select_int(base, 0, 1).to_owned()));
  out.emplace_back("stepped", Tensor(fp::aten::slice_Tensor(base, 2, 1, 4, 2).to_owned()));
  out.emplace_back("0-dim",
                   Tensor(fp::aten::select_int(
                              fp::aten::select_int(fp::aten::select_int(base, 0, 1), 0, 2), 0, 3)
                              .to_owned()));
  out.emplace_back("empty [0,3]", fp::aten::_to_copy(fp::zeros({0, 3}), dtype));
  out.emplace_back("1-dim",
                   Tensor(fp::aten::select_int(fp::aten::select_int(base, 0, 0), 0, 1).to_owned()));
  return out;
}

// ---------------------------------------------------------------------------------

TEST(DirectRoutes, ViewsMatchTheDispatcherRoute) {
  using View = std::function<TensorView(const Tensor&)>;
  using Bound = std::optional<std::int64_t>;
  // Valid arguments for some inputs, out of range for others (0-dim, 1-dim).
  const std::vector<std::pair<std::string, View>> views = {
      {"transpose(-1, 0)", [](const Tensor& t) { return fp::aten::transpose_int(t, -1, 0); }},
      {"transpose(0, 2)", [](const Tensor& t) { return fp::aten::transpose_int(t, 0, 2); }},
      {"transpose(2, -4)", [](const Tensor& t) { return fp::aten::transpose_int(t, 2, -4); }},
      {"t()", [](const Tensor& t) { return fp::aten::t(t); }},
      {"unsqueeze(-1)", [](const Tensor& t) { return fp::aten::unsqueeze(t, -1); }},
      {"unsqueeze(0)", [](const Tensor& t) { return fp::aten::unsqueeze(t, 0); }},
      {"unsqueeze(3)", [](const Tensor& t) { return fp::aten::unsqueeze(t, 3); }},
      {"squeeze(-1)", [](const Tensor& t) { return fp::aten::squeeze_dim(t, -1); }},
      {"squeeze(0)", [](const Tensor& t) { return fp::aten::squeeze_dim(t, 0); }},
      {"select(0, -1)", [](const Tensor& t) { return fp::aten::select_int(t, 0, -1); }},
      {"select(-1, 2)", [](const Tensor& t) { return fp::aten::select_int(t, -1, 2); }},
      {"select(1, 5)", [](const Tensor& t) { return fp::aten::select_int(t, 1, 5); }},
      {"narrow(0, 0, 1)", [](const Tensor& t) { return fp::aten::narrow(t, 0, 0, 1); }},
      {"narrow(-1, 1, 2)", [](const Tensor& t) { return fp::aten::narrow(t, -1, 1, 2); }},
      {"narrow(1, -2, 2)", [](const Tensor& t) { return fp::aten::narrow(t, 1, -2, 2); }},
      {"narrow(0, 1, 5)", [](const Tensor& t) { return fp::aten::narrow(t, 0, 1, 5); }},
      {"slice(0)", [](const Tensor& t) { return fp::aten::slice_Tensor(t, 0); }},
      {"slice(-1, 1, None, 2)",
       [](const Tensor& t) { return fp::aten::slice_Tensor(t, -1, 1, std::nullopt, 2); }},
      {"slice(1, -2, 100)", [](const Tensor& t) { return fp::aten::slice_Tensor(t, 1, -2, 100); }},
      {"slice(2, 7, 2, 3)", [](const Tensor& t) { return fp::aten::slice_Tensor(t, 2, 7, 2, 3); }},
      {"slice(0, -9, -1)",
       [](const Tensor& t) { return fp::aten::slice_Tensor(t, 0, Bound{-9}, Bound{-1}); }},
      {"slice(0, step 0)",
       [](const Tensor& t) { return fp::aten::slice_Tensor(t, 0, std::nullopt, std::nullopt, 0); }},
      {"permute([])", [](const Tensor& t) { return fp::aten::permute(t, {}); }},
      {"permute([0])", [](const Tensor& t) { return fp::aten::permute(t, {0}); }},
      {"permute([1, 0])",
       [](const Tensor& t) {
         return fp::aten::permute(t, {1, 0});
       }},
      {"permute([2, 0, 1])",
       [](const Tensor& t) {
         return fp::aten::permute(t, {2, 0, 1});
       }},
      {"permute([-1, 0, 1])",
       [](const Tensor& t) {
         return fp::aten::permute(t, {-1, 0, 1});
       }},
      {"permute([0, 1, 1])",
       [](const Tensor& t) {
         return fp::aten::permute(t, {0, 1, 1});
       }},
      // A view where PyTorch's computeStride finds one, a copy (reshape) or an
      // error (view) where it does not, errors for shapes that do not fit.
      {"reshape([-1])", [](const Tensor& t) { return fp::aten::reshape(t, {-1}); }},
      {"reshape([4, -1])",
       [](const Tensor& t) {
         return fp::aten::reshape(t, {4, -1});
       }},
      {"reshape([2, -1, 2])",
       [](const Tensor& t) {
         return fp::aten::reshape(t, {2, -1, 2});
       }},
      {"reshape([1, -1, 1])",
       [](const Tensor& t) {
         return fp::aten::reshape(t, {1, -1, 1});
       }},
      {"reshape([6, 4])",
       [](const Tensor& t) {
         return fp::aten::reshape(t, {6, 4});
       }},
      {"reshape([])", [](const Tensor& t) { return fp::aten::reshape(t, {}); }},
      {"reshape([0, -1])",
       [](const Tensor& t) {
         return fp::aten::reshape(t, {0, -1});
       }},
      {"reshape([3, 0])",
       [](const Tensor& t) {
         return fp::aten::reshape(t, {3, 0});
       }},
      {"reshape([-1, -1])",
       [](const Tensor& t) {
         return fp::aten::reshape(t, {-1, -1});
       }},
      {"reshape([-2, 3])",
       [](const Tensor& t) {
         return fp::aten::reshape(t, {-2, 3});
       }},
      {"view([-1])", [](const Tensor& t) { return fp::aten::view(t, {-1}); }},
      {"view([2, 3, 2, 2])",
       [](const Tensor& t) {
         return fp::aten::view(t, {2, 3, 2, 2});
       }},
      {"view([1, 2, 1, -1])",
       [](const Tensor& t) {
         return fp::aten::view(t, {1, 2, 1, -1});
       }},
  };

  int checked = 0;
  // The geometry does not depend on the dtype; the bytes compared do.
  for (fp::DType dtype : {fp::DType::F32, fp::DType::Bool}) {
    for (const auto& [input_name, input] : inputs(dtype)) {
      const Tensor& tensor = input;
      for (const auto& [view_name, view] : views) {
        const View& make = view;
        expect_same_on_both_routes(
            [&] { return make(tensor); },
            view_name + " of " + input_name + " " + std::string(fp::name(dtype)));
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 550);
}

TEST(DirectRoutes, ViewsMatchPyTorch) {
  /*
  #|PYTHON
  from truth_helpers import message
  m = (torch.arange(24) - 11).reshape(2, 3, 4).float()
  cases = [m.transpose(0, 2), m[1], m[:, 1:3, ::2], m.narrow(2, 1, 2), m.unsqueeze(-1),
           m[0:1].squeeze(0), m.permute(2, 0, 1), m[0].t(), m.transpose(0, 2)[1]]
  geometry = [list(c.shape) + list(c.stride()) + [c.storage_offset()] for c in cases]
  contents = [c.flatten().tolist() for c in cases]
  */
  const Tensor m = fp::aten::_to_copy((fp::arange(24) - 11).reshape({2, 3, 4}), fp::DType::F32);
  const std::vector<TensorView> cases = {
      fp::aten::transpose_int(m, 0, 2),
      fp::aten::select_int(m, 0, 1),
      fp::aten::slice_Tensor(fp::aten::slice_Tensor(m, 1, 1, 3), 2, std::nullopt, std::nullopt, 2),
      fp::aten::narrow(m, 2, 1, 2),
      fp::aten::unsqueeze(m, -1),
      fp::aten::squeeze_dim(fp::aten::slice_Tensor(m, 0, 0, 1), 0),
      fp::aten::permute(m, {2, 0, 1}),
      fp::aten::t(fp::aten::select_int(m, 0, 0)),
      fp::aten::select_int(fp::aten::transpose_int(m, 0, 2), 0, 1)};
  const auto geometry = truth<std::vector<std::vector<std::int64_t>>>("geometry");
  const auto contents = truth<std::vector<std::vector<float>>>("contents");
  ASSERT_EQ(geometry.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Outcome outcome = outcome_of(cases[i]);
    std::vector<std::int64_t> got = outcome.sizes;
    got.insert(got.end(), outcome.strides.begin(), outcome.strides.end());
    got.push_back(outcome.offset);
    EXPECT_EQ(got, geometry[i]) << "case " << i;
    EXPECT_EQ(Tensor(cases[i].to_owned()).to_vector<float>(), contents[i]) << "case " << i;
  }
}

TEST(DirectRoutes, ViewErrorsArePyTorchs) {
  /*
  #|PYTHON
  from truth_helpers import message
  m = torch.zeros(2, 3)
  */
  const Tensor m = fp::zeros({2, 3});
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact("aten::transpose.int",
                                 truth<std::string>("message(lambda: m.transpose(0, 2))")),
      (void)fp::aten::transpose_int(m, 0, 2));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact("aten::select.int",
                                 truth<std::string>("message(lambda: m.select(1, 3))")),
      (void)fp::aten::select_int(m, 1, 3));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact("aten::narrow",
                                 truth<std::string>("message(lambda: m.narrow(1, 2, 2))")),
      (void)fp::aten::narrow(m, 1, 2, 2));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact("aten::permute",
                                 truth<std::string>("message(lambda: m.permute(0, 0))")),
      (void)fp::aten::permute(m, {0, 0}));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact("aten::t",
                                 truth<std::string>("message(lambda: torch.zeros(1, 2, 3).t())")),
      (void)fp::aten::t(fp::zeros({1, 2, 3})));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact("aten::reshape",
                                 truth<std::string>("message(lambda: m.reshape(4, -1))")),
      (void)fp::aten::reshape(m, {4, -1}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::TorchError,
                        fp_test::torch_error_exact(
                            "aten::view", truth<std::string>("message(lambda: m.t().view(-1))")),
                        (void)fp::aten::view(fp::aten::t(m), {-1}));
}

TEST(DirectRoutes, ViewsKeepTheBorrowRules) {
  Tensor m = fp::zeros({2, 3});
  {
    const TensorView view = fp::aten::transpose_int(m, 0, 1);
    EXPECT_EQ(fp::abi::const_data_ptr(view.raw()), fp::abi::const_data_ptr(m.raw()));
#if FP_BORROW_CHECK
    EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "(latest: aten::transpose.int)", fp::aten::abs_(m));
#endif
  }
  fp::aten::abs_(m);
}

TEST(DirectRoutes, KernelsMatchTheDispatcherRoute) {
  int checked = 0;
  for (fp::DType left :
       {fp::DType::F32, fp::DType::F16, fp::DType::I64, fp::DType::Bool, fp::DType::C64}) {
    for (fp::DType right : {fp::DType::F32, fp::DType::Bool}) {
      const auto lefts = inputs(left);
      const auto rights = inputs(right);
      // Each layout with itself, and with another (broadcasting or not).
      for (std::size_t i = 0; i < lefts.size(); ++i) {
        for (std::size_t j : {i, (3 * i + 1) % rights.size()}) {
          const std::string& a_name = lefts[i].first;
          const Tensor& a = lefts[i].second;
          const std::string& b_name = rights[j].first;
          const Tensor& b = rights[j].second;
          const std::string what = a_name + " " + std::string(fp::name(left)) + " and " + b_name +
                                   " " + std::string(fp::name(right));
          expect_same_on_both_routes([&] { return fp::aten::mul_Tensor(a, b); }, "mul " + what);
          expect_same_on_both_routes([&] { return a + b; }, "a + b " + what);
          expect_same_on_both_routes([&] { return a - b; }, "a - b " + what);
          expect_same_on_both_routes([&] { return fp::aten::cat({a, b}, 0); }, "cat " + what);
          expect_same_on_both_routes([&] { return fp::aten::cat({a, b}, -1); }, "cat " + what);
          ++checked;
        }
      }
    }
  }
  for (fp::DType dtype : dtypes) {
    for (const auto& input : inputs(dtype)) {
      const Tensor& a = input.second;
      const std::string what = input.first + " " + std::string(fp::name(dtype));
      expect_same_on_both_routes([&] { return fp::aten::abs(a); }, "abs " + what);
      expect_same_on_both_routes([&] { return a * a; }, "a * a " + what);
      expect_same_on_both_routes([&] { return a + a; }, "a + a " + what);
      expect_same_on_both_routes([&] { return fp::aten::cat({a, a}, -1); }, "cat " + what);
      expect_same_on_both_routes([&] { return fp::aten::clone(a); }, "clone " + what);
      expect_same_on_both_routes([&] { return fp::aten::clone(a, fp::MemoryFormat::Preserve); },
                                 "clone(preserve) " + what);
      expect_same_on_both_routes([&] { return fp::aten::clone(a, fp::MemoryFormat::Contiguous); },
                                 "clone(contiguous) " + what);
      expect_same_on_both_routes([&] { return fp::aten::clone(a, fp::MemoryFormat::ChannelsLast); },
                                 "clone(channels_last) " + what);
      expect_same_on_both_routes([&] { return a.contiguous(); }, "contiguous() " + what);
      expect_same_on_both_routes([&] { return a.reshape({-1}); }, "reshape " + what);
      expect_same_on_both_routes([&] { return Tensor(a); }, "copy " + what);
    }
  }
  EXPECT_GT(checked, 130);
  expect_same_on_both_routes([] { return fp::aten::cat({}, 0); }, "cat of nothing");
}

TEST(DirectRoutes, KernelsMatchPyTorch) {
  /*
  #|PYTHON
  from truth_helpers import message
  a = (torch.arange(24) - 11).reshape(2, 3, 4).float() / 3
  b = (torch.arange(4) - 2).to(torch.int32)
  product = (a.transpose(0, 2) * b.reshape(4, 1, 1)).flatten().tolist()
  joined = torch.cat([a, a[:, :, 1:]], 2).flatten().tolist()
  absolute = a.abs()[:, 1].flatten().tolist()
  total = (a + a[:, :, 1:2]).flatten().tolist()
  difference = (a - b.float()).flatten().tolist()
  */
  const Tensor a = fp::aten::div_Tensor(
      fp::aten::_to_copy((fp::arange(24) - 11).reshape({2, 3, 4}), fp::DType::F32),
      fp::tensor(3.f));
  const Tensor b = fp::aten::_to_copy(fp::arange(4) - 2, fp::DType::I32);
  EXPECT_EQ(fp::aten::mul_Tensor(fp::aten::transpose_int(a, 0, 2), fp::aten::reshape(b, {4, 1, 1}))
                .to_vector<float>(),
            truth<std::vector<float>>("product"));
  EXPECT_EQ(fp::aten::cat({a, fp::aten::slice_Tensor(a, 2, 1)}, 2).to_vector<float>(),
            truth<std::vector<float>>("joined"));
  EXPECT_EQ(Tensor(fp::aten::select_int(fp::aten::abs(a), 1, 1).to_owned()).to_vector<float>(),
            truth<std::vector<float>>("absolute"));
  const TensorView other = fp::aten::slice_Tensor(a, 2, 1, 2);
  EXPECT_EQ((a + other).to_vector<float>(), truth<std::vector<float>>("total"));
  EXPECT_EQ((a - fp::aten::_to_copy(b, fp::DType::F32)).to_vector<float>(),
            truth<std::vector<float>>("difference"));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact("aten::mul.Tensor",
                                 truth<std::string>("message(lambda: a * torch.zeros(3))")),
      (void)fp::aten::mul_Tensor(a, fp::zeros({3})));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact(
          "aten::cat", truth<std::string>("message(lambda: torch.cat([a, torch.zeros(3)]))")),
      (void)fp::aten::cat({a, fp::zeros({3})}));
}

/// stride, padding, dilation, groups of a conv2d call.
using ConvOptions = std::tuple<std::vector<std::int64_t>, std::vector<std::int64_t>,
                               std::vector<std::int64_t>, std::int64_t>;

/// `conv2d(input, weight[:, :4 / groups], bias)` on both routes.
void expect_conv2d_on_both_routes(const Tensor& input, const Tensor& weight,
                                  const std::optional<fp::TensorArg>& bias,
                                  const ConvOptions& options, const std::string& what) {
  // Lambdas capture no structured bindings before clang 16.
  const std::vector<std::int64_t>& stride = std::get<0>(options);
  const std::vector<std::int64_t>& padding = std::get<1>(options);
  const std::vector<std::int64_t>& dilation = std::get<2>(options);
  const std::int64_t groups = std::get<3>(options);
  const TensorView w = fp::aten::slice_Tensor(weight, 1, 0, 4 / groups);
  expect_same_on_both_routes(
      [&] { return fp::aten::conv2d(input, w, bias, stride, padding, dilation, groups); },
      "conv2d " + what + " groups " + std::to_string(groups) + (bias ? " with bias" : ""));
}

TEST(DirectRoutes, Conv2dMatchesTheDispatcherRoute) {
  // Lists of one number (for both sides) and of two.
  const std::vector<ConvOptions> valid = {{{1}, {0}, {1}, 1},
                                          {{2}, {1}, {1}, 1},
                                          {{2, 1}, {0, 2}, {1, 1}, 1},
                                          {{1, 1}, {2}, {2}, 2},
                                          {{1}, {1}, {1}, 4}};
  int checked = 0;
  for (fp::DType dtype : {fp::DType::F32, fp::DType::F64, fp::DType::BF16, fp::DType::C64}) {
    const auto as = [&](const Tensor& t) { return fp::aten::_to_copy(t, dtype); };
    const Tensor batch = as(fp::aten::div_Tensor(
        fp::aten::_to_copy((fp::arange(2 * 4 * 5 * 6) % 13 - 6).reshape({2, 4, 5, 6}),
                           fp::DType::F32),
        fp::tensor(7.f)));
    const Tensor weight =
        as((fp::arange(8 * 4 * 3 * 3) % 5 - 2).reshape({8, 4, 3, 3}) * fp::tensor(0.25f));
    const Tensor bias = as(fp::arange(8) * fp::tensor(0.5f));
    const std::vector<std::pair<std::string, Tensor>> batches = {
        {"contiguous", batch},
        {"channels_last", fp::aten::clone(batch, fp::MemoryFormat::ChannelsLast)},
        {"stepped", Tensor(fp::aten::slice_Tensor(batch, 3, 0, 6, 2).to_owned())},
        {"empty batch", as(fp::zeros({0, 4, 5, 6}))},
        {"unbatched", Tensor(fp::aten::select_int(batch, 0, 1).to_owned())}};
    for (const auto& [name, input] : batches) {
      for (const ConvOptions& options : valid) {
        const std::string what = name + " " + std::string(fp::name(dtype));
        expect_conv2d_on_both_routes(input, weight, bias, options, what);
        expect_conv2d_on_both_routes(input, weight, std::nullopt, options, what);
        checked += 2;
      }
    }
  }
  EXPECT_EQ(checked, 4 * 5 * 5 * 2);
  // Invalid calls: the dispatcher's error on both routes.
  const Tensor input = fp::ones({1, 4, 5, 5}), weight = fp::ones({8, 4, 3, 3});
  const Tensor bias = fp::ones({8});
  for (const ConvOptions& options : std::vector<ConvOptions>{{{1, 1, 1}, {0}, {1}, 1},
                                                             {{1}, {-1}, {1}, 1},
                                                             {{0}, {0}, {1}, 1},
                                                             {{1}, {0}, {1}, 3},
                                                             {{1}, {0}, {9}, 1}}) {
    expect_conv2d_on_both_routes(input, weight, bias, options, "invalid options");
  }
  expect_conv2d_on_both_routes(Tensor(fp::aten::slice_Tensor(input, 1, 0, 3).to_owned()), weight,
                               bias, {{1}, {0}, {1}, 1}, "too few channels");
  expect_conv2d_on_both_routes(input, weight, fp::ones({8}, fp::DType::F64), {{1}, {0}, {1}, 1},
                               "bias of another dtype");
  expect_conv2d_on_both_routes(input, weight, fp::ones({3}), {{1}, {0}, {1}, 1},
                               "bias of another size");
  const Tensor meta_weight =
      fp::aten::_to_copy(weight, std::nullopt, std::nullopt, fp::Device::meta());
  expect_conv2d_on_both_routes(input, meta_weight, std::nullopt, {{1}, {0}, {1}, 1},
                               "a weight on the meta device");
}

TEST(DirectRoutes, Conv2dMatchesPyTorch) {
  /*
  #|PYTHON
  import torch.nn.functional as F
  from truth_helpers import message
  x = ((torch.arange(2 * 4 * 5 * 6) % 13 - 6).reshape(2, 4, 5, 6).float() / 7)
  w = (torch.arange(8 * 4 * 3 * 3) % 5 - 2).reshape(8, 4, 3, 3).float() * 0.25
  b = torch.arange(8).float() * 0.5
  */
  const Tensor x = fp::aten::div_Tensor(
      fp::aten::_to_copy((fp::arange(2 * 4 * 5 * 6) % 13 - 6).reshape({2, 4, 5, 6}),
                         fp::DType::F32),
      fp::tensor(7.f));
  const Tensor w = fp::aten::_to_copy((fp::arange(8 * 4 * 3 * 3) % 5 - 2).reshape({8, 4, 3, 3}),
                                      fp::DType::F32) *
                   fp::tensor(0.25f);
  const Tensor b = fp::aten::_to_copy(fp::arange(8), fp::DType::F32) * fp::tensor(0.5f);
  EXPECT_EQ(fp::aten::conv2d(x, w, b, {2, 1}, {1}, {1}, 1).to_vector<float>(),
            truth<std::vector<float>>("F.conv2d(x, w, b, (2, 1), 1).flatten().tolist()"));
  const Tensor channels_last = fp::aten::clone(x, fp::MemoryFormat::ChannelsLast);
  EXPECT_EQ(fp::aten::conv2d(channels_last, w, std::nullopt, {1}, {2}, {2}, 1).to_vector<float>(),
            truth<std::vector<float>>("F.conv2d(x.contiguous(memory_format=torch.channels_last), "
                                      "w, None, 1, 2, 2).flatten().tolist()"));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      fp_test::torch_error_exact("aten::conv2d",
                                 truth<std::string>("message(lambda: F.conv2d(x, w[:, :3]))")),
      (void)fp::aten::conv2d(x, fp::aten::slice_Tensor(w, 1, 0, 3)));
}

/// A tensor on another device (meta stands in for CUDA where no GPU exists)
/// goes to the dispatcher, which keeps it there; a CPU kernel would fail or
/// hand back a CPU tensor.
TEST(DirectRoutes, TensorsNotOnTheCpuTakeTheDispatcher) {
  const Tensor cpu = fp::ones({2, 3});
  const Tensor meta = fp::aten::_to_copy(cpu, std::nullopt, std::nullopt, fp::Device::meta());
  EXPECT_EQ(fp::aten::mul_Tensor(meta, meta).device(), fp::Device::meta());
  EXPECT_EQ(fp::aten::cat({meta, meta}).device(), fp::Device::meta());
  // Mixed devices: PyTorch's own error, from the dispatcher.
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError,
                  "aten::mul.Tensor: ", (void)fp::aten::mul_Tensor(cpu, meta));
  expect_same_on_both_routes([&] { return fp::aten::cat({cpu, meta}); }, "cat of cpu and meta");
  EXPECT_EQ(fp::aten::clone(meta).device(), fp::Device::meta());
  EXPECT_EQ(meta.contiguous().device(), fp::Device::meta());
  EXPECT_EQ(fp::aten::reshape(meta, {3, 2}).device(), fp::Device::meta());
  expect_same_on_both_routes([&] { return fp::aten::reshape(meta, {-1}); }, "meta reshape");
  // Views of a meta tensor are computed here like any other.
  expect_same_on_both_routes([&] { return fp::aten::transpose_int(meta, 0, 1); }, "meta view");
  expect_same_on_both_routes([&] { return fp::aten::select_int(meta, 1, 2); }, "meta select");
}

/// On a GPU machine (tests/gpu/run.sh): CUDA tensors go to the
/// dispatcher, their views are computed here like any other.
TEST(DirectRoutes, CudaTensorsTakeTheDispatcher) {
  if (!fp::cuda_is_available()) GTEST_SKIP() << "no CUDA device in this process";
  const Tensor cpu = fp::ones({2, 3});
  const Tensor cuda = cpu.cuda();
  EXPECT_EQ(fp::aten::mul_Tensor(cuda, cuda).device(), fp::Device::cuda(0));
  EXPECT_EQ(fp::aten::abs(cuda).device(), fp::Device::cuda(0));
  EXPECT_EQ(fp::aten::cat({cuda, cuda}).device(), fp::Device::cuda(0));
  EXPECT_EQ((cuda * cuda).device(), fp::Device::cuda(0));
  EXPECT_EQ(fp::aten::clone(cuda).device(), fp::Device::cuda(0));
  EXPECT_EQ(fp::aten::transpose_int(cuda, 0, 1).contiguous().device(), fp::Device::cuda(0));
  EXPECT_EQ(fp::aten::reshape(cuda, {-1}).device(), fp::Device::cuda(0));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError,
                  "aten::mul.Tensor: ", (void)fp::aten::mul_Tensor(cpu, cuda));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::cat: ", (void)fp::aten::cat({cpu, cuda}));
  expect_same_on_both_routes([&] { return fp::aten::mul_Tensor(cuda, cuda).cpu(); }, "cuda mul");
  expect_same_on_both_routes([&] { return fp::aten::cat({cuda, cuda}, 1).cpu(); }, "cuda cat");
  expect_same_on_both_routes([&] { return fp::aten::transpose_int(cuda, 0, 1).cpu(); },
                             "cuda transpose");
  expect_same_on_both_routes([&] { return fp::aten::select_int(cuda, 1, 2).cpu(); }, "cuda select");
  const TensorView row = fp::aten::select_int(cuda, 0, 1);
  EXPECT_EQ(row.device(), fp::Device::cuda(0));
}

TEST(DirectRoutes, ForcingTheDispatcherNests) {
  EXPECT_TRUE(fp::abi::direct_routes_enabled() || std::getenv("FP_FORCE_DISPATCHER") != nullptr);
  {
    const fp::abi::ForceDispatcher outer;
    EXPECT_FALSE(fp::abi::direct_routes_enabled());
    {
      const fp::abi::ForceDispatcher inner;
      EXPECT_FALSE(fp::abi::direct_routes_enabled());
    }
    EXPECT_FALSE(fp::abi::direct_routes_enabled());
  }
  EXPECT_EQ(fp::abi::direct_routes_enabled(), std::getenv("FP_FORCE_DISPATCHER") == nullptr);
}

}  // namespace
