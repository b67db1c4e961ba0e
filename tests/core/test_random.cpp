// fp::Generator and the random factories: rand, randn, randint, *_like.
//
// With a Generator the samples must EQUAL Python's with
// `generator=torch.Generator().manual_seed(seed)`, bit for bit: every dtype,
// both of torch's normal code paths (per element below 16 values, normal_fill
// in blocks of 16 from 16 on) and the state carried from call to call.
//
// Why this file is long: every distribution, dtype and torch release's sampling against Python's.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <complex>
#include <cstdint>
#include <vector>

#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
def seeded(seed):
    return torch.Generator().manual_seed(seed)

def ordered_sum(t):
    # Left to right in double, as the C++ side adds: a checksum of every bit.
    total = 0.0
    for value in t.flatten().double().tolist():
        total += value
    return total
*/

namespace {

using fp_test::truth;

using fp::DType;
using fp::Generator;
using fp::Tensor;

std::vector<int64_t> shape(const Tensor& t) {
  return {t.sizes().begin(), t.sizes().end()};
}

/// The elements in row-major order, added left to right in double.
double ordered_sum(const Tensor& t) {
  double total = 0.0;
  for (const double value : t.to_vector<double>())
    total += value;
  return total;
}

/// The last `count` elements (the block torch redraws when the size is not a
/// multiple of 16).
std::vector<float> tail(const Tensor& t, std::size_t count) {
  const std::vector<float> all = t.to_vector<float>();
  return {all.end() - static_cast<std::ptrdiff_t>(count), all.end()};
}

bool all_within(const Tensor& t, double low, double high) {
  for (const double value : t.to_vector<double>()) {
    if (value < low || value >= high) return false;
  }
  return true;
}

// --- fp::Generator -------------------------------------------------------------------

TEST(Generator, DefaultSeedIsTorchs) {
  /*
  #|PYTHON
  default_seed = torch.Generator().initial_seed()
  */
  EXPECT_EQ(Generator().initial_seed(), 67280421310721);  // #PYTHON default_seed
  EXPECT_EQ(Generator::default_seed, 67280421310721);     // #PYTHON default_seed
}

TEST(Generator, InitialSeedKeepsAllSixtyFourBits) {
  /*
  #|PYTHON
  seed = 2**63 + 12345
  g = seeded(seed)
  */
  const uint64_t seed = 9223372036854788153ULL;  // #PYTHON seed
  Generator generator(seed);
  EXPECT_EQ(generator.initial_seed(), 9223372036854788153ULL);  // #PYTHON g.initial_seed()
  generator.manual_seed(7);
  EXPECT_EQ(generator.initial_seed(), 7);  // #PYTHON g.manual_seed(7).initial_seed()
}

TEST(Generator, RandomIsTorchsMersenneTwister) {
  /*
  #|PYTHON
  # int32 random_() keeps the low 31 bits of each 32-bit draw (random() % 2^31).
  draws = torch.empty(6, dtype=torch.int32).random_(generator=seeded(42))
  */
  Generator generator(42);
  std::vector<int64_t> low_bits;
  for (int i = 0; i < 6; ++i)
    low_bits.push_back(generator.random() & 0x7fffffff);
  EXPECT_EQ(low_bits, (std::vector<int64_t>{1608637542, 1273642419, 1935803228, 787846414,
                                            996406378, 1201263687}));  // #PYTHON draws.tolist()
}

TEST(Generator, Random64JoinsTwoDrawsHighFirst) {
  /*
  #|PYTHON
  # int64 random_() keeps the low 63 bits of each 64-bit draw (random64() % 2^63).
  draws = torch.empty(3, dtype=torch.int64).random_(generator=seeded(42))
  */
  Generator generator(42);
  std::vector<int64_t> low_bits;
  for (int i = 0; i < 3; ++i) {
    low_bits.push_back(static_cast<int64_t>(generator.random64() & 0x7fffffffffffffffULL));
  }
  EXPECT_EQ(low_bits, (std::vector<int64_t>{6909045637428952499, 8314211556539077902,
                                            4279532810384561223}));  // #PYTHON draws.tolist()

  Generator as_pairs(42);
  const uint64_t high = as_pairs.random();
  const uint64_t low = as_pairs.random();
  EXPECT_EQ(Generator(42).random64(), (high << 32) | low);
}

TEST(Generator, OnlyTheLowThirtyTwoBitsOfTheSeedSeedTheState) {
  // at::mt19937 seeds with `seed & 0xffffffff`; initial_seed() still differs.
  Generator small(5);
  Generator large((uint64_t{1} << 32) + 5);
  EXPECT_EQ(small.random(), large.random());
  EXPECT_NE(small.initial_seed(), large.initial_seed());
}

TEST(Generator, ManualSeedRestartsTheSequence) {
  Generator generator(3);
  const Tensor first = fp::randn({5}, generator);  // odd: leaves a Box-Muller spare
  const uint32_t next_draw = generator.random();
  ASSERT_TRUE(generator.next_double_normal_sample().has_value());

  generator.manual_seed(3);
  EXPECT_FALSE(generator.next_double_normal_sample().has_value());  // the spare is forgotten
  EXPECT_EQ(fp::randn({5}, generator).to_vector<float>(), first.to_vector<float>());
  EXPECT_EQ(generator.random(), next_draw);
}

TEST(Generator, SameSeedSameTensorsOtherSeedOtherTensors) {
  Generator a(123);
  Generator b(123);
  Generator c(124);
  const Tensor from_a = fp::rand({4, 4}, a);
  EXPECT_EQ(from_a.to_vector<float>(), fp::rand({4, 4}, b).to_vector<float>());
  EXPECT_NE(from_a.to_vector<float>(), fp::rand({4, 4}, c).to_vector<float>());
  EXPECT_EQ(fp::randn({20}, a).to_vector<float>(), fp::randn({20}, b).to_vector<float>());
  EXPECT_EQ(fp::randint(0, 1000, {8}, a).to_vector<int64_t>(),
            fp::randint(0, 1000, {8}, b).to_vector<int64_t>());
}

// --- rand --------------------------------------------------------------------------------

TEST(Rand, Float32EqualsPython) {
  /*
  #|PYTHON
  x = torch.rand(2, 3, generator=seeded(42))
  */
  Generator generator(42);
  const Tensor x = fp::rand({2, 3}, generator);
  EXPECT_EQ(shape(x), (std::vector<int64_t>{2, 3}));  // #PYTHON list(x.shape)
  EXPECT_EQ(x.dtype(), fp::DType::F32);               // #PYTHON x.dtype
  EXPECT_EQ(x.device(), fp::Device::cpu());
  EXPECT_EQ(x.to_vector<float>(), truth<std::vector<float>>("x.flatten().tolist()"));
}

TEST(Rand, EveryFloatingDTypeEqualsPython) {
  /*
  #|PYTHON
  f64 = torch.rand(5, generator=seeded(7), dtype=torch.float64)
  f16 = torch.rand(5, generator=seeded(7), dtype=torch.float16)
  bf16 = torch.rand(5, generator=seeded(7), dtype=torch.bfloat16)
  c64 = torch.rand(3, generator=seeded(7), dtype=torch.complex64)
  c128 = torch.rand(2, generator=seeded(7), dtype=torch.complex128)
  */
  Generator generator(7);
  EXPECT_EQ(fp::rand({5}, generator, DType::F64).to_vector<double>(),
            truth<std::vector<double>>("f64.tolist()"));
  generator.manual_seed(7);
  const Tensor half = fp::rand({5}, generator, DType::F16);
  EXPECT_EQ(half.dtype(), DType::F16);
  EXPECT_EQ(half.to_vector<float>(), truth<std::vector<float>>("f16.float().tolist()"));
  generator.manual_seed(7);
  EXPECT_EQ(fp::rand({5}, generator, DType::BF16).to_vector<float>(),
            truth<std::vector<float>>("bf16.float().tolist()"));
  generator.manual_seed(7);
  EXPECT_EQ(fp::rand({3}, generator, DType::C64).to_vector<std::complex<double>>(),
            truth<std::vector<std::complex<double>>>("c64.tolist()"));
  generator.manual_seed(7);
  EXPECT_EQ(fp::rand({2}, generator, DType::C128).to_vector<std::complex<double>>(),
            truth<std::vector<std::complex<double>>>("c128.tolist()"));
}

TEST(Rand, CallsInARowContinueTheSequence) {
  /*
  #|PYTHON
  g = seeded(1)
  first = torch.rand(3, generator=g)
  second = torch.rand(2, 2, generator=g, dtype=torch.float64)
  third = torch.rand(1000, generator=g)
  */
  Generator generator(1);
  EXPECT_EQ(fp::rand({3}, generator).to_vector<float>(),
            truth<std::vector<float>>("first.tolist()"));
  EXPECT_EQ(fp::rand({2, 2}, generator, DType::F64).to_vector<double>(),
            truth<std::vector<double>>("second.flatten().tolist()"));
  const Tensor third = fp::rand({1000}, generator);
  EXPECT_EQ(ordered_sum(third), truth<double>("ordered_sum(third)"));
  EXPECT_EQ(tail(third, 3), truth<std::vector<float>>("third[-3:].tolist()"));
}

TEST(Rand, ZeroDimAndEmptyTensors) {
  /*
  #|PYTHON
  g = seeded(4)
  scalar = torch.rand((), generator=g)
  empty = torch.rand(0, 3, generator=g)   # draws nothing
  after = torch.rand(2, generator=g)
  */
  Generator generator(4);
  const Tensor scalar = fp::rand({}, generator);
  EXPECT_EQ(scalar.dim(), 0);  // #PYTHON scalar.dim()
  EXPECT_EQ(scalar.item<float>(), truth<double>("scalar.item()"));
  const Tensor empty = fp::rand({0, 3}, generator);
  EXPECT_EQ(shape(empty), (std::vector<int64_t>{0, 3}));  // #PYTHON list(empty.shape)
  EXPECT_EQ(fp::rand({2}, generator).to_vector<float>(),
            truth<std::vector<float>>("after.tolist()"));
}

TEST(Rand, GeneratorFormsPlaceTheSamplesOnTheRequestedDevice) {
  Generator generator(6);
  const Tensor on_meta = fp::rand({2, 3}, generator, fp::Device::meta());
  EXPECT_EQ(on_meta.device(), fp::Device::meta());
  EXPECT_EQ(shape(on_meta), (std::vector<int64_t>{2, 3}));
  const Tensor normal =
      fp::randn({4}, generator, fp::TensorOptions(DType::F64, fp::Device::meta()));
  EXPECT_EQ(normal.device(), fp::Device::meta());
  EXPECT_EQ(normal.dtype(), DType::F64);
  EXPECT_EQ(fp::randint(0, 5, {3}, generator, fp::Device::meta()).device(), fp::Device::meta());
}

TEST(Rand, WithoutGeneratorHasTheRequestedShapeDTypeAndRange) {
  const Tensor x = fp::rand({3, 4});
  EXPECT_EQ(shape(x), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(x.dtype(), DType::F32);
  EXPECT_EQ(x.device(), fp::Device::cpu());
  EXPECT_TRUE(all_within(x, 0.0, 1.0));
  const Tensor y = fp::rand({50}, DType::F64);
  EXPECT_EQ(y.dtype(), DType::F64);
  EXPECT_TRUE(all_within(y, 0.0, 1.0));
  EXPECT_NE(y.to_vector<double>(), fp::rand({50}, DType::F64).to_vector<double>());
  EXPECT_EQ(fp::rand({2}, fp::Device::meta()).device(), fp::Device::meta());
  EXPECT_EQ(fp::rand({0, 3}).numel(), 0);
}

// --- randn -------------------------------------------------------------------------------

TEST(Randn, FewerThanSixteenValuesTakeTheElementwisePath) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, generator=seeded(42))
  d = torch.randn(5, generator=seeded(42), dtype=torch.float64)
  */
  Generator generator(42);
  const Tensor x = fp::randn({2, 3}, generator);
  EXPECT_EQ(shape(x), (std::vector<int64_t>{2, 3}));  // #PYTHON list(x.shape)
  EXPECT_EQ(x.to_vector<float>(), truth<std::vector<float>>("x.flatten().tolist()"));
  generator.manual_seed(42);
  EXPECT_EQ(fp::randn({5}, generator, DType::F64).to_vector<double>(),
            truth<std::vector<double>>("d.tolist()"));
}

TEST(Randn, SixteenValuesAndMoreTakeNormalFill) {
  /*
  #|PYTHON
  exact = torch.randn(32, generator=seeded(5))
  ragged = torch.randn(37, generator=seeded(5))
  */
  Generator generator(5);
  EXPECT_EQ(fp::randn({32}, generator).to_vector<float>(),
            truth<std::vector<float>>("exact.tolist()"));
  generator.manual_seed(5);
  // 37 = 2 * 16 + 5: torch redraws the last 16 values as one block.
  EXPECT_EQ(fp::randn({37}, generator).to_vector<float>(),
            truth<std::vector<float>>("ragged.tolist()"));
}

TEST(Randn, LargeTensorsOfEveryFloatingDTypeEqualPython) {
  /*
  #|PYTHON
  f32 = torch.randn(10, 101, generator=seeded(2024))
  f64 = torch.randn(1001, generator=seeded(2024), dtype=torch.float64)
  f16 = torch.randn(1001, generator=seeded(2024), dtype=torch.float16)
  bf16 = torch.randn(1001, generator=seeded(2024), dtype=torch.bfloat16)
  */
  Generator generator(2024);
  const Tensor f32 = fp::randn({10, 101}, generator);
  EXPECT_EQ(ordered_sum(f32), truth<double>("ordered_sum(f32)"));
  EXPECT_EQ(tail(f32, 3), truth<std::vector<float>>("f32.flatten()[-3:].tolist()"));
  generator.manual_seed(2024);
  const Tensor f64 = fp::randn({1001}, generator, DType::F64);
  EXPECT_EQ(ordered_sum(f64), truth<double>("ordered_sum(f64)"));
  EXPECT_EQ(f64.to_vector<double>()[1000], truth<double>("f64[1000].item()"));
  generator.manual_seed(2024);
  const Tensor f16 = fp::randn({1001}, generator, DType::F16);
  EXPECT_EQ(f16.dtype(), DType::F16);
  EXPECT_EQ(ordered_sum(f16), truth<double>("ordered_sum(f16)"));
  EXPECT_EQ(tail(f16, 3), truth<std::vector<float>>("f16[-3:].float().tolist()"));
  generator.manual_seed(2024);
  const Tensor bf16 = fp::randn({1001}, generator, DType::BF16);
  EXPECT_EQ(ordered_sum(bf16), truth<double>("ordered_sum(bf16)"));
  EXPECT_EQ(tail(bf16, 3), truth<std::vector<float>>("bf16[-3:].float().tolist()"));
}

TEST(Randn, ComplexHasUnitVarianceSplitOverTheParts) {
  /*
  #|PYTHON
  small = torch.randn(3, generator=seeded(11), dtype=torch.complex64)
  large = torch.randn(2, 5, generator=seeded(11), dtype=torch.complex128)
  */
  Generator generator(11);
  EXPECT_EQ(fp::randn({3}, generator, DType::C64).to_vector<std::complex<double>>(),
            truth<std::vector<std::complex<double>>>("small.tolist()"));
  generator.manual_seed(11);
  const Tensor large = fp::randn({2, 5}, generator, DType::C128);  // 20 reals: normal_fill
  EXPECT_EQ(shape(large), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(large.to_vector<std::complex<double>>(),
            truth<std::vector<std::complex<double>>>("large.flatten().tolist()"));
}

TEST(Randn, TheBoxMullerSpareCarriesOverBetweenCalls) {
  /*
  #|PYTHON
  g = seeded(9)
  first = torch.randn(3, generator=g)           # leaves the spare of its second pair
  block = torch.randn(40, generator=g)          # normal_fill: leaves the spare alone
  uniform = torch.rand(2, generator=g)          # uniform: leaves the spare alone
  second = torch.randn(1, generator=g)          # takes the spare, draws nothing
  third = torch.randn(2, 2, generator=g, dtype=torch.float64)
  */
  Generator generator(9);
  EXPECT_EQ(fp::randn({3}, generator).to_vector<float>(),
            truth<std::vector<float>>("first.tolist()"));
  EXPECT_EQ(ordered_sum(fp::randn({40}, generator)), truth<double>("ordered_sum(block)"));
  EXPECT_EQ(fp::rand({2}, generator).to_vector<float>(),
            truth<std::vector<float>>("uniform.tolist()"));
  EXPECT_EQ(fp::randn({1}, generator).to_vector<float>(),
            truth<std::vector<float>>("second.tolist()"));
  EXPECT_EQ(fp::randn({2, 2}, generator, DType::F64).to_vector<double>(),
            truth<std::vector<double>>("third.flatten().tolist()"));
}

TEST(Randn, WithoutGeneratorHasTheRequestedShapeAndDType) {
  const Tensor x = fp::randn({4, 5});
  EXPECT_EQ(shape(x), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(x.dtype(), DType::F32);
  EXPECT_EQ(x.device(), fp::Device::cpu());
  EXPECT_NE(x.to_vector<float>(), fp::randn({4, 5}).to_vector<float>());
  const Tensor h = fp::randn({3}, fp::TensorOptions(DType::F16).device(fp::Device::cpu()));
  EXPECT_EQ(h.dtype(), DType::F16);
  EXPECT_EQ(fp::randn({3}, DType::C64).dtype(), DType::C64);
}

// --- randint -----------------------------------------------------------------------------

TEST(Randint, Int64EqualsPython) {
  /*
  #|PYTHON
  x = torch.randint(0, 10, (2, 5), generator=seeded(42))
  */
  Generator generator(42);
  const Tensor x = fp::randint(0, 10, {2, 5}, generator);
  EXPECT_EQ(shape(x), (std::vector<int64_t>{2, 5}));  // #PYTHON list(x.shape)
  EXPECT_EQ(x.dtype(), fp::DType::I64);               // #PYTHON x.dtype
  EXPECT_EQ(x.to_vector<int64_t>(),
            (std::vector<int64_t>{2, 7, 6, 4, 6, 5, 0, 4, 0, 3}));  // #PYTHON x.flatten().tolist()
}

TEST(Randint, IntegerDTypesAndNegativeLowEqualPython) {
  /*
  #|PYTHON
  i8 = torch.randint(-128, 128, (6,), generator=seeded(3), dtype=torch.int8)
  i16 = torch.randint(-7, 7, (6,), generator=seeded(3), dtype=torch.int16)
  i32 = torch.randint(-1000, 5, (6,), generator=seeded(3), dtype=torch.int32)
  u8 = torch.randint(0, 256, (6,), generator=seeded(3), dtype=torch.uint8)
  b = torch.randint(0, 2, (6,), generator=seeded(3), dtype=torch.bool)
  */
  Generator generator(3);
  EXPECT_EQ(fp::randint(-128, 128, {6}, generator, DType::I8).to_vector<int64_t>(),
            (std::vector<int64_t>{-22, 24, 121, 3, 56, 72}));  // #PYTHON i8.tolist()
  generator.manual_seed(3);
  EXPECT_EQ(fp::randint(-7, 7, {6}, generator, DType::I16).to_vector<int64_t>(),
            (std::vector<int64_t>{5, 3, -4, 4, -7, -1}));  // #PYTHON i16.tolist()
  generator.manual_seed(3);
  EXPECT_EQ(fp::randint(-1000, 5, {6}, generator, DType::I32).to_vector<int64_t>(),
            (std::vector<int64_t>{-459, -197, -963, -358, -690, -265}));  // #PYTHON i32.tolist()
  generator.manual_seed(3);
  EXPECT_EQ(fp::randint(0, 256, {6}, generator, DType::U8).to_vector<int64_t>(),
            (std::vector<int64_t>{106, 152, 249, 131, 184, 200}));  // #PYTHON u8.tolist()
  generator.manual_seed(3);
  EXPECT_EQ(fp::randint(0, 2, {6}, generator, DType::Bool).to_vector<bool>(),
            (std::vector<bool>{false, false, true, true, false, false}));  // #PYTHON b.tolist()
}

TEST(Randint, RangesOfTwoToTheTwentyEightAndMoreDrawSixtyFourBits) {
  /*
  #|PYTHON
  g = seeded(77)
  wide = torch.randint(-2**40, 2**40, (4,), generator=g)
  beyond_32_bits = torch.randint(0, 2**33, (4,), generator=g)
  threshold = torch.randint(5, 5 + 2**28, (3,), generator=g)
  below = torch.randint(5, 5 + 2**28 - 1, (3,), generator=g)
  full = torch.randint(-2**63, 2**63 - 1, (2,), generator=g)
  */
  Generator generator(77);
  EXPECT_EQ(fp::randint(-(int64_t{1} << 40), int64_t{1} << 40, {4}, generator).to_vector<int64_t>(),
            (std::vector<int64_t>{-175954648481, -737216632876, -90022238939,
                                  -443206048865}));  // #PYTHON wide.tolist()
  EXPECT_EQ(fp::randint(0, int64_t{1} << 33, {4}, generator).to_vector<int64_t>(),
            (std::vector<int64_t>{1465232825, 8113116277, 3237718803,
                                  2973895483}));  // #PYTHON beyond_32_bits.tolist()
  EXPECT_EQ(fp::randint(5, 5 + (int64_t{1} << 28), {3}, generator).to_vector<int64_t>(),
            (std::vector<int64_t>{228424425, 246578601, 210807220}));  // #PYTHON threshold.tolist()
  EXPECT_EQ(fp::randint(5, 4 + (int64_t{1} << 28), {3}, generator).to_vector<int64_t>(),
            (std::vector<int64_t>{118935774, 31014295, 103852060}));  // #PYTHON below.tolist()
  EXPECT_EQ(
      fp::randint(INT64_MIN, INT64_MAX, {2}, generator).to_vector<int64_t>(),
      (std::vector<int64_t>{4705613755967779619, 7811456974709639425}));  // #PYTHON full.tolist()
}

TEST(Randint, FloatingAndUnsignedDTypesEqualPython) {
  /*
  #|PYTHON
  g = seeded(8)
  f32 = torch.randint(-50, 50, (5,), generator=g, dtype=torch.float32)
  f16 = torch.randint(0, 2048, (5,), generator=g, dtype=torch.float16)
  f64 = torch.randint(0, 2**40, (3,), generator=g, dtype=torch.float64)
  u32 = torch.randint(0, 2**32, (3,), generator=g, dtype=torch.uint32)
  # low + 1 is not a float32: torch moves low up to the next float32 (2^25 + 4),
  # warning that float32 is exact only up to 2^24.
  import warnings
  with warnings.catch_warnings():
      warnings.simplefilter("ignore")
      moved = torch.randint(2**25 + 1, 2**25 + 100, (4,), generator=g, dtype=torch.float32)
  */
  Generator generator(8);
  EXPECT_EQ(fp::randint(-50, 50, {5}, generator, DType::F32).to_vector<float>(),
            truth<std::vector<float>>("f32.tolist()"));
  EXPECT_EQ(fp::randint(0, 2048, {5}, generator, DType::F16).to_vector<float>(),
            truth<std::vector<float>>("f16.float().tolist()"));
  EXPECT_EQ(fp::randint(0, int64_t{1} << 40, {3}, generator, DType::F64).to_vector<double>(),
            truth<std::vector<double>>("f64.tolist()"));
  EXPECT_EQ(fp::randint(0, int64_t{1} << 32, {3}, generator, DType::U32).to_vector<int64_t>(),
            (std::vector<int64_t>{3745591963, 3979022605, 629318717}));  // #PYTHON u32.tolist()
  EXPECT_EQ(
      fp::randint((1 << 25) + 1, (1 << 25) + 100, {4}, generator, DType::F32).to_vector<double>(),
      truth<std::vector<double>>("moved.tolist()"));
}

TEST(Randint, WithoutGeneratorHasTheRequestedShapeDTypeAndRange) {
  const Tensor x = fp::randint(10, {3, 4});
  EXPECT_EQ(shape(x), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(x.dtype(), DType::I64);
  EXPECT_EQ(x.device(), fp::Device::cpu());
  EXPECT_TRUE(all_within(x, 0, 10));
  const Tensor y = fp::randint(-5, 5, {100}, DType::I8);
  EXPECT_EQ(y.dtype(), DType::I8);
  EXPECT_TRUE(all_within(y, -5, 5));
  EXPECT_EQ(fp::randint(0, 3, {2}, DType::F32).dtype(), DType::F32);
}

// --- the *_like forms ----------------------------------------------------------------------

TEST(RandomLike, TakeSizesDTypeAndDeviceFromTheSource) {
  const Tensor source = fp::tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});  // float64 [2, 3]
  const Tensor u = fp::rand_like(source);
  EXPECT_EQ(shape(u), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(u.dtype(), DType::F64);
  EXPECT_EQ(u.device(), source.device());
  EXPECT_TRUE(all_within(u, 0.0, 1.0));
  const Tensor n = fp::randn_like(source);
  EXPECT_EQ(shape(n), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(n.dtype(), DType::F64);
  const Tensor i = fp::randint_like(source, -3, 3);
  EXPECT_EQ(i.dtype(), DType::F64);
  EXPECT_TRUE(all_within(i, -3, 3));
}

TEST(RandomLike, OptionsOverrideTheSource) {
  const Tensor source = fp::tensor({1, 2, 3, 4});  // int32 [4]
  const fp::TensorView view = source;
  EXPECT_EQ(fp::rand_like(view, DType::F16).dtype(), DType::F16);
  EXPECT_EQ(fp::randn_like(view, DType::BF16).dtype(), DType::BF16);
  const Tensor i = fp::randint_like(view, 0, 100, DType::I16);
  EXPECT_EQ(i.dtype(), DType::I16);
  EXPECT_EQ(shape(i), (std::vector<int64_t>{4}));
  EXPECT_TRUE(all_within(i, 0, 100));
  EXPECT_EQ(fp::rand_like(view, fp::TensorOptions(DType::F32).device(fp::Device::meta())).device(),
            fp::Device::meta());
}

// --- CUDA ------------------------------------------------------------------------------------

TEST(RandomCuda, GeneratorSamplesEqualTheCpuOnesOnTheDevice) {
  if (!fp::cuda_is_available()) GTEST_SKIP() << "no CUDA device";
  Generator on_cpu(21);
  Generator on_cuda(21);
  const Tensor cpu = fp::randn({40}, on_cpu);
  const Tensor cuda = fp::randn({40}, on_cuda, fp::Device::cuda());
  EXPECT_TRUE(cuda.device().is_cuda());
  const Tensor back = fp::dispatch<Tensor>("aten::_to_copy", "", cuda, std::nullopt, std::nullopt,
                                           fp::Device::cpu());
  EXPECT_EQ(back.to_vector<float>(), cpu.to_vector<float>());
  const Tensor ints =
      fp::randint(0, 9, {3}, on_cuda, fp::TensorOptions(DType::I32, fp::Device::cuda()));
  EXPECT_EQ(ints.dtype(), DType::I32);
  EXPECT_TRUE(ints.device().is_cuda());
}

TEST(RandomCuda, WithoutGeneratorSamplesOnTheDevice) {
  if (!fp::cuda_is_available()) GTEST_SKIP() << "no CUDA device";
  EXPECT_TRUE(fp::rand({2, 2}, fp::Device::cuda()).device().is_cuda());
  EXPECT_TRUE(fp::randn({2, 2}, fp::Device::cuda()).device().is_cuda());
  EXPECT_TRUE(fp::randint(5, {2}, fp::Device::cuda()).device().is_cuda());
  const Tensor source = fp::randn({3}, fp::Device::cuda());
  EXPECT_TRUE(fp::rand_like(source).device().is_cuda());
}

// --- bad input ------------------------------------------------------------------------------

TEST(RandomErrors, NegativeSizes) {
  Generator generator;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::rand: negative dimension -1 in sizes [2, -1]",
                  fp::rand({2, -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::rand: negative dimension -2",
                  fp::rand({-2}, generator));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randn: negative dimension -1",
                  fp::randn({-1, 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randn: negative dimension -1",
                  fp::randn({-1}, generator));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randint: negative dimension -3",
                  fp::randint(5, {-3}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randint: negative dimension -3",
                  fp::randint(0, 5, {-3}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randint: negative dimension -3",
                  fp::randint(0, 5, {-3}, generator));
  // 2^62 floats: more than a std::vector can hold, refused before any allocation.
  EXPECT_FP_ERROR(fp::ErrorCode::OutOfMemory,
                  "fp::rand: not enough memory to sample 4611686018427387904 elements",
                  fp::rand({int64_t{1} << 31, int64_t{1} << 31}, generator));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "hold more elements than int64 can count",
                  fp::rand({int64_t{1} << 40, int64_t{1} << 40}, generator));
}

TEST(RandomErrors, RandAndRandnNeedAFloatingDType) {
  Generator generator;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::rand: cannot sample dtype int64",
                  fp::rand({2}, DType::I64));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "(fp::randint samples integers)",
                  fp::rand({2}, generator, DType::I32));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randn: cannot sample dtype bool",
                  fp::randn({2}, DType::Bool));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randn: cannot sample dtype float8_e4m3fn",
                  fp::randn({2}, generator, DType::F8_E4M3FN));
  const Tensor ints = fp::tensor({1, 2});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::rand_like: cannot sample dtype int32",
                  fp::rand_like(ints));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randn_like: cannot sample dtype uint8",
                  fp::randn_like(ints, DType::U8));
}

TEST(Exponential, EqualsPythonAndContinuesTheSequence) {
  /*
  #|PYTHON
  gen = seeded(9)
  first = torch.empty(2, 3).exponential_(generator=gen)
  second = torch.empty(4, dtype=torch.float64).exponential_(0.5, generator=gen)
  */
  Generator generator(9);
  const Tensor first = fp::exponential({2, 3}, generator);
  EXPECT_EQ(shape(first), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(first.to_vector<float>(), truth<std::vector<float>>("first.flatten().tolist()"));
  const Tensor second = fp::exponential({4}, generator, 0.5, DType::F64);
  EXPECT_EQ(second.to_vector<double>(), truth<std::vector<double>>("second.tolist()"));
}

TEST(RandomErrors, ExponentialNeedsAPositiveRateAndAFloatingDType) {
  Generator generator;
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::exponential: exponential_ expects lambda > 0.0, but found lambda=0",
                        fp::exponential({2}, generator, 0.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "dtype must be a floating point but you specified Long",
                  fp::exponential({2}, generator, 1.0, DType::I64));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "dtype must be a floating point",
                  fp::exponential({2}, generator, 1.0, DType::C64));
}

TEST(RandomErrors, RandintNeedsLowBelowHigh) {
  Generator generator;
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::randint: low must be less than high, but got low=5 >= high=3",
                        fp::randint(5, 3, {2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "low=0 >= high=0", fp::randint(0, {2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "low=4 >= high=4", fp::randint(4, 4, {2}, generator));
  const Tensor source = fp::tensor({1, 2});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randint_like: low must be less than high",
                  fp::randint_like(source, 2, 1));
}

TEST(RandomErrors, RandintNeedsADTypeThatHoldsTheRange) {
  Generator generator;
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::randint: [low, high) = [-1, 3) does not fit dtype uint8, which holds [0, 255]",
      fp::randint(-1, 3, {2}, DType::U8));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "[0, 300) does not fit dtype uint8",
                  fp::randint(0, 300, {2}, generator, DType::U8));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "does not fit dtype bool",
                  fp::randint(0, 3, {2}, generator, DType::Bool));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "does not fit dtype float16, which holds [-65504, 65504]",
                  fp::randint(0, 70000, {2}, generator, DType::F16));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "holds no value of dtype float32 once rounded to it",
                  fp::randint((1 << 25) + 1, (1 << 25) + 3, {2}, generator, DType::F32));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::randint: cannot sample integers into dtype complex64",
                  fp::randint(0, 3, {2}, generator, DType::C64));
  const Tensor bytes = fp::tensor(std::vector<uint8_t>{1, 2});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::randint_like: [low, high) = [0, 1000) does not fit dtype uint8",
                  fp::randint_like(bytes, 0, 1000));
}

TEST(RandomErrors, GeneratorFormsSampleStridedTensorsOnly) {
  Generator generator;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::rand: a Generator samples strided tensors only, not layout sparse_coo",
                  fp::rand({2}, generator, fp::Layout::SparseCoo));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randn: a Generator samples strided tensors only",
                  fp::randn({2}, generator, fp::Layout::SparseCsr));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::randint: a Generator samples strided tensors only",
                  fp::randint(0, 2, {2}, generator, fp::Layout::SparseCoo));
}

TEST(RandomErrors, UndefinedSources) {
  const fp::TensorView undefined;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::rand_like: the source tensor is undefined",
                  fp::rand_like(undefined));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randn_like: the source tensor is undefined",
                  fp::randn_like(undefined));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::randint_like: the source tensor is undefined",
                  fp::randint_like(undefined, 0, 2));
}

TEST(RandomErrors, LibtorchRefusalsCarryItsMessage) {
  if (fp::cuda_is_available()) GTEST_SKIP() << "this checks the refusal without CUDA";
  Generator generator;
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::rand", fp::rand({2}, fp::Device::cuda()));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::_to_copy",
                  fp::randn({2}, generator, fp::Device::cuda()));
}

}  // namespace
