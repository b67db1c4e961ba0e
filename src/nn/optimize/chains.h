// Which layers optimize_for_inference fuses: the chains of modules a
// forward applies one after another (a convolution, its BatchNorm, an
// activation; a linear layer, an activation), from nn::Sequential, from
// fusable_chains() and from OptimizeOptions::chains.
#pragma once

#include <string>
#include <vector>

#include "flash_powder/nn/module.h"
#include "flash_powder/nn/optimize.h"

namespace fp::nn::detail {

/// One module of a chain, under its dotted path from the module optimised.
struct Link {
  std::string path;
  ModuleBase* module = nullptr;
};

/// A layer that computes (a convolution, transposed or not, or a linear
/// layer), then optionally the BatchNorm folded into it, then optionally
/// the activation fused with it.
struct Chain {
  Link head;
  std::optional<Link> norm{};
  std::optional<Link> activation{};
};

/// Whether `module` is a layer a chain may start with.
bool is_chain_head(const ModuleBase& module);

/// Every chain below `root` (itself included): those of its Sequentials,
/// those its modules name in fusable_chains(), those of `options`; then every
/// other convolution and linear layer as a chain of its own. Throws fp::Error
/// for a named chain that names no module, is not of the form above, or
/// shares a convolution, linear layer or BatchNorm with another chain.
std::vector<Chain> find_chains(ModuleBase& root, const OptimizeOptions& options);

}  // namespace fp::nn::detail
