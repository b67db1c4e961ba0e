// A Transformer encoder classifier trained in PyTorch, run from C++: build the
// model, load PyTorch's weights from safetensors without renaming anything,
// classify a padded batch of sequences, and compare with PyTorch.
//
//     fp_transformer checkpoint.safetensors
//
// make_checkpoint.py trains the model (seconds) and writes the checkpoint.
// Under torch.no_grad() in eval mode PyTorch runs this encoder on nested
// tensors through its fused kernels; fp::nn::TransformerEncoder does the same,
// so the logits are the same bits.
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <cstdint>
#include <iostream>

namespace nn = fp::nn;

constexpr std::int64_t kVocab = 16, kLength = 12, kDim = 32, kHeads = 4, kFeedforward = 64,
                       kLayers = 2;

/// make_checkpoint.py's Classifier: token and position embeddings, a
/// Transformer encoder with a key padding mask, mean pooling over the real
/// tokens and a linear head.
struct Classifier : nn::Module {
  nn::Embedding tokens{kVocab, kDim, {.padding_idx = 0}};
  nn::Embedding positions{kLength, kDim};
  nn::TransformerEncoder encoder{
      nn::TransformerEncoderLayer(
          kDim, kHeads, {.dim_feedforward = kFeedforward, .dropout = 0.0, .batch_first = true}),
      kLayers};
  nn::Linear head{kDim, 2};
  FP_MODULE(tokens, positions, encoder, head)

  /// `ids`: [batch, length] int64, 0 is padding. Returns [batch, 2] logits.
  fp::Tensor forward(fp::TensorView ids) const override {
    const fp::Tensor padding = ids.eq(0);
    const fp::Tensor x = tokens(ids) + positions(fp::arange(ids.size(1)));
    const fp::Tensor h = encoder.forward(x, {.src_key_padding_mask = padding});
    const fp::Tensor keep((~padding).to(fp::DType::F32).unsqueeze(-1));
    const fp::Tensor pooled = (h * keep).sum({1}) / keep.sum({1});
    return head(pooled);
  }
};

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
    std::cerr << "usage: fp_transformer checkpoint.safetensors\n";
    return 2;
  }
  try {
    const auto file = fp::safetensors::MappedFile::open(argv[1]);
    Classifier model;
    model.load_state_dict(prefixed(file, "model."));  // strict: every key must match

    const fp::Tensor logits = model(file.get("ids"));
    const fp::Tensor predicted = logits.argmax(1);
    const fp::TensorView labels = file.get("labels");
    const double accuracy = predicted.eq(labels).to(fp::DType::F64).mean().item<double>();
    const bool same = logits.is_equal(file.get("expected"));
    std::cout << "torch " << fp::torch_version().str() << ": accuracy " << accuracy << " on "
              << labels.numel() << " test sequences; logits "
              << (same ? "equal PyTorch's bit for bit" : "differ from PyTorch's") << '\n';
    // The demo doubles as an end-to-end test: it fails when C++ and PyTorch disagree.
    return same ? 0 : 1;
  } catch (const fp::Error& error) {
    std::cerr << "fp_transformer: " << error.what() << '\n';
    return 1;
  }
}
