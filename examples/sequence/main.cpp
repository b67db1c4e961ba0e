// A line recogniser trained with CTC in PyTorch, run from C++: a
// bidirectional two-layer LSTM over packed variable-length sequences and a
// linear head, PyTorch's weights loaded from safetensors without renaming
// anything, and greedy CTC decoding of its log-probabilities into digit
// strings, compared with PyTorch's.
//
//     fp_sequence checkpoint.safetensors
//
// make_checkpoint.py trains the model (seconds) and writes the checkpoint.
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace nn = fp::nn;
namespace rnn = fp::nn::utils::rnn;

constexpr std::int64_t kFeatures = 8, kHidden = 32, kLayers = 2, kClasses = 11;

/// make_checkpoint.py's Recogniser.
struct Recogniser : nn::Module {
  nn::LSTM lstm{kFeatures, kHidden, {.num_layers = kLayers, .bidirectional = true}};
  nn::Linear head{2 * kHidden, kClasses};
  FP_MODULE(lstm, head)

  /// `frames` [time, batch, features] with `lengths` [batch] (int64) real
  /// frames each: log-probabilities [time, batch, classes].
  fp::Tensor forward(fp::TensorView frames, fp::TensorView lengths) const {
    const rnn::PackedSequence packed =
        rnn::pack_padded_sequence(frames, lengths, {.enforce_sorted = false});
    const auto [output, state] = lstm(packed);
    const auto [padded, padded_lengths] =
        rnn::pad_packed_sequence(output, {.total_length = frames.size(0)});
    return fp::functional::log_softmax(head(padded), -1);
  }
};

/// The best class of each of a line's frames, repeats merged and blanks
/// (class 0) dropped; class c is the digit c - 1.
std::vector<std::string> greedy_decode(fp::TensorView log_probs, fp::TensorView lengths) {
  const fp::Tensor best = log_probs.argmax(-1);  // [time, batch]
  std::vector<std::string> lines;
  for (std::int64_t b = 0; b < best.size(1); ++b) {
    std::string digits;
    std::int64_t previous = 0;
    for (std::int64_t t = 0; t < lengths.at<std::int64_t>({b}); ++t) {
      const std::int64_t c = best.at<std::int64_t>({t, b});
      if (c != previous && c != 0) digits += static_cast<char>('0' + c - 1);
      previous = c;
    }
    lines.push_back(std::move(digits));
  }
  return lines;
}

/// The lines make_checkpoint.py wrote as one newline-separated byte string.
std::vector<std::string> split_lines(fp::TensorView bytes) {
  const fp::Tensor text = bytes.contiguous();  // held: data() is a span into it
  std::vector<std::string> lines(1);
  for (const std::uint8_t byte : text.data<std::uint8_t>()) {
    if (byte == '\n') {
      lines.emplace_back();
    } else {
      lines.back() += static_cast<char>(byte);
    }
  }
  return lines;
}

/// The entries of `file` under `prefix`, with the prefix removed.
fp::StateDict prefixed(const fp::safetensors::MappedFile& file, std::string_view prefix) {
  fp::StateDict state;
  for (const std::string& key : file.keys()) {
    if (key.starts_with(prefix)) state.insert(key.substr(prefix.size()), file.get(key).to_owned());
  }
  return state;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fp_sequence checkpoint.safetensors\n";
    return 2;
  }
  try {
    const auto file = fp::safetensors::MappedFile::open(argv[1]);
    Recogniser model;
    model.load_state_dict(prefixed(file, "model."));  // strict: every key must match

    const fp::TensorView lengths = file.get("lengths");
    const fp::Tensor log_probs = model(file.get("frames"), lengths);
    const std::vector<std::string> decoded = greedy_decode(log_probs, lengths);
    const bool same_numbers = log_probs.is_equal(file.get("expected"));
    const bool same_lines = decoded == split_lines(file.get("decoded"));
    for (const std::string& line : decoded)
      std::cout << line << ' ';
    std::cout << "\ntorch " << fp::torch_version().str() << ": " << decoded.size()
              << " lines; log-probabilities "
              << (same_numbers ? "equal PyTorch's bit for bit" : "differ from PyTorch's")
              << "; decoded lines " << (same_lines ? "equal" : "differ from") << " PyTorch's\n";
    // The demo doubles as an end-to-end test: it fails when C++ and PyTorch disagree.
    return same_numbers && same_lines ? 0 : 1;
  } catch (const fp::Error& error) {
    std::cerr << "fp_sequence: " << error.what() << '\n';
    return 1;
  }
}
