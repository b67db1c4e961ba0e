// The soak: N request threads for T seconds running what a service built on
// flash_powder runs (bench/soak/mix.h), checking every result, and watching
// the process: throughput per thread count, resident memory (VmRSS) and the
// heap after warm-up and at the end, live libtorch handles, errors by code.
// Exits 1 when resident memory grew by more than the bound after warm-up, a
// handle is alive at exit that was not at start, or anything failed.
//
//   fp_soak [--threads 1,2] [--seconds 60] [--warmup 10] [--phase-seconds S]
//           [--rss-bound-mb 1] [--intra-op-threads 1] [--aoti PACKAGE.pt2]
//           [--parts bert,unet,image,safetensors,aoti,custom_op,errors]
//           [--work-dir DIR] [--default-malloc]
//
// After --warmup seconds with the largest thread count, the measured
// --seconds are split into phases of --phase-seconds (default: one phase per
// thread count), which cycle through the --threads counts: alternating
// phases see the same background load on a shared machine. Between phases
// every request thread is idle, and memory and handles are read then: the
// figures do not depend on which requests happened to be in flight.
// bench/README.md, "Soak", says how to run the long version and why the bound.
#include <flash_powder/flash_powder.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <time.h>
#include <unistd.h>

#include "mix.h"
#include "support/process_stats.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Arguments {
  std::vector<int> threads = {1, 2};
  double seconds = 60;
  double warmup = 10;
  std::optional<double> phase_seconds;
  double rss_bound_mb = 1.0;
  int intra_op_threads = 1;
  std::filesystem::path aoti;
  std::vector<soak::Part> parts;
  std::filesystem::path work_dir;
  bool default_malloc = false;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "fp_soak: %s\nusage: fp_soak [--threads 1,2] [--seconds 60] [--warmup 10] "
               "[--phase-seconds S] [--rss-bound-mb 1] [--intra-op-threads 1] [--aoti PACKAGE.pt2] "
               "[--parts bert,unet,image,safetensors,aoti,custom_op,errors] [--work-dir DIR] "
               "[--default-malloc]\n",
               problem.c_str());
  std::exit(2);
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

double number(const std::string& flag, const char* text) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || value < 0) usage(flag + " takes a non-negative number");
  return value;
}

Arguments parse(int argc, char** argv) {
  Arguments arguments;
  const std::vector<soak::Part> all = {
      soak::Part::Bert, soak::Part::Unet,     soak::Part::Image, soak::Part::Safetensors,
      soak::Part::Aoti, soak::Part::CustomOp, soak::Part::Errors};
  arguments.parts = all;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--default-malloc") {
      arguments.default_malloc = true;
      continue;
    }
    if (i + 1 >= argc) usage(flag == "--help" || flag == "-h" ? "" : flag + " needs a value");
    const char* value = argv[++i];
    if (flag == "--threads") {
      arguments.threads.clear();
      for (const std::string& item : split(value)) {
        const int count = static_cast<int>(number(flag, item.c_str()));
        if (count < 1) usage("--threads takes counts of 1 or more");
        arguments.threads.push_back(count);
      }
      if (arguments.threads.empty()) usage("--threads needs at least one count");
    } else if (flag == "--seconds") {
      arguments.seconds = number(flag, value);
    } else if (flag == "--warmup") {
      arguments.warmup = number(flag, value);
    } else if (flag == "--phase-seconds") {
      arguments.phase_seconds = number(flag, value);
      if (*arguments.phase_seconds <= 0) usage("--phase-seconds must be positive");
    } else if (flag == "--rss-bound-mb") {
      arguments.rss_bound_mb = number(flag, value);
    } else if (flag == "--intra-op-threads") {
      arguments.intra_op_threads = static_cast<int>(number(flag, value));
      if (arguments.intra_op_threads < 1) usage("--intra-op-threads must be 1 or more");
    } else if (flag == "--aoti") {
      arguments.aoti = value;
    } else if (flag == "--work-dir") {
      arguments.work_dir = value;
    } else if (flag == "--parts") {
      arguments.parts.clear();
      for (const std::string& item : split(value)) {
        const auto found = std::find_if(all.begin(), all.end(),
                                        [&](soak::Part part) { return soak::name(part) == item; });
        if (found == all.end()) usage("unknown part " + item);
        arguments.parts.push_back(*found);
      }
      if (arguments.parts.empty()) usage("--parts needs at least one part");
    } else {
      usage("unknown flag " + flag);
    }
  }
  return arguments;
}

double cpu_seconds(clockid_t clock) {
  timespec time{};
  ::clock_gettime(clock, &time);
  return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_nsec) * 1e-9;
}

/// CPU seconds all processes have used on this machine (/proc/stat: all but
/// idle and iowait), to tell a thread that waited for a lock from one that
/// waited for a core other programs held.
double machine_busy_seconds() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  return (user + nice + system + irq + softirq + steal) /
         static_cast<double>(::sysconf(_SC_CLK_TCK));
}

/// What the process looks like at a quiet moment (no request in flight).
struct Snapshot {
  std::int64_t resident = 0;
  std::optional<std::int64_t> heap;
  std::optional<std::int64_t> handles;
};

Snapshot snapshot() {
  return {fp_test::resident_bytes(), fp_test::heap_in_use_bytes(), fp_test::live_handles()};
}

double megabytes(std::int64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

std::string handles_text(const std::optional<std::int64_t>& handles) {
  return handles ? std::to_string(*handles) : std::string("n/a");
}

/// The request threads: started once, each told per phase whether to work.
class Workers {
 public:
  Workers(const soak::Mix& mix, const Arguments& arguments, int count)
      : mix_(mix), arguments_(arguments), counts_(static_cast<std::size_t>(count)) {
    for (int index = 0; index < count; ++index)
      threads_.emplace_back([this, index] { loop(index); });
  }
  ~Workers() {
    {
      const std::lock_guard lock(mutex_);
      quit_ = true;
    }
    changed_.notify_all();
    for (std::thread& thread : threads_)
      thread.join();
  }

  /// What a phase did.
  struct Phase {
    soak::Counts counts;
    double seconds = 0;       ///< from the start until the last thread finished its round
    double process_cpu = 0;   ///< CPU seconds of the whole process
    double machine_busy = 0;  ///< CPU seconds of every process on the machine
  };

  /// Runs `active` threads for `seconds`.
  Phase run(int active, double seconds) {
    const auto start = Clock::now();
    const double process_start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    const double machine_start = machine_busy_seconds();
    {
      const std::lock_guard lock(mutex_);
      for (auto& counts : counts_)
        counts = soak::Counts{};
      active_ = active;
      running_ = active;
      stop_.store(false);
      ++phase_;
    }
    changed_.notify_all();
    std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(seconds)));
    stop_.store(true);
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return running_ == 0; });
    Phase phase;
    for (int index = 0; index < active; ++index)
      phase.counts.add(counts_[static_cast<std::size_t>(index)]);
    phase.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    phase.process_cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - process_start;
    phase.machine_busy = machine_busy_seconds() - machine_start;
    return phase;
  }

 private:
  void loop(int index) {
    // One intra-op thread per request thread (OpenMP's count is per thread).
    fp::set_num_threads(arguments_.intra_op_threads);
    std::uint64_t seen = 0;
    for (;;) {
      int active = 0;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return quit_ || phase_ != seen; });
        if (quit_) return;
        seen = phase_;
        active = active_;
      }
      if (index < active) {
        soak::Counts& counts = counts_[static_cast<std::size_t>(index)];
        const auto& parts = arguments_.parts;
        // Threads start the round at different parts, so they overlap in every kind of work.
        std::size_t next = static_cast<std::size_t>(index) * 3 % parts.size();
        const double cpu_start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
        while (!stop_.load()) {
          for (std::size_t i = 0; i < parts.size(); ++i)
            mix_.run(parts[(next + i) % parts.size()], counts);
          next = (next + 1) % parts.size();
          ++counts.rounds;
        }
        counts.cpu_seconds += cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
        const std::lock_guard lock(mutex_);
        if (--running_ == 0) finished_.notify_all();
      }
    }
  }

  const soak::Mix& mix_;
  const Arguments& arguments_;
  std::vector<soak::Counts> counts_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable changed_, finished_;
  std::uint64_t phase_ = 0;
  int active_ = 0;
  int running_ = 0;
  bool quit_ = false;
  std::atomic<bool> stop_{false};
};

/// The phases of one thread count, summed.
struct PerThreadCount {
  soak::Counts counts;
  double seconds = 0;
  double process_cpu = 0;
  double machine_busy = 0;
};

int run(const Arguments& arguments) {
  const bool kept = !arguments.default_malloc && fp::keep_freed_memory();
  fp::set_num_threads(arguments.intra_op_threads);
  const Snapshot at_start = snapshot();
  const int most = *std::max_element(arguments.threads.begin(), arguments.threads.end());
  const bool wants_aoti = std::find(arguments.parts.begin(), arguments.parts.end(),
                                    soak::Part::Aoti) != arguments.parts.end();

  std::filesystem::path work_dir = arguments.work_dir;
  const bool own_work_dir = work_dir.empty();
  if (own_work_dir)
    work_dir = std::filesystem::temp_directory_path() / ("fp_soak_" + std::to_string(::getpid()));

  std::printf(
      "flash_powder soak: torch %s, request threads %s (max %d), %d intra-op thread(s) "
      "each, malloc %s\n",
      fp::torch_version().str().c_str(),
      [&] {
        std::string text;
        for (const int count : arguments.threads)
          text += (text.empty() ? "" : ",") + std::to_string(count);
        return text;
      }()
          .c_str(),
      most, arguments.intra_op_threads,
      kept ? "keeping freed memory (fp::keep_freed_memory)" : "glibc defaults");
  std::string part_names;
  for (const soak::Part part : arguments.parts)
    part_names += (part_names.empty() ? "" : " ") + std::string(soak::name(part));
  std::printf("parts per round: %s\n", part_names.c_str());

  bool failed = false;
  std::map<int, PerThreadCount> by_threads;
  soak::Counts everything;
  std::int64_t measured_rounds = 0;  // after the warm-up
  Snapshot after_warmup, at_end, after_setup;
  std::vector<std::optional<std::int64_t>> phase_handles;
  {
    const auto setup_start = Clock::now();
    const soak::Mix mix({.work_dir = work_dir,
                         .aoti_package = wants_aoti ? arguments.aoti : std::filesystem::path(),
                         .threads = static_cast<std::size_t>(most)});
    after_setup = snapshot();
    std::printf("set-up: %.1f s; live handles %s before, %s after (the models and inputs)\n",
                std::chrono::duration<double>(Clock::now() - setup_start).count(),
                handles_text(at_start.handles).c_str(), handles_text(after_setup.handles).c_str());
    if (wants_aoti && !mix.has_aoti()) {
      std::printf("aoti: no package given (--aoti PACKAGE.pt2): that part is skipped\n");
    }
    Workers workers(mix, arguments, most);
    const Workers::Phase warm = workers.run(most, arguments.warmup);
    everything.add(warm.counts);
    after_warmup = snapshot();
    std::printf("warm-up: %.1f s, %d threads, %lld rounds; RSS %.2f MB, heap %.2f MB, handles %s\n",
                warm.seconds, most, static_cast<long long>(warm.counts.rounds),
                megabytes(after_warmup.resident), megabytes(after_warmup.heap.value_or(0)),
                handles_text(after_warmup.handles).c_str());

    const double phase_length =
        arguments.phase_seconds.value_or(arguments.seconds / arguments.threads.size());
    const int phases = std::max(1, static_cast<int>(arguments.seconds / phase_length + 0.5));
    std::printf("\n%5s %7s %8s %7s %9s %7s %7s %10s %10s %8s\n", "phase", "threads", "seconds",
                "rounds", "rounds/s", "cores", "others", "RSS MB", "heap MB", "handles");
    for (int phase = 0; phase < phases; ++phase) {
      const int threads =
          arguments.threads[static_cast<std::size_t>(phase) % arguments.threads.size()];
      const Workers::Phase done = workers.run(threads, phase_length);
      const Snapshot now = snapshot();
      phase_handles.push_back(now.handles);
      PerThreadCount& totals = by_threads[threads];
      totals.counts.add(done.counts);
      totals.seconds += done.seconds;
      totals.process_cpu += done.process_cpu;
      totals.machine_busy += done.machine_busy;
      everything.add(done.counts);
      measured_rounds += done.counts.rounds;
      std::printf("%5d %7d %8.1f %7lld %9.2f %7.2f %7.2f %10.2f %10.2f %8s\n", phase + 1, threads,
                  done.seconds, static_cast<long long>(done.counts.rounds),
                  done.counts.rounds / done.seconds, done.process_cpu / done.seconds,
                  std::max(0.0, done.machine_busy - done.process_cpu) / done.seconds,
                  megabytes(now.resident), megabytes(now.heap.value_or(0)),
                  handles_text(now.handles).c_str());
      std::fflush(stdout);
    }
    at_end = snapshot();
  }
  if (own_work_dir) std::filesystem::remove_all(work_dir);
  const Snapshot at_exit = snapshot();

  // --- the report ---
  std::printf(
      "\nthroughput (one round = one of each part; cores: CPU the soak used, others: CPU "
      "other processes used, of %ld):\n",
      ::sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("  %7s %9s %7s %7s %18s\n", "threads", "rounds/s", "cores", "others",
              "rounds per CPU-s");
  std::optional<double> one_thread, one_thread_per_cpu;
  for (const auto& [threads, totals] : by_threads) {
    const double rate = totals.counts.rounds / totals.seconds;
    const double per_cpu = totals.counts.rounds / std::max(1e-9, totals.counts.cpu_seconds);
    std::printf("  %7d %9.2f %7.2f %7.2f %18.2f\n", threads, rate,
                totals.process_cpu / totals.seconds,
                std::max(0.0, totals.machine_busy - totals.process_cpu) / totals.seconds, per_cpu);
    if (threads == 1) {
      one_thread = rate;
      one_thread_per_cpu = per_cpu;
    }
  }
  for (const auto& [threads, totals] : by_threads) {
    if (threads == 1 || !one_thread) continue;
    const double rate = totals.counts.rounds / totals.seconds;
    const double per_cpu = totals.counts.rounds / std::max(1e-9, totals.counts.cpu_seconds);
    std::printf(
        "  %d threads: %.2fx one thread's rounds/s; %.2fx its rounds per CPU-second "
        "(1.00: the requests do not slow each other down)\n",
        threads, rate / *one_thread, per_cpu / *one_thread_per_cpu);
  }
  std::printf("milliseconds per part (mean over all calls), by thread count:\n  %-12s", "part");
  for (const auto& [threads, totals] : by_threads)
    std::printf(" %9d", threads);
  std::printf("\n");
  for (const soak::Part part : arguments.parts) {
    std::printf("  %-12s", std::string(soak::name(part)).c_str());
    for (const auto& [threads, totals] : by_threads) {
      const auto i = static_cast<std::size_t>(part);
      const std::int64_t calls = totals.counts.parts[i];
      std::printf(" %9.3f", calls > 0 ? 1000.0 * totals.counts.seconds[i] / calls : 0.0);
    }
    std::printf("\n");
  }

  const std::int64_t growth = at_end.resident - after_warmup.resident;
  const auto bound = static_cast<std::int64_t>(arguments.rss_bound_mb * 1024 * 1024);
  const bool rss_ok = growth <= bound;
  std::printf(
      "RSS: %.2f MB after warm-up, %.2f MB at the end: growth %+.3f MB (bound %.3f MB) %s\n",
      megabytes(after_warmup.resident), megabytes(at_end.resident), megabytes(growth),
      arguments.rss_bound_mb, rss_ok ? "OK" : "EXCEEDED");
  if (after_warmup.heap && at_end.heap) {
    std::printf(
        "heap in use: %.2f MB after warm-up, %.2f MB at the end: growth %+.1f kB "
        "(%.1f bytes per round)\n",
        megabytes(*after_warmup.heap), megabytes(*at_end.heap),
        (*at_end.heap - *after_warmup.heap) / 1024.0,
        static_cast<double>(*at_end.heap - *after_warmup.heap) /
            std::max<std::int64_t>(1, measured_rounds));
  }
  failed = failed || !rss_ok;

  if (at_start.handles) {
    bool phases_ok = true;
    for (const auto& handles : phase_handles)
      phases_ok = phases_ok && handles == after_setup.handles;
    const bool exit_ok = at_exit.handles == at_start.handles;
    std::printf("live handles: %s at start, %s after set-up, %s after every phase, %s at exit %s\n",
                handles_text(at_start.handles).c_str(), handles_text(after_setup.handles).c_str(),
                phases_ok ? "the same" : "NOT the same", handles_text(at_exit.handles).c_str(),
                exit_ok && phases_ok ? "OK" : "LEAKED");
    failed = failed || !exit_ok || !phases_ok;
  } else {
    std::printf("live handles: not counted in this build (FP_HANDLE_COUNT off)\n");
  }

  std::printf("errors caught (expected, from the errors part):");
  for (const auto& [code, count] : everything.caught)
    std::printf(" %s %lld", std::string(fp::name(code)).c_str(), static_cast<long long>(count));
  std::printf("\nrounds: %lld in all; unexpected errors or wrong results: %lld\n",
              static_cast<long long>(everything.rounds),
              static_cast<long long>(everything.unexpected));
  for (const std::string& failure : everything.first_failures)
    std::printf("  %s\n", failure.c_str());
  failed = failed || everything.unexpected > 0;
  std::printf("soak: %s\n", failed ? "FAILED" : "passed");
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Arguments arguments = parse(argc, argv);
  try {
    return run(arguments);
  } catch (const fp::Error& error) {
    std::fprintf(stderr, "fp_soak: %s\n", error.what());
    return 1;
  }
}
