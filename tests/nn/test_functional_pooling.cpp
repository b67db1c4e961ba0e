// fp::functional pooling against torch.nn.functional.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "nn/helpers.h"
#include "support/expect_error.h"

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
def g(seed):
    return torch.Generator().manual_seed(seed)
def values(t):
    return t.flatten().tolist()
*/

namespace {

namespace F = fp::functional;
using nn_test::randn;
using nn_test::shape;
using nn_test::values;

TEST(FunctionalPooling, MaxPool2d) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 5, 6, generator=g(1))
  plain = F.max_pool2d(x, 2)
  v, i = F.max_pool2d(x, 3, stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True, return_indices=True)
  */
  const fp::Tensor x = randn({1, 2, 5, 6}, 1);
  const fp::Tensor plain = F::max_pool2d(x, 2);
  EXPECT_EQ(shape(plain), (std::vector<int64_t>{1, 2, 2, 3}));  // #PYTHON list(plain.shape)
  EXPECT_PYTHON(values(plain),
                (std::vector<float>{-0.7502318024635315, 0.30372199416160583, -0.1001671776175499,
                                    1.6871134042739868, 0.8656923770904541, 0.8073082566261292,
                                    0.1990565061569214, 1.8793457746505737, 0.2927352488040924,
                                    -0.025502461940050125, 1.1421611309051514,
                                    1.4760777950286865}));  // #PYTHON values(plain)
  auto [v, i] = F::max_pool2d_with_indices(
      x, 3, {.stride = {2, 1}, .padding = 1, .dilation = {1, 2}, .ceil_mode = true});
  EXPECT_PYTHON(
      values(v),
      (std::vector<float>{
          0.30372199416160583, -0.1001671776175499, 0.30372199416160583,
          -0.1001671776175499, 1.6871134042739868,  0.8656923770904541,
          1.6871134042739868,  0.8656923770904541,  0.2444038987159729,
          1.1016806364059448,  0.8073082566261292,  0.8656923770904541,
          0.04570277780294418, 1.8793457746505737,  0.2927352488040924,
          1.8793457746505737,  1.1421611309051514,  0.4532545804977417,
          1.4760777950286865,  0.4532545804977417,  1.610317587852478,
          0.42854228615760803, 1.610317587852478,   0.42854228615760803}));  // #PYTHON values(v)
  EXPECT_EQ(i.to_vector<int64_t>(),
            (std::vector<int64_t>{9, 4,  9, 4,  13, 20, 13, 20, 21, 24, 23, 20, 7,
                                  2, 11, 2, 15, 14, 23, 14, 25, 22, 25, 22}));  // #PYTHON values(i)
  EXPECT_PYTHON(
      values(F::max_pool2d(
          x, 3, {.stride = {2, 1}, .padding = 1, .dilation = {1, 2}, .ceil_mode = true})),
      (std::vector<float>{
          0.30372199416160583, -0.1001671776175499, 0.30372199416160583,
          -0.1001671776175499, 1.6871134042739868,  0.8656923770904541,
          1.6871134042739868,  0.8656923770904541,  0.2444038987159729,
          1.1016806364059448,  0.8073082566261292,  0.8656923770904541,
          0.04570277780294418, 1.8793457746505737,  0.2927352488040924,
          1.8793457746505737,  1.1421611309051514,  0.4532545804977417,
          1.4760777950286865,  0.4532545804977417,  1.610317587852478,
          0.42854228615760803, 1.610317587852478,   0.42854228615760803}));  // #PYTHON values(v)
}

TEST(FunctionalPooling, MaxPool1d) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 7, generator=g(2))
  v, i = F.max_pool1d(x, 3, stride=2, return_indices=True)
  */
  const fp::Tensor x = randn({2, 3, 7}, 2);
  EXPECT_PYTHON(
      values(F::max_pool1d(x, 2)),
      (std::vector<float>{
          0.9166041612625122, -1.1096783876419067, 1.1675924062728882, -0.11883937567472458,
          0.34522223472595215, 1.0076051950454712, -0.22499920427799225, -0.4585607945919037,
          0.5266043543815613, 1.0650779008865356, 0.8860366940498352, 0.16654503345489502,
          0.8560097813606262, -1.1370564699172974, 0.3156795799732208, -1.0470987558364868,
          1.0936672687530518, 0.7562122344970703}));  // #PYTHON values(F.max_pool1d(x, 2))
  auto [v, i] = F::max_pool1d_with_indices(x, 3, {.stride = 2});
  EXPECT_PYTHON(
      values(v),
      (std::vector<float>{
          0.9166041612625122, -1.1096783876419067, 1.1675924062728882, 0.34522223472595215,
          0.34522223472595215, 1.0076051950454712, -0.22499920427799225, -0.4585607945919037,
          0.5266043543815613, 1.0650779008865356, 0.8860366940498352, 0.7910981774330139,
          0.8560097813606262, -1.0189824104309082, 0.3156795799732208, -1.0470987558364868,
          1.0936672687530518, 0.7562122344970703}));  // #PYTHON values(v)
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 5, 2, 2, 5, 0, 3, 5, 1, 2, 6, 0, 4,
                                                          5, 1, 3, 5}));  // #PYTHON values(i)
}

TEST(FunctionalPooling, AvgPool2d) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 5, 5, generator=g(3))
  */
  const fp::Tensor x = randn({1, 2, 5, 5}, 3);
  EXPECT_PYTHON(values(F::avg_pool2d(x, 2)),
                (std::vector<float>{0.40425193309783936, -0.5897195339202881, 0.17594334483146667,
                                    0.3835388422012329, 1.603851556777954, -0.2415638417005539,
                                    0.7584341764450073,
                                    -0.469135046005249}));  // #PYTHON values(F.avg_pool2d(x, 2))
  EXPECT_PYTHON(
      values(F::avg_pool2d(x, 3, {.stride = 2, .padding = 1, .count_include_pad = false})),
      (std::vector<float>{
          0.40425193309783936, -0.06307429820299149, 0.09467760473489761, 0.3395906388759613,
          0.1716952919960022, -0.2909097373485565, 0.5615105628967285, 0.18109579384326935,
          -0.3873327672481537, 1.603851556777954, 0.126032754778862, 0.19680112600326538,
          0.8872209191322327, -0.026063688099384308, 0.05698080733418465, 0.8385553359985352,
          0.7410750389099121,
          0.43980497121810913}));  // #PYTHON values(F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False))
  EXPECT_PYTHON(
      values(F::avg_pool2d(x, {2, 3}, {.ceil_mode = true, .divisor_override = 4})),
      (std::vector<float>{
          -0.19042930006980896, 0.09467760473489761, 0.6370124816894531, -0.3469504117965698,
          0.35035014152526855, 0.15419910848140717, 1.1860352754592896, 0.19680112600326538,
          -0.2350465953350067, 0.25294578075408936, 0.5506449937820435,
          0.44186413288116455}));  // #PYTHON values(F.avg_pool2d(x, (2, 3), ceil_mode=True, divisor_override=4))
}

TEST(FunctionalPooling, Adaptive) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 7, 5, generator=g(4))
  x1 = torch.randn(2, 3, 10, generator=g(5))
  mv, mi = F.adaptive_max_pool2d(x, (3, 2), return_indices=True)
  */
  const fp::Tensor x = randn({1, 2, 7, 5}, 4), x1 = randn({2, 3, 10}, 5);
  EXPECT_PYTHON(
      values(F::adaptive_avg_pool1d(x1, 4)),
      (std::vector<float>{0.2164319008588791,
                          -0.4646270275115967,
                          -0.6122485995292664,
                          -0.3552044630050659,
                          -0.36519432067871094,
                          -0.005460500717163086,
                          1.0731844902038574,
                          -0.026494761928915977,
                          -0.19547659158706665,
                          -0.14740900695323944,
                          -0.4365336000919342,
                          -0.017841586843132973,
                          0.5781939625740051,
                          0.23466317355632782,
                          0.677281379699707,
                          -0.39279627799987793,
                          0.4323152005672455,
                          -0.2008405476808548,
                          0.3392283022403717,
                          0.34929466247558594,
                          0.7391621470451355,
                          -0.17971135675907135,
                          -0.1020103320479393,
                          -0.8037860989570618}));  // #PYTHON values(F.adaptive_avg_pool1d(x1, 4))
  EXPECT_PYTHON(
      values(F::adaptive_avg_pool2d(x, 3)),
      (std::vector<float>{-0.2484750747680664, -0.10590483993291855, -0.4226381778717041,
                          0.229258731007576, 0.36024126410484314, -0.31033089756965637,
                          -0.29230383038520813, 0.003409822704270482, 0.6748316884040833,
                          -0.8373019099235535, -0.07602734863758087, 0.7149292826652527,
                          -0.49360373616218567, 0.15749907493591309, 0.6234180331230164,
                          -0.7368306517601013, 0.09075463563203812,
                          0.29433417320251465}));  // #PYTHON values(F.adaptive_avg_pool2d(x, 3))
  const fp::Tensor kept = F::adaptive_avg_pool2d(x, {std::nullopt, 2});
  EXPECT_EQ(shape(kept),
            (std::vector<int64_t>{1, 2, 7,
                                  2}));  // #PYTHON list(F.adaptive_avg_pool2d(x, (None, 2)).shape)
  EXPECT_PYTHON(values(kept),
                (std::vector<float>{
                    0.04602029547095299,  0.02474609762430191,  -0.7519033551216125,
                    -0.1496535688638687,  0.33792659640312195,  -0.5913751721382141,
                    -0.42318686842918396, -0.2728894054889679,  0.6990535855293274,
                    0.3988784849643707,   -0.42525792121887207, 0.06422251462936401,
                    -0.7012186050415039,  1.043747067451477,    0.5792160630226135,
                    0.6081125140190125,   -0.9942526817321777,  0.16366370022296906,
                    -0.5505551695823669,  1.3670940399169922,   0.4925532341003418,
                    0.12689228355884552,  0.1557159423828125,   0.8377711176872253,
                    -0.7262465357780457,  0.2620365619659424,   0.1343054324388504,
                    0.526296854019165}));  // #PYTHON values(F.adaptive_avg_pool2d(x, (None, 2)))
  auto [mv, mi] = F::adaptive_max_pool2d_with_indices(x, {3, 2});
  EXPECT_PYTHON(values(mv),
                (std::vector<float>{1.263246774673462, 0.6244574785232544, 1.5190969705581665,
                                    1.1877325773239136, 1.1877325773239136, 2.3693323135375977,
                                    1.6892435550689697, 2.7204205989837646, 1.4071781635284424,
                                    2.7204205989837646, 1.2974936962127686,
                                    1.8754198551177979}));  // #PYTHON values(mv)
  EXPECT_EQ(mi.to_vector<int64_t>(), (std::vector<int64_t>{1, 7, 16, 22, 22, 34, 2, 14, 12, 14, 32,
                                                           24}));  // #PYTHON values(mi)
  EXPECT_EQ(values(F::adaptive_max_pool2d(x, {3, 2})), values(mv));
}

TEST(FunctionalPooling, BadInput) {
  const fp::Tensor x = randn({1, 2, 5, 5}, 3);
  EXPECT_FP_ERROR("aten::max_pool2d", F::max_pool2d(x, 7));
  EXPECT_FP_ERROR("pad should be at most half of effective kernel size",
                  F::avg_pool2d(x, 2, {.padding = 2}));
  const fp::Tensor flat = randn({5}, 1);
  EXPECT_FP_ERROR("adaptive pooling: Input dimension should be at least 3",
                  F::adaptive_avg_pool2d(flat, {std::nullopt, 2}));
}

}  // namespace
