#include "mix.h"

#include <flash_powder/aoti/aoti.h>
#include <flash_powder/image/image.h>
#include <flash_powder/library/library.h>
#include <flash_powder/safetensors/safetensors.h>

#include <chrono>
#include <functional>
#include <utility>

#include "unet.h"

namespace soak {

std::string_view name(Part part) {
  switch (part) {
    case Part::Bert:
      return "bert";
    case Part::Unet:
      return "unet";
    case Part::Image:
      return "image";
    case Part::Safetensors:
      return "safetensors";
    case Part::Aoti:
      return "aoti";
    case Part::CustomOp:
      return "custom_op";
    case Part::Errors:
      return "errors";
  }
  return "?";
}

void Counts::add(const Counts& other) {
  rounds += other.rounds;
  cpu_seconds += other.cpu_seconds;
  for (std::size_t i = 0; i < kParts; ++i) {
    parts[i] += other.parts[i];
    seconds[i] += other.seconds[i];
  }
  for (const auto& [code, count] : other.caught)
    caught[code] += count;
  unexpected += other.unexpected;
  for (const std::string& failure : other.first_failures)
    if (first_failures.size() < 10) first_failures.push_back(failure);
}

void Counts::fail(std::string what) {
  ++unexpected;
  if (first_failures.size() < 10) first_failures.push_back(std::move(what));
}

// Named, not anonymous: Mix::State holds these.
namespace parts {

namespace nn = fp::nn;
using fp::Tensor;
using fp::TensorView;

// --- the BERT-style encoder -------------------------------------------------------------

constexpr std::int64_t kVocab = 1000;
constexpr std::int64_t kHidden = 64;
constexpr std::int64_t kHeads = 4;
constexpr std::int64_t kInner = 256;
constexpr std::int64_t kLength = 32;

/// Self-attention and a GELU MLP, each with a residual and a LayerNorm (post-norm, as BERT).
struct EncoderBlock : nn::Module {
  EncoderBlock()
      : attention(kHidden, kHeads, {.batch_first = true}),
        attention_norm(kHidden),
        up(kHidden, kInner),
        down(kInner, kHidden),
        output_norm(kHidden) {}
  nn::MultiheadAttention attention;
  nn::LayerNorm attention_norm;
  nn::Linear up;
  nn::GELU gelu;
  nn::Linear down;
  nn::LayerNorm output_norm;
  FP_MODULE(attention, attention_norm, up, gelu, down, output_norm)

  /// `padding`: [batch, length] bool, true where a position is padding.
  Tensor forward(TensorView x, TensorView padding) const {
    auto [attended, unused] =
        attention.forward(x, x, x, {.key_padding_mask = padding, .need_weights = false});
    const Tensor h = attention_norm(x + attended);
    return output_norm(h + down(gelu(up(h))));
  }
};

/// Token and position embeddings, two blocks, mean pooling over the real
/// tokens, and a two-class head: a sentence classifier.
struct Encoder : nn::Module {
  nn::Embedding tokens{kVocab, kHidden};
  nn::Embedding positions{kLength, kHidden};
  nn::LayerNorm embedding_norm{kHidden};
  EncoderBlock block0, block1;
  nn::Linear classifier{kHidden, 2};
  FP_MODULE(tokens, positions, embedding_norm, block0, block1, classifier)

  /// `ids`: [batch, length] int64, 0 is padding. Returns [batch, 2] probabilities.
  Tensor forward(TensorView ids) const override {
    const Tensor padding = ids.eq(0);
    Tensor h = embedding_norm(tokens(ids) + positions(fp::arange(ids.size(1))));
    h = block0(h, padding);
    h = block1(h, padding);
    const Tensor keep = (~padding).to(fp::DType::F32).reshape({ids.size(0), -1, 1});
    const Tensor pooled = (h * keep).sum({1}) / keep.sum({1});
    return fp::functional::softmax(classifier(pooled), -1);
  }
};

// --- the custom op ---------------------------------------------------------------------

Tensor scale_shift(TensorView x, double scale, TensorView shift) {
  return x * scale + shift;
}

std::vector<fp::library::Library> register_custom_op() {
  std::vector<fp::library::Library> libraries;
  libraries.push_back(fp::library::Library::define("fp_soak"));
  libraries.back().def("scale_shift(Tensor x, float scale, Tensor shift) -> Tensor");
  libraries.push_back(fp::library::Library::implement("fp_soak", fp::library::DispatchKey::CPU));
  libraries.back().impl<scale_shift>("scale_shift");
  return libraries;
}

/// A [3, H, W] uint8 picture with smooth regions and edges, so that the
/// codecs have something like a photo to compress.
Tensor picture(std::int64_t height, std::int64_t width, fp::Generator& generator) {
  const Tensor rows = fp::linspace(0.0, 1.0, height).reshape({1, height, 1});
  const Tensor columns = fp::linspace(0.0, 1.0, width).reshape({1, 1, width});
  const Tensor channel = fp::tensor({0.2f, 0.5f, 0.9f}).reshape({3, 1, 1});
  const Tensor noise = fp::rand({3, height, width}, generator) * 0.15;
  const Tensor smooth = ((rows * 0.7 + columns * 0.3 + channel).sin().abs() * 0.85 + noise);
  return (smooth.clamp(0.0, 1.0) * 255.0).to(fp::DType::U8);
}

}  // namespace parts

using namespace parts;

/// Seeds the generator layers draw their initial values from, before the
/// models below are made: fixed random weights, the same in every run.
struct SeededLayers {
  explicit SeededLayers(std::uint64_t seed) { fp::nn::manual_seed(seed); }
};

struct Mix::State {
  SeededLayers seeded{20250601};
  // Shared models: forward() is const and safe from any thread.
  Encoder encoder;
  unet::UNet net;
  std::optional<fp::aoti::Package> package;
  std::vector<fp::library::Library> custom_op;

  // Inputs.
  Tensor ids;
  Tensor unet_picture;  // [3, 30, 30] uint8: padded to 32 x 32 for the U-Net
  Tensor jpeg, png;     // encoded photo, [bytes] uint8
  std::filesystem::path weights;
  std::filesystem::path truncated_weights;
  Tensor aoti_x, aoti_y;
  Tensor custom_x, custom_shift;

  // Results computed once at set-up; every request must give the same bits.
  Tensor bert_expected;
  Tensor unet_expected;  // the PNG of the overlay
  Tensor image_resized, image_png;
  Tensor weights_sum;
  std::vector<Tensor> aoti_expected;
  Tensor custom_expected;

  // The bad inputs of Errors: each must throw fp::Error with the code it threw at set-up.
  std::vector<std::pair<std::string, std::function<void()>>> bad_inputs;
  std::vector<fp::ErrorCode> bad_input_codes;

  Tensor bert() const { return encoder(ids); }

  Tensor unet() const {
    // Reflect-pad to a multiple of 4 (two pooling levels), crop the logits back.
    const Tensor input = fp::functional::pad(fp::image::floatify(unet_picture).unsqueeze(0),
                                             {1, 1, 1, 1}, {.mode = "reflect"});
    const Tensor logits = net(input).i(0, fp::all, fp::slice(1, 31), fp::slice(1, 31)).to_owned();
    const Tensor probabilities = fp::functional::softmax(logits, 0);
    const Tensor classes = probabilities.argmax(0);
    const Tensor argmax_masks = fp::stack({classes.eq(1), classes.eq(2), classes.eq(3)});
    const Tensor masks = argmax_masks & probabilities.i(fp::slice(1, fp::end)).gt(0.4);
    const Tensor overlay = fp::image::draw_segmentation_masks(unet_picture, masks, {.alpha = 0.6});
    return fp::image::encode_png(overlay);
  }

  std::pair<Tensor, Tensor> image() const {
    const Tensor from_jpeg = fp::image::decode_jpeg(jpeg);
    const Tensor from_png = fp::image::decode_png(png);
    const Tensor small = fp::image::resize(from_jpeg, 32, 32);
    const Tensor encoded_jpeg = fp::image::encode_jpeg(small, {.quality = 90});
    return {fp::image::decode_jpeg(encoded_jpeg),
            fp::image::encode_png(from_png, {.compression_level = 1})};
  }

  Tensor safetensors() const {
    // Owned, mapped and copied: three ways to read the same weights.
    const fp::StateDict owned = fp::safetensors::load(weights);
    const auto mapped = fp::safetensors::MappedFile::open(weights);
    const auto copied =
        fp::safetensors::MappedFile::open(weights, {.access = fp::safetensors::FileAccess::Copy});
    Tensor total = fp::zeros({3});
    for (const std::string& key : mapped.keys()) {
      const Tensor sums =
          fp::stack({owned.at(key).sum(fp::DType::F64), mapped.get(key).sum(fp::DType::F64),
                     copied.get(key).sum(fp::DType::F64)});
      total = total + sums;
    }
    return total;
  }

  std::vector<Tensor> aoti() const { return (*package)(aoti_x, aoti_y); }

  Tensor custom() const {
    return fp::dispatch<Tensor>("fp_soak::scale_shift", "", custom_x, 0.5, custom_shift);
  }
};

Mix::Mix(const MixOptions& options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  fp::Generator generator(7);

  // ids: two sentences, the second padded.
  s.ids = fp::randint(1, kVocab, {2, kLength}, generator, fp::DType::I64);
  s.ids.i_mut(1, fp::slice(20, fp::end)).fill_(0);
  s.unet_picture = picture(30, 30, generator);
  const Tensor photo = picture(96, 128, generator);
  s.jpeg = fp::image::encode_jpeg(photo, {.quality = 85});
  s.png = fp::image::encode_png(photo);

  std::filesystem::create_directories(options.work_dir);
  s.weights = options.work_dir / "encoder.safetensors";
  fp::safetensors::save(s.encoder.state_dict().entries(), s.weights);
  s.truncated_weights = options.work_dir / "truncated.safetensors";
  {
    const auto bytes = fp::image::read_file(s.weights);
    fp::image::write_file(s.truncated_weights, bytes.i(fp::slice(0, bytes.numel() / 2)));
  }

  if (!options.aoti_package.empty()) {
    s.package.emplace(fp::aoti::Package::open(
        options.aoti_package, {.num_runners = std::max<std::size_t>(options.threads, 1)}));
    s.aoti_x = fp::randn({4, 4}, generator);
    s.aoti_y = fp::randn({4, 3}, generator);
  }
  s.custom_op = register_custom_op();
  s.custom_x = fp::randn({64}, generator);
  s.custom_shift = fp::randn({64}, generator);

  s.bert_expected = s.bert();
  s.unet_expected = s.unet();
  std::tie(s.image_resized, s.image_png) = s.image();
  s.weights_sum = s.safetensors();
  if (s.package) s.aoti_expected = s.aoti();
  s.custom_expected = s.custom();

  const State* self = &s;
  s.bad_inputs = {
      {"matmul of [2, 3] and [4, 5]",
       [] {
         (void)fp::matmul(fp::ones({2, 3}), fp::ones({4, 5}));
       }},
      {"a token id past the vocabulary",
       [self] {
         Tensor ids = self->ids;
         ids.i_mut(0, 0).fill_(kVocab + 5);
         (void)self->encoder(ids);
       }},
      {"decode_png of bytes that are no PNG",
       [] { (void)fp::image::decode_png(fp::full({64}, 7, fp::DType::U8)); }},
      {"MappedFile::open of a missing file",
       [self] {
         (void)fp::safetensors::MappedFile::open(self->weights.parent_path() /
                                                 "missing.safetensors");
       }},
      {"load of a truncated file",
       [self] { (void)fp::safetensors::load(self->truncated_weights); }},
      {"an op that does not exist",
       [self] { (void)fp::dispatch<Tensor>("aten::no_such_op", "", self->custom_x); }},
      {"the custom op on a wrong shape",
       [self] {
         (void)fp::dispatch<Tensor>("fp_soak::scale_shift", "", self->custom_x, 0.5, fp::ones({3}));
       }},
  };
  if (s.package) {
    s.bad_inputs.emplace_back("the AOTI package on a wrong shape", [self] {
      (void)(*self->package)(fp::ones({4, 5}), self->aoti_y);
    });
  }
  for (const auto& [what, call] : s.bad_inputs) {
    try {
      call();
    } catch (const fp::Error& error) {
      s.bad_input_codes.push_back(error.code());
      continue;
    }
    throw fp::Error(fp::ErrorCode::BadArgument, "soak set-up: " + what + " did not fail");
  }
}

Mix::~Mix() = default;

bool Mix::has_aoti() const {
  return state_->package.has_value();
}

void Mix::run(Part part, Counts& counts) const {
  const State& s = *state_;
  const auto start = std::chrono::steady_clock::now();
  const auto check = [&](bool same, std::string_view what) {
    if (!same)
      counts.fail(std::string(name(part)) + ": " + std::string(what) + " differs from set-up's");
  };
  try {
    switch (part) {
      case Part::Bert:
        check(s.bert().is_equal(s.bert_expected), "the probabilities");
        break;
      case Part::Unet:
        check(s.unet().is_equal(s.unet_expected), "the overlay's PNG");
        break;
      case Part::Image: {
        const auto [resized, png] = s.image();
        check(resized.is_equal(s.image_resized), "the resized JPEG");
        check(png.is_equal(s.image_png), "the re-encoded PNG");
        break;
      }
      case Part::Safetensors:
        check(s.safetensors().is_equal(s.weights_sum), "the sums");
        break;
      case Part::Aoti: {
        if (!s.package) return;  // not counted: the report says the part was skipped
        const std::vector<Tensor> out = s.aoti();
        bool same = out.size() == s.aoti_expected.size();
        for (std::size_t i = 0; same && i < out.size(); ++i)
          same = out[i].is_equal(s.aoti_expected[i]);
        check(same, "the outputs");
        break;
      }
      case Part::CustomOp:
        check(s.custom().is_equal(s.custom_expected), "the result");
        break;
      case Part::Errors: {
        // One bad input per call: an error through libtorch costs milliseconds
        // (c10::Error formats its backtrace), so all of them every round
        // would outweigh the rest of the mix.
        const std::size_t i = counts.next_bad_input++ % s.bad_inputs.size();
        try {
          s.bad_inputs[i].second();
          counts.fail("errors: " + s.bad_inputs[i].first + " did not fail");
        } catch (const fp::Error& error) {
          ++counts.caught[error.code()];
          if (error.code() != s.bad_input_codes[i]) {
            counts.fail("errors: " + s.bad_inputs[i].first +
                        " failed with another code: " + error.what());
          }
        }
        break;
      }
    }
  } catch (const fp::Error& error) {
    counts.fail(std::string(name(part)) + ": unexpected fp::Error: " + error.what());
  } catch (const std::exception& error) {
    counts.fail(std::string(name(part)) + ": unexpected exception: " + error.what());
  }
  ++counts.parts[static_cast<std::size_t>(part)];
  counts.seconds[static_cast<std::size_t>(part)] +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace soak
