// fp::nn::MultiheadAttention against torch.nn.MultiheadAttention: keys,
// every in-projection path (self, encoder-decoder, separate), with and
// without weights, masks, bias_kv, zero attention, batch_first, unbatched.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <limits>

#include "nn/helpers.h"
#include "support/expect_error.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
def g(seed):
    return torch.Generator().manual_seed(seed)
def values(t):
    return t.flatten().tolist()
def filled(module, seed=100):
    new = {}
    for i, (k, v) in enumerate(module.state_dict().items()):
        new[k] = torch.randn(v.shape, generator=g(seed + i))
    module.load_state_dict(new)
    return module.eval()
# Inference as flash_powder runs it: no autograd, and F.multi_head_attention_forward
# rather than PyTorch's fused fast path (torch._native_multi_head_attention).
torch.backends.mha.set_fastpath_enabled(False)
torch.set_grad_enabled(False)
*/

namespace {

using fp::nn::MultiheadAttention;
using nn_test::keys;
using nn_test::randn;
using nn_test::shape;
using nn_test::values;

MultiheadAttention filled(std::int64_t embed_dim, std::int64_t heads,
                          const fp::nn::MultiheadAttentionOptions& options = {}) {
  MultiheadAttention attention(embed_dim, heads, options);
  attention.load_state_dict(nn_test::filled(attention));
  return attention;
}

TEST(MultiheadAttention, SelfAttentionWithWeights) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(8, 2))
  x = torch.randn(3, 2, 8, generator=g(1))
  out, w = m(x, x, x)
  _, per_head = m(x, x, x, average_attn_weights=False)
  */
  const MultiheadAttention m = filled(8, 2);
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight",
                                      "out_proj.bias"}));  // #PYTHON list(m.state_dict().keys())
  const fp::Tensor x = randn({3, 2, 8}, 1);
  auto [out, w] = m.forward(x, x, x);
  EXPECT_EQ(shape(out), (std::vector<int64_t>{3, 2, 8}));  // #PYTHON list(out.shape)
  EXPECT_PYTHON(
      values(out),
      (std::vector<float>{
          4.600271224975586,   1.059086561203003,   8.200993537902832,
          -5.129544258117676,  3.5597305297851562,  3.312554121017456,
          -0.7500384449958801, 6.13215446472168,    1.2947678565979004,
          -3.226090908050537,  21.896425247192383,  -6.9397172927856445,
          19.423553466796875,  4.018795490264893,   9.010096549987793,
          15.300273895263672,  -2.82031512260437,   9.418726921081543,
          12.92608642578125,   -8.840228080749512,  10.969895362854004,
          -3.101008415222168,  17.929935455322266,  0.44610124826431274,
          1.2877135276794434,  4.977063179016113,   14.182933807373047,
          -3.2368922233581543, 2.02427339553833,    -6.57911491394043,
          8.828508377075195,   2.684133768081665,   1.0270562171936035,
          6.197793960571289,   6.949904441833496,   -5.025158882141113,
          12.783227920532227,  -1.7054424285888672, 19.236434936523438,
          0.14552313089370728, 0.4410831928253174,  7.076772689819336,
          17.1846923828125,    -4.269824028015137,  2.539325714111328,
          -9.021716117858887,  10.974135398864746,  2.525866985321045}));  // #PYTHON values(out)
  EXPECT_EQ(shape(w), (std::vector<int64_t>{2, 3, 3}));                    // #PYTHON list(w.shape)
  EXPECT_PYTHON(
      values(w),
      (std::vector<float>{
          0.42916715145111084, 0.01084214448928833, 0.5599907636642456, 0.6831362843513489,
          0.23662510514259338, 0.08023859560489655, 4.0100861951941624e-05, 0.9992849230766296,
          0.0006749079329892993, 0.4465646743774414, 0.05700633302330971, 0.4964289665222168,
          0.6310010552406311, 0.3688383102416992, 0.0001606391742825508, 0.5000067353248596,
          0.49998587369918823, 7.380598617601208e-06}));  // #PYTHON values(w)
  auto [same_out, per_head] = m.forward(x, x, x, {.average_attn_weights = false});
  EXPECT_EQ(shape(per_head), (std::vector<int64_t>{2, 2, 3, 3}));  // #PYTHON list(per_head.shape)
  EXPECT_PYTHON(values(per_head),
                (std::vector<float>{0.8583341836929321,
                                    0.02168428897857666,
                                    0.11998159438371658,
                                    0.4001365900039673,
                                    0.4393957555294037,
                                    0.16046766936779022,
                                    7.984059629961848e-05,
                                    0.9985703229904175,
                                    0.0013497330946847796,
                                    1.2317960340624268e-07,
                                    1.675335481415746e-16,
                                    0.9999998807907104,
                                    0.9661359786987305,
                                    0.03385443985462189,
                                    9.515487363387365e-06,
                                    3.6112589896220015e-07,
                                    0.9999995231628418,
                                    8.277712026938389e-08,
                                    0.007267673499882221,
                                    0.00017917346849571913,
                                    0.992553174495697,
                                    1.0,
                                    1.2273210003854729e-08,
                                    1.4979774365375675e-11,
                                    1.0,
                                    5.837053507207202e-09,
                                    2.373623786411372e-08,
                                    0.8858616948127747,
                                    0.11383349448442459,
                                    0.0003047608770430088,
                                    0.2620021402835846,
                                    0.7376766204833984,
                                    0.00032127831946127117,
                                    1.3482209396897815e-05,
                                    0.9999717473983765,
                                    1.4737461242475547e-05}));  // #PYTHON values(per_head)
}

TEST(MultiheadAttention, EncoderDecoderAndSeparateInputs) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(6, 3))
  q = torch.randn(2, 1, 6, generator=g(2))
  kv = torch.randn(4, 1, 6, generator=g(3))
  k = torch.randn(4, 1, 6, generator=g(4))
  shared, _ = m(q, kv, kv)
  separate, w = m(q, k, kv)
  */
  const MultiheadAttention m = filled(6, 3);
  const fp::Tensor q = randn({2, 1, 6}, 2), kv = randn({4, 1, 6}, 3), k = randn({4, 1, 6}, 4);
  EXPECT_PYTHON(values(std::get<0>(m.forward(q, kv, kv))),
                (std::vector<float>{-3.6329948902130127, -5.518982410430908, 0.2895221710205078,
                                    2.754401683807373, 0.7782539129257202, 1.4509538412094116,
                                    0.9390296936035156, -3.4572715759277344, -2.452548027038574,
                                    5.425910472869873, 4.395298957824707,
                                    -3.119981288909912}));  // #PYTHON values(shared)
  auto [separate, w] = m.forward(q, k, kv);
  EXPECT_PYTHON(values(separate),
                (std::vector<float>{1.5760462284088135, 1.0439887046813965, -1.099954605102539,
                                    0.4404447078704834, 7.419717788696289, 0.9518700838088989,
                                    -0.2758948802947998, -1.100247859954834, -8.817753791809082,
                                    -3.08734130859375, 11.758846282958984,
                                    2.576685905456543}));  // #PYTHON values(separate)
  EXPECT_PYTHON(values(w), (std::vector<float>{
                               0.5310515761375427, 0.12463650107383728, 0.34220537543296814,
                               0.002106535015627742, 0.1315220445394516, 0.2873469889163971,
                               0.5649529099464417, 0.016178011894226074}));  // #PYTHON values(w)
}

TEST(MultiheadAttention, WithoutWeightsUsesScaledDotProductAttention) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(8, 4, batch_first=True))
  x = torch.randn(2, 3, 8, generator=g(5))
  mask = torch.randn(3, 3, generator=g(6))
  out, none = m(x, x, x, need_weights=False, attn_mask=mask)
  causal = torch.nn.Transformer.generate_square_subsequent_mask(3)
  out_causal, _ = m(x, x, x, need_weights=False, attn_mask=causal, is_causal=True)
  */
  const MultiheadAttention m = filled(8, 4, {.batch_first = true});
  const fp::Tensor x = randn({2, 3, 8}, 5), mask = randn({3, 3}, 6);
  auto [out, none] = m.forward(x, x, x, {.need_weights = false, .attn_mask = mask});
  EXPECT_FALSE(none.is_defined());
  EXPECT_EQ(shape(out), (std::vector<int64_t>{2, 3, 8}));  // #PYTHON list(out.shape)
  EXPECT_PYTHON(
      values(out),
      (std::vector<float>{
          4.874798774719238,     0.08466836810112,    6.455208778381348,
          5.990349292755127,     -3.445322036743164,  -2.8662240505218506,
          -13.501816749572754,   -0.4225011467933655, 4.882537841796875,
          -0.020881444215774536, 6.253256797790527,   5.502413749694824,
          -3.48543643951416,     -2.067274570465088,  -13.33597183227539,
          0.2101016640663147,    -0.7407124042510986, 7.924677848815918,
          10.588024139404297,    3.1921722888946533,  5.13988733291626,
          -7.286542892456055,    3.8039746284484863,  -3.1465818881988525,
          2.0467910766601562,    -2.8036611080169678, 15.512530326843262,
          -3.605073928833008,    22.594728469848633,  10.587143898010254,
          25.230520248413086,    15.526634216308594,  0.8552408218383789,
          2.0523300170898438,    9.835810661315918,   12.671034812927246,
          13.332992553710938,    -7.587703704833984,  7.861454963684082,
          -5.008184909820557,    9.344432830810547,   -0.8924727439880371,
          0.9614813327789307,    -2.5697202682495117, 11.840588569641113,
          21.825679779052734,    9.412897109985352,   16.78414535522461}));  // #PYTHON values(out)
  const float inf = std::numeric_limits<float>::infinity();
  const fp::Tensor causal = fp::tensor({{0.f, -inf, -inf}, {0.f, 0.f, -inf}, {0.f, 0.f, 0.f}});
  auto [out_causal, unused] =
      m.forward(x, x, x, {.need_weights = false, .attn_mask = causal, .is_causal = true});
  EXPECT_PYTHON(values(out_causal),
                (std::vector<float>{
                    0.3389017581939697,   -2.950183391571045,
                    27.226160049438477,   -4.842559337615967,
                    16.222023010253906,   4.396100997924805,
                    2.8080573081970215,   19.274457931518555,
                    -1.6261916160583496,  1.061537742614746,
                    17.368139266967773,   -4.626401424407959,
                    9.920702934265137,    1.0053824186325073,
                    8.952804565429688,    8.837800979614258,
                    -0.7682673931121826,  8.024313926696777,
                    10.786904335021973,   2.9961109161376953,
                    5.219032287597656,    -7.4010138511657715,
                    3.801276206970215,    -3.079033136367798,
                    7.212983131408691,    -10.541125297546387,
                    18.219594955444336,   14.014005661010742,
                    10.287787437438965,   -6.668832778930664,
                    -0.06558996438980103, 5.588391304016113,
                    3.442423105239868,    -2.6320979595184326,
                    6.092018127441406,    12.95845890045166,
                    10.806951522827148,   -3.965228796005249,
                    -1.2722182273864746,  -3.582801580429077,
                    8.609073638916016,    -0.6631555557250977,
                    0.6203796863555908,   -3.322396755218506,
                    12.884382247924805,   22.206745147705078,
                    10.46654987335205,    16.501916885375977}));  // #PYTHON values(out_causal)
}

TEST(MultiheadAttention, Masks) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(4, 2))
  q = torch.randn(3, 2, 4, generator=g(7))
  kv = torch.randn(5, 2, 4, generator=g(8))
  float_mask = torch.randn(3, 5, generator=g(9))
  padding = torch.tensor([[False, False, True, False, True], [False, True, False, False, False]])
  blocked = torch.tensor([[False, True, False, False, False]] * 3)
  out1, w1 = m(q, kv, kv, attn_mask=float_mask)
  out2, w2 = m(q, kv, kv, attn_mask=blocked, key_padding_mask=padding)
  out3, _ = m(q, kv, kv, attn_mask=float_mask, key_padding_mask=padding, need_weights=False)
  */
  const MultiheadAttention m = filled(4, 2);
  const fp::Tensor q = randn({3, 2, 4}, 7), kv = randn({5, 2, 4}, 8);
  const fp::Tensor float_mask = randn({3, 5}, 9);
  const fp::Tensor padding =
      fp::tensor({{false, false, true, false, true}, {false, true, false, false, false}});
  const fp::Tensor blocked = fp::tensor({{false, true, false, false, false},
                                         {false, true, false, false, false},
                                         {false, true, false, false, false}});
  auto [out1, w1] = m.forward(q, kv, kv, {.attn_mask = float_mask});
  EXPECT_PYTHON(
      values(out1),
      (std::vector<float>{
          -1.6688759326934814, -1.8511669635772705, 4.010965824127197,
          5.467248439788818,   -5.512803077697754,  -6.268375396728516,
          -2.066910743713379,  4.764945030212402,   -1.1364061832427979,
          -4.175128936767578,  2.7894957065582275,  10.104216575622559,
          -5.081284523010254,  -7.461179256439209,  -6.462276458740234,
          1.1915440559387207,  -1.193878173828125,  -4.1383376121521,
          3.0587942600250244,  10.376385688781738,  -3.5622398853302,
          -4.512929916381836,  -1.6678743362426758, 2.098463296890259}));  // #PYTHON values(out1)
  EXPECT_PYTHON(values(w1), (std::vector<float>{
                                0.23849539458751678,   0.04396200552582741,
                                0.015842551365494728,  0.11416558921337128,
                                0.5875344276428223,    0.0025022721383720636,
                                8.677258165334933e-07, 7.149304110498633e-06,
                                0.4252593517303467,    0.572230339050293,
                                0.00737070944160223,   0.0001416059531038627,
                                0.0003477084101177752, 0.3343890309333801,
                                0.6577509641647339,    0.03286676108837128,
                                0.8342715501785278,    0.048018816858530045,
                                0.004496796056628227,  0.08034597337245941,
                                0.013996345922350883,  0.4742249548435211,
                                0.039107806980609894,  1.3664316611539107e-05,
                                0.4726572036743164,    0.40578845143318176,
                                0.025510121136903763,  0.007641531992703676,
                                0.5196068286895752,    0.0414530485868454}));  // #PYTHON values(w1)
  auto [out2, w2] = m.forward(q, kv, kv, {.key_padding_mask = padding, .attn_mask = blocked});
  EXPECT_PYTHON(
      values(out2),
      (std::vector<float>{
          -1.1447737216949463, -0.4426466226577759, 2.8197667598724365,
          0.30766749382019043, -1.706909418106079,  -3.557375431060791,
          -1.0884625911712646, 1.802079200744629,   -5.509687423706055,
          -6.653086185455322,  -1.0979690551757812, 7.374824523925781,
          2.0110373497009277,  -1.5153191089630127, -0.32234764099121094,
          0.29035115242004395, -5.506719589233398,  -6.687977313995361,
          -1.2082781791687012, 7.2914958000183105,  -3.6554152965545654,
          -4.611299514770508,  -1.7488293647766113, 2.1632614135742188}));  // #PYTHON values(out2)
  EXPECT_PYTHON(values(w2), (std::vector<float>{0.4708963632583618,
                                                0.0,
                                                0.0,
                                                0.5291036367416382,
                                                0.0,
                                                0.004257536958903074,
                                                0.0,
                                                0.0,
                                                0.9957424402236938,
                                                0.0,
                                                0.015160965733230114,
                                                0.0,
                                                0.0,
                                                0.9848390221595764,
                                                0.0,
                                                0.39844295382499695,
                                                0.0,
                                                0.46030813455581665,
                                                0.019326558336615562,
                                                0.12192236632108688,
                                                0.059668589383363724,
                                                0.0,
                                                0.49381548166275024,
                                                0.00016296160174533725,
                                                0.4463529884815216,
                                                0.4543437063694,
                                                0.0,
                                                0.009166442789137363,
                                                0.5154733657836914,
                                                0.02101648785173893}));  // #PYTHON values(w2)
  auto [out3, none] = m.forward(
      q, kv, kv, {.key_padding_mask = padding, .need_weights = false, .attn_mask = float_mask});
  EXPECT_PYTHON(
      values(out3),
      (std::vector<float>{
          -1.4783520698547363, -0.7617850303649902, 2.536844253540039,
          0.4635641574859619,  -1.9180443286895752, -4.02964973449707,
          -2.4219818115234375, 0.7910540699958801,  -5.510049819946289,
          -6.648828983306885,  -1.0845096111297607, 7.3849921226501465,
          1.9929847717285156,  -1.5912010669708252, -0.5459682941436768,
          0.12312483787536621, -5.507851600646973,  -6.674525260925293,
          -1.1657819747924805, 7.323582172393799,   -3.448011636734009,
          -4.386847019195557,  -1.571580410003662,  1.9997388124465942}));  // #PYTHON values(out3)
}

TEST(MultiheadAttention, KdimVdimBiasKvZeroAttn) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True))
  q = torch.randn(2, 1, 4, generator=g(10))
  k = torch.randn(3, 1, 3, generator=g(11))
  v = torch.randn(3, 1, 5, generator=g(12))
  padding = torch.tensor([[False, True, False]])
  out, w = m(q, k, v, key_padding_mask=padding)
  out2, _ = m(q, k, v, need_weights=False)
  */
  const MultiheadAttention m =
      filled(4, 2, {.add_bias_kv = true, .add_zero_attn = true, .kdim = 3, .vdim = 5});
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                      "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
                                      "out_proj.bias"}));  // #PYTHON list(m.state_dict().keys())
  const fp::Tensor q = randn({2, 1, 4}, 10), k = randn({3, 1, 3}, 11), v = randn({3, 1, 5}, 12);
  const fp::Tensor padding = fp::tensor({{false, true, false}});
  auto [out, w] = m.forward(q, k, v, {.key_padding_mask = padding});
  EXPECT_PYTHON(
      values(out),
      (std::vector<float>{-0.46158283948898315, 1.1453371047973633, 1.2200605869293213,
                          0.23073571920394897, -0.1126675009727478, 1.1695315837860107,
                          -0.6720656752586365, -0.3563384413719177}));  // #PYTHON values(out)
  EXPECT_EQ(shape(w), (std::vector<int64_t>{1, 2, 5}));                 // #PYTHON list(w.shape)
  EXPECT_PYTHON(values(w), (std::vector<float>{
                               0.2244701385498047, 0.0, 0.08294298499822617, 0.16042035818099976,
                               0.5321664810180664, 0.09488926827907562, 0.0, 0.17320334911346436,
                               0.43603578209877014, 0.2958716154098511}));  // #PYTHON values(w)
  EXPECT_PYTHON(
      values(std::get<0>(m.forward(q, k, v, {.need_weights = false}))),
      (std::vector<float>{-1.2880690097808838, 1.2219821214675903, -1.314239263534546,
                          0.4431764483451843, -0.5732570886611938, 1.6924431324005127,
                          -2.093546152114868, -0.45311662554740906}));  // #PYTHON values(out2)
}

TEST(MultiheadAttention, UnbatchedAndNoBias) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(4, 1, bias=False))
  x = torch.randn(3, 4, generator=g(13))
  out, w = m(x, x, x)
  */
  const MultiheadAttention m = filled(4, 1, {.bias = false});
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"in_proj_weight",
                                      "out_proj.weight"}));  // #PYTHON list(m.state_dict().keys())
  const fp::Tensor x = randn({3, 4}, 13);
  auto [out, w] = m.forward(x, x, x);
  EXPECT_EQ(shape(out), (std::vector<int64_t>{3, 4}));  // #PYTHON list(out.shape)
  EXPECT_PYTHON(values(out),
                (std::vector<float>{1.122008204460144, 1.3537441492080688, -0.1322191059589386,
                                    0.0838407427072525, 5.360377311706543, 2.765235424041748,
                                    1.8818237781524658, 2.7721590995788574, 8.186062812805176,
                                    3.374880790710449, 2.978116750717163,
                                    4.881303787231445}));  // #PYTHON values(out)
  EXPECT_PYTHON(values(w), (std::vector<float>{0.9746272563934326, 0.025336166843771935,
                                               3.6584053304977715e-05, 0.3442690670490265,
                                               0.27861398458480835, 0.37711694836616516,
                                               6.615694292122498e-05, 0.0004305187612771988,
                                               0.9995033740997314}));  // #PYTHON values(w)
}

TEST(MultiheadAttention, BadInputSaysHowToCallIt) {
  const MultiheadAttention m(4, 2);
  const fp::Tensor x = randn({3, 2, 4}, 1), wrong = randn({3, 2, 6}, 2), flat = randn({3, 4}, 3);
  EXPECT_FP_ERROR(
      "fp::nn::MultiheadAttention: takes a query, a key and a value: call "
      "forward(query, key, value, {...})",
      m(x));
  EXPECT_FP_ERROR("fp::nn::MultiheadAttention: was expecting embedding dimension of 4, but got 6",
                  m.forward(wrong, wrong, wrong));
  EXPECT_FP_ERROR(
      "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 2-D "
      "and 2-D tensors respectively",
      m.forward(x, flat, flat));
  const fp::Tensor mask = randn({2, 2}, 4);
  EXPECT_FP_ERROR("The shape of the 2D attn_mask is torch.Size([2, 2]), but should be [3, 3].",
                  m.forward(x, x, x, {.attn_mask = mask}));
  EXPECT_FP_ERROR("fp::nn::MultiheadAttention: embed_dim must be divisible by num_heads",
                  MultiheadAttention(5, 2));
}

}  // namespace
