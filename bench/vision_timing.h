// What bench_vision_forward (flash_powder) and bench_vision_forward_libtorch
// (libtorch's C++ API) share: their command line, the timing loop and the
// result file bench/vision_forward.py reads (run_vision.sh). Nothing here
// depends on either library.
//
//   PROGRAM MODEL WEIGHTS INPUT OUTPUT RESULT [--warmup N] [--repetitions N] [--channels-last]
//
// MODEL is vgg11, resnet50, unet, one of the zoo's torchvision models
// (convnext_tiny, ..., lraspp_mobilenet_v3_large) (input [N, 3, H, W]), lstm (input
// [100, N, 256], sequence first) or encoder (input [N, 128, 512],
// batch_first); WEIGHTS its state dict and INPUT the batch (`input`) as
// safetensors; OUTPUT receives the last forward's output (`output`, for the
// comparison with Python; the LSTM's output tensor, not its state); RESULT
// the times as JSON.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace vision_bench {

struct Arguments {
  std::string model, weights, input, output, result;
  int warmup = 1;
  int repetitions = 5;
  bool channels_last = false;
  /// flash_powder's side only: fp::nn::optimize_for_inference after loading.
  bool optimize = false;
};

inline Arguments parse_arguments(int argc, char** argv) {
  const std::string usage = std::string("usage: ") + argv[0] +
                            " MODEL WEIGHTS INPUT OUTPUT RESULT [--warmup N] [--repetitions N]"
                            " [--channels-last] [--optimize]";
  std::vector<std::string> positional;
  Arguments arguments;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--channels-last") {
      arguments.channels_last = true;
    } else if (argument == "--optimize") {
      arguments.optimize = true;
    } else if ((argument == "--warmup" || argument == "--repetitions") && i + 1 < argc) {
      (argument == "--warmup" ? arguments.warmup : arguments.repetitions) = std::stoi(argv[++i]);
    } else if (argument.starts_with("--")) {
      throw std::invalid_argument(usage);
    } else {
      positional.push_back(argument);
    }
  }
  if (positional.size() != 5 || arguments.repetitions < 1 || arguments.warmup < 0) {
    throw std::invalid_argument(usage);
  }
  arguments.model = positional[0];
  arguments.weights = positional[1];
  arguments.input = positional[2];
  arguments.output = positional[3];
  arguments.result = positional[4];
  return arguments;
}

/// The dimension of MODEL's input that holds the batch: 1 for the LSTM
/// ([time, batch, feature]), 0 for the others.
inline int batch_dim(const std::string& model) {
  return model == "lstm" ? 1 : 0;
}

/// Milliseconds of each timed forward, by the wall clock and by the CPU time
/// of the process (all its threads).
struct Times {
  std::vector<double> wall_ms, cpu_ms;
};

inline double cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

/// Runs `forward` `warmup` times untimed (first-call work: oneDNN primitives,
/// the allocator's caches), then `repetitions` times timed.
template <class Forward>
Times time_forward(Forward&& forward, const Arguments& arguments) {
  for (int i = 0; i < arguments.warmup; ++i)
    forward();
  Times times;
  for (int i = 0; i < arguments.repetitions; ++i) {
    const auto wall_start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_seconds();
    forward();
    times.cpu_ms.push_back((cpu_seconds() - cpu_start) * 1e3);
    times.wall_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start)
            .count());
  }
  return times;
}

/// The process's peak resident set size so far, in MiB (getrusage's ru_maxrss).
inline double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;
}

inline std::string json_list(const std::vector<double>& values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    char number[32];
    std::snprintf(number, sizeof number, "%s%.6g", i ? ", " : "", values[i]);
    text += number;
  }
  return text + "]";
}

/// The RESULT file: what vision_forward.py's `run` writes for the Python sides.
inline void write_result(const Arguments& arguments, const std::string& side, int threads,
                         long long batch, double load_ms, const Times& times) {
  std::FILE* file = std::fopen(arguments.result.c_str(), "w");
  if (!file) throw std::runtime_error("cannot write " + arguments.result);
  std::fprintf(file,
               "{\"side\": \"%s\", \"model\": \"%s\", \"batch\": %lld, \"threads\": %d, "
               "\"channels_last\": %s, "
               "\"load_ms\": %.6g, \"output\": \"%s\", \"wall_ms\": %s, \"cpu_ms\": %s, "
               "\"peak_rss_mib\": %.6g}\n",
               side.c_str(), arguments.model.c_str(), batch, threads,
               arguments.channels_last ? "true" : "false", load_ms, arguments.output.c_str(),
               json_list(times.wall_ms).c_str(), json_list(times.cpu_ms).c_str(), peak_rss_mib());
  if (std::fclose(file) != 0) throw std::runtime_error("cannot write " + arguments.result);
}

/// A bench program's main(): `run(parse_arguments(...))`, any exception
/// reported on stderr with the program's name and exit status 1.
template <class Run>
int run_main(int argc, char** argv, Run run) {
  try {
    return run(parse_arguments(argc, argv));
  } catch (const std::exception& error) {
    std::cerr << argv[0] << ": " << error.what() << "\n";
    return 1;
  }
}

}  // namespace vision_bench
