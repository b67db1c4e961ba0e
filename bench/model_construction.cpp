// Building layers: PyTorch's random initial values, skipped (SkipInit), and
// on the meta device, for bench/run_model_construction.sh. Prints one JSON
// object: case -> median milliseconds over `runs` constructions.
#include <flash_powder/flash_powder.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

double median_ms(int runs, const std::function<void()>& build) {
  build();  // warm-up: allocator, lazy initialisation
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    build();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  const std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"embedding_init", [] { fp::nn::Embedding(30522, 384); }},
      {"linear_init", [] { fp::nn::Linear(384, 1536); }},
      {"embedding_skip_init", [] { fp::nn::skip_init<fp::nn::Embedding>(30522, 384); }},
      {"embedding_meta", [] { fp::nn::Embedding(30522, 384, {.device = fp::Device::meta()}); }},
  };
  std::printf("{");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::printf("%s\"%s\": %.4f", i ? ", " : "", cases[i].first.c_str(),
                median_ms(runs, cases[i].second));
  }
  std::printf("}\n");
}
