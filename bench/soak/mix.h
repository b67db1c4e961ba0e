// The soak's request mix: what a service built on flash_powder does per
// request, each part checked against the result computed once at set-up.
#pragma once

#include <flash_powder/flash_powder.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace soak {

/// The parts of one request, in the order a round runs them.
enum class Part : std::uint8_t {
  Bert,         ///< a BERT-style encoder forward (embedding, 2 blocks of MHA + GELU MLP)
  Unet,         ///< the U-Net demo's forward, softmax/argmax masks, overlay, PNG encode
  Image,        ///< JPEG and PNG decode, resize, JPEG and PNG encode
  Safetensors,  ///< load (owned), MappedFile (mapped and copied) into a module
  Aoti,         ///< an AOTInductor package call
  CustomOp,     ///< a custom op registered with fp::library, called through fp::dispatch
  Errors,       ///< one bad input (the next of a list of every kind), its fp::Error caught
};
inline constexpr std::size_t kParts = 7;
std::string_view name(Part part);

/// What one thread counted.
struct Counts {
  std::int64_t rounds = 0;
  std::array<std::int64_t, kParts> parts{};
  /// Seconds spent in each part.
  std::array<double, kParts> seconds{};
  /// CPU seconds the request threads used (their own, not other processes').
  double cpu_seconds = 0;
  /// Caught fp::Errors of the Errors part, by fp::ErrorCode (expected).
  std::map<fp::ErrorCode, std::int64_t> caught;
  /// Failures: an fp::Error where none was expected, an error of another
  /// code than expected, a result that differs from the set-up's.
  std::int64_t unexpected = 0;
  std::vector<std::string> first_failures;  // the first few, for the report
  /// Which bad input the thread's next Errors part tries.
  std::size_t next_bad_input = 0;

  void add(const Counts& other);
  void fail(std::string what);
};

/// Where the mix finds and writes its files.
struct MixOptions {
  std::filesystem::path work_dir;
  /// An AOTInductor package taking (x [B, 4], y [B, 3]) (tests/aoti's mlp.pt2);
  /// empty: the Aoti part is skipped and the report says so.
  std::filesystem::path aoti_package;
  /// Concurrent callers of the package (its num_runners).
  std::size_t threads = 1;
};

/// The models, files and expected results, shared read-only by all threads.
class Mix {
 public:
  explicit Mix(const MixOptions& options);
  ~Mix();
  Mix(const Mix&) = delete;
  Mix& operator=(const Mix&) = delete;

  /// Runs one part of a request, counting into `counts`.
  void run(Part part, Counts& counts) const;
  bool has_aoti() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace soak
