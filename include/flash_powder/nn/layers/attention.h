// torch.nn.MultiheadAttention.
// https://pytorch.org/docs/stable/generated/torch.nn.MultiheadAttention.html
//
//     fp::nn::MultiheadAttention attention(64, 8, {.batch_first = true});
//     auto [output, weights] = attention(x, x, x);                    // self-attention
//     auto [output2, none] = attention.forward(q, k, v, {.need_weights = false});
//
// Like Python under torch.no_grad() in eval mode, it takes PyTorch's fused
// fast path (aten::_native_multi_head_attention) exactly where PyTorch's
// conditions hold (batched self-attention with the same tensor as query,
// key and value, batch_first, an even number of heads, packed projections
// with biases, no bias_k/bias_v/add_zero_attn, bool masks or none, and
// fp::nn::backends::mha::get_fastpath_enabled()), and otherwise computes
// F.multi_head_attention_forward step by step: the same bits as Python
// either way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/module.h"

namespace fp::nn::backends::mha {

/// Whether MultiheadAttention and the Transformer layers may take PyTorch's
/// fused fast paths (torch.backends.mha.set_fastpath_enabled); on by
/// default, for the whole process, as in Python.
void set_fastpath_enabled(bool enabled);
/// Whether the fast paths may be taken. Python: `torch.backends.mha.get_fastpath_enabled()`.
bool get_fastpath_enabled();

}  // namespace fp::nn::backends::mha

namespace fp::nn {

/// The keyword arguments of torch.nn.MultiheadAttention, with PyTorch's defaults.
struct MultiheadAttentionOptions {
  /// Only used in training, which flash_powder does not do.
  double dropout = 0.0;
  /// Whether the projections have biases (`in_proj_bias`, `out_proj.bias`).
  bool bias = true;
  /// Learnable `bias_k` and `bias_v` appended to the keys and values.
  bool add_bias_kv = false;
  /// A zero key and value appended after them.
  bool add_zero_attn = false;
  /// The feature sizes of key and value (embed_dim when absent). When either
  /// differs from embed_dim, the projections are separate parameters
  /// `q_proj_weight`, `k_proj_weight`, `v_proj_weight` instead of `in_proj_weight`.
  std::optional<std::int64_t> kdim{};
  /// See kdim.
  std::optional<std::int64_t> vdim{};
  /// Inputs are [batch, sequence, feature] rather than [sequence, batch, feature].
  bool batch_first = false;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};

/// The keyword arguments of Python's `MultiheadAttention.forward`.
struct MultiheadAttentionForwardOptions {
  /// Shape [batch, source]: true (bool) or -inf-like (float) marks keys to ignore.
  std::optional<TensorView> key_padding_mask{};
  /// Return the attention weights as well.
  bool need_weights = true;
  /// [target, source] or [batch * heads, target, source]: bool (true = do not
  /// attend) or additive float mask.
  std::optional<TensorView> attn_mask{};
  /// Average the returned weights over heads (else one set per head).
  bool average_attn_weights = true;
  /// A hint that attn_mask is the causal mask (it must still be given).
  bool is_causal = false;
};

/// Attention from a query over keys and values, with `num_heads` heads.
/// https://pytorch.org/docs/stable/generated/torch.nn.MultiheadAttention.html
class MultiheadAttention : public ModuleBase {
 public:
  /// Throws fp::Error unless num_heads divides embed_dim.
  MultiheadAttention(std::int64_t embed_dim, std::int64_t num_heads,
                     const MultiheadAttentionOptions& options = {});

  void visit(Visitor& visitor) override;
  /// The attention output and, if `need_weights`, the attention weights
  /// (else an undefined Tensor, Python's None): PyTorch's fast path where it
  /// takes it (see the top of this file), else Python's
  /// `F.multi_head_attention_forward` step by step. Its `baddbmm(mask, q, k^T)`
  /// runs libtorch's kernel through fp::aten::shim on the CPU and CUDA; on
  /// other devices it is mask + q k^T, which may round differently.
  /// Query, key and value count as the same tensor (Python's `query is key`)
  /// when they are views of the same memory with the same sizes and strides.
  std::tuple<Tensor, Tensor> forward(TensorView query, TensorView key, TensorView value,
                                     const MultiheadAttentionForwardOptions& options = {}) const;
  FP_MODULE_CALL()

  /// Python's `merge_masks`: the mask and mask type (1: key padding, 2: an
  /// attention mask, expanded to [batch, heads, target, source]) that the
  /// fused kernels take, from masks already made float (Python's _canonical_mask).
  std::tuple<std::optional<Tensor>, std::optional<std::int64_t>> merge_masks(
      const std::optional<Tensor>& attn_mask, const std::optional<Tensor>& key_padding_mask,
      TensorView query) const;
  /// Why PyTorch's fast path would not be taken for this call ("" when it
  /// would), in PyTorch's words.
  std::string why_not_fast_path(TensorView query, TensorView key, TensorView value,
                                const MultiheadAttentionForwardOptions& options) const;

  /// The size of queries and outputs.
  std::int64_t embed_dim;
  /// The number of heads.
  std::int64_t num_heads;
  /// The size of keys.
  std::int64_t kdim;
  /// The size of values.
  std::int64_t vdim;
  /// The keyword arguments it was made with.
  MultiheadAttentionOptions options;
  /// Shape [3 * embed_dim, embed_dim]: the query, key and value projections stacked
  /// (undefined when kdim or vdim differs from embed_dim).
  Tensor in_proj_weight;
  /// [embed_dim, embed_dim] (only when kdim or vdim differs from embed_dim).
  Tensor q_proj_weight;
  /// [embed_dim, kdim] (only when kdim or vdim differs from embed_dim).
  Tensor k_proj_weight;
  /// [embed_dim, vdim] (only when kdim or vdim differs from embed_dim).
  Tensor v_proj_weight;
  /// [3 * embed_dim] (undefined without bias).
  Tensor in_proj_bias;
  /// [1, 1, embed_dim], appended to the keys (only with add_bias_kv).
  Tensor bias_k;
  /// [1, 1, embed_dim], appended to the values (only with add_bias_kv).
  Tensor bias_v;
  /// The output projection.
  Linear out_proj;

 private:
  bool same_embed_dim() const { return kdim == embed_dim && vdim == embed_dim; }
};

}  // namespace fp::nn
