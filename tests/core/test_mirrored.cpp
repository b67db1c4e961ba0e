// The mirrored kernels (src/core/mirrored/): arange and the sampling kernels
// of rand, randn and randint with a generator, which flash_powder computes
// itself because the stable ABI has no route to them. Their bits depend on
// the running CPU capability (vector width, fused multiply-adds) and on how
// at::parallel_for splits the work for the thread count, so they are
// compared with the torch beside the test, under the same CPU settings and
// thread count, at every length from 1 to 300 and across the grain size
// (32768) with 1, 2 and 3 threads. The comparison is of every bit of every
// element: per tensor a position-weighted sum of the elements' bit patterns
// (digest(), computed alike in Python and C++), so that the cache stays
// small; a failure names the lengths whose bits differ.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import numpy as np

BIT_VIEWS = {torch.float32: torch.int32, torch.float64: torch.int64,
             torch.float16: torch.int16, torch.bfloat16: torch.int16}
LENGTHS = list(range(1, 301))
ACROSS_THE_GRAIN = [32767, 32768, 32769, 65535, 65536, 65537, 100003]

def weights(count):
    # splitmix64(i) | 1, as weight() in the C++ below.
    z = np.arange(count, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return (z ^ (z >> np.uint64(31))) | np.uint64(1)

def digest(t):
    # sum of bits_i * weight(i) modulo 2^64, bits_i the element's bit pattern
    # sign-extended to 64 bits (integers: the value).
    t = t.flatten()
    if t.dtype in BIT_VIEWS:
        t = t.view(BIT_VIEWS[t.dtype])
    bits = t.to(torch.int64).numpy().view(np.uint64)
    return int((bits * weights(bits.size)).sum(dtype=np.uint64))

def with_threads(threads, run):
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return run()
    finally:
        torch.set_num_threads(before)

def arange_digests(start, step, dtype, lengths=LENGTHS):
    # n elements: end = start + (n - 0.5) * step, as in the C++ below.
    return [digest(torch.arange(start, start + (n - 0.5) * step, step, dtype=dtype))
            for n in lengths]

def integer_arange_digests(start, step, dtype, lengths=LENGTHS):
    return [digest(torch.arange(start, start + n * step, step, dtype=dtype)) for n in lengths]

def seeded(seed):
    return torch.Generator().manual_seed(seed)
*/

namespace {

using fp::DType;
using fp::Tensor;
using fp_test::truth;

// --- digest(): the same sum as the Python above --------------------------------------------

std::uint64_t weight(std::uint64_t index) {
  std::uint64_t z = index + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return (z ^ (z >> 31U)) | 1U;
}

template <class Signed, class T>
std::uint64_t sign_extended(T value) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(std::bit_cast<Signed>(value)));
}

/// Each element's bit pattern, sign-extended to 64 bits (integers: the value).
std::vector<std::uint64_t> bit_patterns(const Tensor& t) {
  std::vector<std::uint64_t> bits;
  bits.reserve(static_cast<std::size_t>(t.numel()));
  switch (t.dtype()) {
    case DType::F32:
      for (const float value : t.data<float>())
        bits.push_back(sign_extended<std::int32_t>(value));
      break;
    case DType::F64:
      for (const double value : t.data<double>())
        bits.push_back(sign_extended<std::int64_t>(value));
      break;
    case DType::F16:
      for (const fp::Half value : t.data<fp::Half>())
        bits.push_back(sign_extended<std::int16_t>(value.bits));
      break;
    case DType::BF16:
      for (const fp::BFloat16 value : t.data<fp::BFloat16>())
        bits.push_back(sign_extended<std::int16_t>(value.bits));
      break;
    default:
      for (const std::int64_t value : t.to_vector<std::int64_t>())
        bits.push_back(static_cast<std::uint64_t>(value));
      break;
  }
  return bits;
}

std::uint64_t digest(const Tensor& t) {
  std::uint64_t sum = 0;
  std::uint64_t index = 0;
  for (const std::uint64_t bits : bit_patterns(t))
    sum += bits * weight(index++);
  return sum;
}

/// Expects equal digests, naming the lengths whose bits differ.
void expect_same_bits(const std::vector<std::uint64_t>& ours,
                      const std::vector<std::uint64_t>& torchs,
                      const std::vector<std::int64_t>& lengths, const std::string& what) {
  ASSERT_EQ(ours.size(), torchs.size()) << what;
  std::string differing;
  int count = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    if (ours[i] == torchs[i]) continue;
    ++count;
    differing += " " + std::to_string(lengths[i]);
  }
  EXPECT_EQ(count, 0) << what << " (" << fp::torch_cpu_capability() << ", " << fp::get_num_threads()
                      << " threads): the bits differ from torch's at " << count << " of "
                      << ours.size() << " lengths:" << differing;
}

std::vector<std::int64_t> one_to_300() {
  std::vector<std::int64_t> lengths;
  for (std::int64_t n = 1; n <= 300; ++n)
    lengths.push_back(n);
  return lengths;
}

const std::vector<std::int64_t> across_the_grain = {32767, 32768, 32769, 65535,
                                                    65536, 65537, 100003};

/// fp::set_num_threads for a scope (Python's with_threads).
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : before_(fp::get_num_threads()) {
    fp::set_num_threads(threads);
  }
  ~ThreadCount() { fp::set_num_threads(before_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int before_;
};

std::string describe(const std::string& op, double start, double step, DType dtype) {
  return op + "(" + std::to_string(start) + ", step " + std::to_string(step) + ", " +
         std::string(fp::name(dtype)) + ")";
}

/// fp::arange with n elements, as arange_digests() makes them.
std::vector<std::uint64_t> arange_digests(double start, double step, DType dtype,
                                          const std::vector<std::int64_t>& lengths) {
  std::vector<std::uint64_t> digests;
  for (const std::int64_t n : lengths) {
    const Tensor values =
        fp::arange(start, start + (static_cast<double>(n) - 0.5) * step, step, dtype);
    EXPECT_EQ(values.numel(), n);
    digests.push_back(digest(values));
  }
  return digests;
}

// --- arange ----------------------------------------------------------------------------------

TEST(MirroredArange, EveryFloatingDTypeAtEveryLengthUpTo300) {
  /*
  #|PYTHON
  CASES = [(start, step, dtype)
           for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16)
           for start, step in ((0.0, 1.0), (0.1, 0.3), (-3.7, 0.013), (5.2, -0.7))]
  */
  const auto starts = truth<std::vector<double>>("[start for start, step, dtype in CASES]");
  const auto steps = truth<std::vector<double>>("[step for start, step, dtype in CASES]");
  const auto dtypes = truth<std::vector<DType>>("[dtype for start, step, dtype in CASES]");
  const auto expected = truth<std::vector<std::vector<std::uint64_t>>>(
      "[arange_digests(start, step, dtype) for start, step, dtype in CASES]");
  ASSERT_EQ(expected.size(), 16U);
  for (std::size_t c = 0; c < expected.size(); ++c) {
    expect_same_bits(arange_digests(starts[c], steps[c], dtypes[c], one_to_300()), expected[c],
                     one_to_300(), describe("fp::arange", starts[c], steps[c], dtypes[c]));
  }
}

TEST(MirroredArange, IntegerDTypesAtEveryLengthUpTo300) {
  /*
  #|PYTHON
  # int8 and uint8 wrap around; int32 counts down.
  CASES = [(-7, 3, torch.int64), (5, -2, torch.int32), (100, 7, torch.int8),
           (250, 3, torch.uint8), (-300, 11, torch.int16)]
  */
  const auto starts = truth<std::vector<std::int64_t>>("[start for start, step, dtype in CASES]");
  const auto steps = truth<std::vector<std::int64_t>>("[step for start, step, dtype in CASES]");
  const auto dtypes = truth<std::vector<DType>>("[dtype for start, step, dtype in CASES]");
  const auto expected = truth<std::vector<std::vector<std::uint64_t>>>(
      "[integer_arange_digests(start, step, dtype) for start, step, dtype in CASES]");
  ASSERT_EQ(expected.size(), 5U);
  for (std::size_t c = 0; c < expected.size(); ++c) {
    std::vector<std::uint64_t> digests;
    for (const std::int64_t n : one_to_300()) {
      const Tensor values = fp::arange(starts[c], starts[c] + n * steps[c], steps[c], dtypes[c]);
      EXPECT_EQ(values.dtype(), dtypes[c]);
      digests.push_back(digest(values));
    }
    expect_same_bits(digests, expected[c], one_to_300(),
                     describe("fp::arange", static_cast<double>(starts[c]),
                              static_cast<double>(steps[c]), dtypes[c]));
  }
}

TEST(MirroredArange, AcrossTheGrainSizeWithOneTwoAndThreeThreads) {
  /*
  #|PYTHON
  DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
  def across_the_grain(threads):
      return with_threads(threads, lambda: [arange_digests(-3.7, 0.013, dtype, ACROSS_THE_GRAIN)
                                            for dtype in DTYPES])
  */
  const auto dtypes = truth<std::vector<DType>>("DTYPES");
  const std::vector<std::vector<std::vector<std::uint64_t>>> expected = {
      truth<std::vector<std::vector<std::uint64_t>>>("across_the_grain(1)"),
      truth<std::vector<std::vector<std::uint64_t>>>("across_the_grain(2)"),
      truth<std::vector<std::vector<std::uint64_t>>>("across_the_grain(3)")};
  for (int threads = 1; threads <= 3; ++threads) {
    const ThreadCount count(threads);
    const auto& torchs = expected[static_cast<std::size_t>(threads - 1)];
    ASSERT_EQ(torchs.size(), dtypes.size());
    for (std::size_t d = 0; d < dtypes.size(); ++d) {
      expect_same_bits(arange_digests(-3.7, 0.013, dtypes[d], across_the_grain), torchs[d],
                       across_the_grain, describe("fp::arange", -3.7, 0.013, dtypes[d]));
    }
  }
}

// --- the sampling kernels --------------------------------------------------------------------

/// `sample(n, generator)` for each length n, from a generator seeded anew.
template <class Sample>
std::vector<std::uint64_t> sample_digests(std::uint64_t seed,
                                          const std::vector<std::int64_t>& lengths,
                                          Sample&& sample) {
  std::vector<std::uint64_t> digests;
  fp::Generator generator(seed);
  for (const std::int64_t n : lengths) {
    generator.manual_seed(seed);
    const Tensor values = sample(n, generator);
    EXPECT_EQ(values.numel(), n);
    digests.push_back(digest(values));
  }
  return digests;
}

TEST(MirroredRandom, RandAndRandnOfEveryFloatingDTypeAtEveryLengthUpTo300) {
  /*
  #|PYTHON
  DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
  def sampled(op, dtype, lengths=LENGTHS):
      return [digest(op(n, generator=seeded(31), dtype=dtype)) for n in lengths]
  */
  const auto dtypes = truth<std::vector<DType>>("DTYPES");
  const auto rand = truth<std::vector<std::vector<std::uint64_t>>>(
      "[sampled(torch.rand, dtype) for dtype in DTYPES]");
  const auto randn = truth<std::vector<std::vector<std::uint64_t>>>(
      "[sampled(torch.randn, dtype) for dtype in DTYPES]");
  ASSERT_EQ(rand.size(), dtypes.size());
  ASSERT_EQ(randn.size(), dtypes.size());
  for (std::size_t d = 0; d < dtypes.size(); ++d) {
    const DType dtype = dtypes[d];
    const std::string name(fp::name(dtype));
    expect_same_bits(sample_digests(31, one_to_300(),
                                    [&](std::int64_t n, fp::Generator& generator) {
                                      return fp::rand({n}, generator, dtype);
                                    }),
                     rand[d], one_to_300(), "fp::rand " + name);
    expect_same_bits(sample_digests(31, one_to_300(),
                                    [&](std::int64_t n, fp::Generator& generator) {
                                      return fp::randn({n}, generator, dtype);
                                    }),
                     randn[d], one_to_300(), "fp::randn " + name);
  }
}

TEST(MirroredRandom, ExponentialOfEveryFloatingDTypeAtEveryLengthUpTo300) {
  /*
  #|PYTHON
  DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
  def exponential(dtype, lambd):
      return [digest(torch.empty(n, dtype=dtype).exponential_(lambd, generator=seeded(33)))
              for n in LENGTHS]
  */
  const auto dtypes = truth<std::vector<DType>>("DTYPES");
  const auto unit = truth<std::vector<std::vector<std::uint64_t>>>(
      "[exponential(dtype, 1.0) for dtype in DTYPES]");
  const auto fast = truth<std::vector<std::vector<std::uint64_t>>>(
      "[exponential(dtype, 2.5) for dtype in DTYPES]");
  ASSERT_EQ(unit.size(), dtypes.size());
  for (std::size_t d = 0; d < dtypes.size(); ++d) {
    const DType dtype = dtypes[d];
    for (const double lambd : {1.0, 2.5}) {
      expect_same_bits(sample_digests(33, one_to_300(),
                                      [&](std::int64_t n, fp::Generator& generator) {
                                        return fp::exponential({n}, generator, lambd, dtype);
                                      }),
                       lambd == 1.0 ? unit[d] : fast[d], one_to_300(),
                       "fp::exponential " + std::string(fp::name(dtype)));
    }
  }
}

TEST(MirroredRandom, RandintAtEveryLengthUpTo300) {
  /*
  #|PYTHON
  # A range below 2^28 draws 32 bits, one of 2^28 and more 64 bits.
  CASES = [(-1000, 1000, torch.int64), (0, 2**40, torch.int64), (-50, 50, torch.float32),
           (0, 256, torch.uint8)]
  def sampled(low, high, dtype, lengths=LENGTHS):
      return [digest(torch.randint(low, high, (n,), generator=seeded(32), dtype=dtype))
              for n in lengths]
  */
  const auto lows = truth<std::vector<std::int64_t>>("[low for low, high, dtype in CASES]");
  const auto highs = truth<std::vector<std::int64_t>>("[high for low, high, dtype in CASES]");
  const auto dtypes = truth<std::vector<DType>>("[dtype for low, high, dtype in CASES]");
  const auto expected = truth<std::vector<std::vector<std::uint64_t>>>(
      "[sampled(low, high, dtype) for low, high, dtype in CASES]");
  ASSERT_EQ(expected.size(), 4U);
  for (std::size_t c = 0; c < expected.size(); ++c) {
    expect_same_bits(
        sample_digests(32, one_to_300(),
                       [&](std::int64_t n, fp::Generator& generator) {
                         return fp::randint(lows[c], highs[c], {n}, generator, dtypes[c]);
                       }),
        expected[c], one_to_300(),
        "fp::randint [" + std::to_string(lows[c]) + ", " + std::to_string(highs[c]) + ") " +
            std::string(fp::name(dtypes[c])));
  }
}

TEST(MirroredRandom, LargeTensorsWithOneAndTwoThreads) {
  /*
  #|PYTHON
  def large(threads):
      def run():
          g = seeded(33)
          return [[digest(torch.rand(n, generator=g)) for n in ACROSS_THE_GRAIN],
                  [digest(torch.randn(n, generator=g)) for n in ACROSS_THE_GRAIN],
                  [digest(torch.randn(n, generator=g, dtype=torch.float16)) for n in ACROSS_THE_GRAIN],
                  [digest(torch.randint(-9, 9, (n,), generator=g)) for n in ACROSS_THE_GRAIN]]
      return with_threads(threads, run)
  */
  const std::vector<std::vector<std::vector<std::uint64_t>>> expected = {
      truth<std::vector<std::vector<std::uint64_t>>>("large(1)"),
      truth<std::vector<std::vector<std::uint64_t>>>("large(2)")};
  for (int threads = 1; threads <= 2; ++threads) {
    const ThreadCount count(threads);
    const auto& torchs = expected[static_cast<std::size_t>(threads - 1)];
    ASSERT_EQ(torchs.size(), 4U);
    // One generator through all of them, as in Python.
    fp::Generator generator(33);
    std::vector<std::vector<std::uint64_t>> ours(4);
    for (const std::int64_t n : across_the_grain)
      ours[0].push_back(digest(fp::rand({n}, generator)));
    for (const std::int64_t n : across_the_grain)
      ours[1].push_back(digest(fp::randn({n}, generator)));
    for (const std::int64_t n : across_the_grain)
      ours[2].push_back(digest(fp::randn({n}, generator, DType::F16)));
    for (const std::int64_t n : across_the_grain)
      ours[3].push_back(digest(fp::randint(-9, 9, {n}, generator)));
    const char* names[] = {"fp::rand", "fp::randn", "fp::randn Half", "fp::randint"};
    for (std::size_t k = 0; k < 4; ++k)
      expect_same_bits(ours[k], torchs[k], across_the_grain, names[k]);
  }
}

}  // namespace
