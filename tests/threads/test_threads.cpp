// The promise that forward() is const and may be called from any thread, and
// that loading, views and ops by name need no lock: several threads at once,
// for a bounded time, each result checked against PyTorch's. The sanitizer
// lane runs this under AddressSanitizer; a defect shows as a wrong value, a
// crash, or a sanitizer report.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "nn/helpers.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from truth_helpers import g, values, filled

net = filled(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8)))
x = torch.randn(16, 32, generator=g(1))
with torch.no_grad():
    y = net(x)
shared = torch.randn(64, 32, generator=g(2))
*/

namespace {

using fp_test::truth;
using nn_test::randn;
using nn_test::values;

constexpr int kThreads = 8;
// Each thread works until this much time has passed (and at least one round):
// long enough for the threads to overlap in every kind of work, short enough
// for a sanitizer or valgrind run. Nothing is asserted about the time.
constexpr auto kDuration = std::chrono::seconds(3);

fp::nn::Sequential make_net() {
  return fp::nn::Sequential(fp::nn::Linear(32, 64), fp::nn::ReLU(), fp::nn::Linear(64, 8));
}

/// The expected values of one thread's work, computed by PyTorch.
struct Expected {
  std::vector<float> forward;      // net(x)
  std::vector<float> shared;       // the shared tensor, row-major
  std::vector<float> row_sums;     // shared.sum(1)
  std::vector<float> squares;      // shared * shared
  std::vector<float> column_sums;  // shared.t().sum(1)
};

/// One thread's rounds; returns how many checks failed (0 expected) and how
/// many rounds it ran.
struct Tally {
  int failures = 0;
  int rounds = 0;
};

Tally work(int thread, const fp::nn::Sequential& net, const fp::Tensor& x, const fp::Tensor& shared,
           const std::filesystem::path& file, const Expected& expected) {
  Tally tally;
  const auto until = std::chrono::steady_clock::now() + kDuration;
  const std::int64_t rows = shared.sizes()[0];
  do {
    // 1. forward() of the shared module.
    if (values(net(x)) != expected.forward) ++tally.failures;
    // 2. The same safetensors file, loaded into a module of this thread's own.
    fp::nn::Sequential own = make_net();
    own.load_state_dict(fp::safetensors::load(file));
    if (values(own(x)) != expected.forward) ++tally.failures;
    // 3. Views of the shared tensor, made and dropped here.
    const std::int64_t row = (thread + tally.rounds) % rows;
    const auto first = expected.shared.begin() + row * 32;
    if (values(shared.select(0, row)) != std::vector<float>(first, first + 32)) ++tally.failures;
    if (values(shared.narrow(0, row, 1).view({32})) != std::vector<float>(first, first + 32)) {
      ++tally.failures;
    }
    // 4. Ops called by name, on the shared tensor and a view of it.
    const auto row_sums = fp::dispatch<fp::Tensor>(
        "aten::sum", "dim_IntList", shared, std::vector<std::int64_t>{1}, false, std::nullopt);
    if (values(row_sums) != expected.row_sums) ++tally.failures;
    if (values(fp::dispatch<fp::Tensor>("aten::mul", "Tensor", shared, shared)) !=
        expected.squares) {
      ++tally.failures;
    }
    const auto column_sums =
        fp::dispatch<fp::Tensor>("aten::sum", "dim_IntList", shared.transpose(0, 1),
                                 std::vector<std::int64_t>{1}, false, std::nullopt);
    if (values(column_sums) != expected.column_sums) ++tally.failures;
    ++tally.rounds;
  } while (std::chrono::steady_clock::now() < until);
  return tally;
}

TEST(Threads, SharedModuleFileTensorsAndOpsFromManyThreads) {
  fp::nn::Sequential net = make_net();
  net.load_state_dict(nn_test::filled(net));
  const fp::Tensor x = randn({16, 32}, 1);
  const fp::Tensor shared = randn({64, 32}, 2);
  const Expected expected{
      truth<std::vector<float>>("values(y)"),
      truth<std::vector<float>>("values(shared)"),
      truth<std::vector<float>>("values(shared.sum(1))"),
      truth<std::vector<float>>("values(shared * shared)"),
      truth<std::vector<float>>("values(shared.t().sum(1))"),
  };
  // Single-threaded first: the references themselves are PyTorch's.
  ASSERT_EQ(values(net(x)), expected.forward);
  ASSERT_EQ(values(shared), expected.shared);

  const auto file = std::filesystem::temp_directory_path() /
                    ("fp_threads_" + std::to_string(::getpid()) + ".safetensors");
  fp::safetensors::save(net.state_dict().entries(), file);

  std::vector<Tally> tallies(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { tallies[t] = work(t, net, x, shared, file, expected); });
  }
  for (auto& thread : threads)
    thread.join();
  std::filesystem::remove(file);

  int rounds = 0;
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(tallies[t].failures, 0) << "thread " << t << " of " << kThreads;
    EXPECT_GE(tallies[t].rounds, 1) << "thread " << t;
    rounds += tallies[t].rounds;
  }
  std::cout << "threads: " << kThreads << " threads, " << rounds << " rounds in all\n";
  // The shared tensor is unchanged by all of it.
  EXPECT_EQ(values(shared), expected.shared);
}

}  // namespace
