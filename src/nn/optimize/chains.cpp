#include "chains.h"

#include <string_view>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>

#include "activations.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"

namespace fp::nn::detail {
namespace {

constexpr const char* kOptimizeWhat = "fp::nn::optimize_for_inference: ";
constexpr const char* kChainForm =
    "a chain is a convolution, then optionally its BatchNorm, then optionally an activation "
    "(ReLU, ReLU6, LeakyReLU, GELU, SiLU, Sigmoid, Tanh, Hardswish), or a linear layer or a "
    "transposed convolution, then optionally an activation";

// Exact types only: a class derived from a layer may compute something else.
bool is_plain_convolution(const ModuleBase& module) {
  return typeid(module) == typeid(Conv1d) || typeid(module) == typeid(Conv2d) ||
         typeid(module) == typeid(Conv3d);
}

bool is_batch_norm(const ModuleBase& module) {
  return typeid(module) == typeid(BatchNorm1d) || typeid(module) == typeid(BatchNorm2d);
}

std::string chain_path(const std::string& prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

std::string quoted_names(const std::vector<std::string>& names) {
  std::string text = "{";
  for (const auto& name : names)
    text += (text.size() > 1 ? ", \"" : "\"") + name + "\"";
  return text + "}";
}

/// A chain someone named, where: for messages.
struct NamedChain {
  std::vector<std::string> names;
  std::string where;
};

[[noreturn]] void refuse_chain(const NamedChain& named, const std::string& problem) {
  throw Error(ErrorCode::BadArgument, std::string(kOptimizeWhat) + "chain " +
                                          quoted_names(named.names) + " " + named.where + ": " +
                                          problem);
}

std::string describe_link(const Link& link) {
  return "\"" + link.path + "\" (" + link.module->type_name() + ")";
}

/// `links` as a chain, or fp::Error naming what is out of place.
Chain parse_chain(const std::vector<Link>& links, const NamedChain& named) {
  if (links.empty()) refuse_chain(named, "it is empty; " + std::string(kChainForm));
  if (!is_chain_head(*links[0].module))
    refuse_chain(named, describe_link(links[0]) + " cannot start one; " + kChainForm);
  Chain chain{.head = links[0]};
  std::size_t next = 1;
  if (next < links.size() && is_batch_norm(*links[next].module)) {
    if (!is_plain_convolution(*chain.head.module))
      refuse_chain(named, describe_link(links[next]) + " cannot follow " +
                              describe_link(chain.head) + "; " + kChainForm);
    chain.norm = links[next++];
  }
  if (next < links.size() && is_fusable_activation(*links[next].module))
    chain.activation = links[next++];
  if (next < links.size()) {
    refuse_chain(named, describe_link(links[next]) + " cannot follow " +
                            describe_link(links[next - 1]) + "; " + kChainForm);
  }
  return chain;
}

/// `names` resolved below `owner` (at `prefix`), or fp::Error naming the one missing.
std::vector<Link> resolve_chain(ModuleBase& owner, const std::string& prefix,
                                const NamedChain& named) {
  std::vector<Link> links;
  for (const auto& name : named.names) {
    try {
      links.push_back({chain_path(prefix, name), &owner.get_submodule(name)});
    } catch (const Error& error) {
      refuse_chain(named, error.what());
    }
  }
  return links;
}

/// The chains an nn::Sequential runs by itself: greedy, left to right.
void sequential_chains_of(Sequential& sequential, const std::string& prefix,
                          std::vector<Chain>& chains) {
  std::vector<Link> children;
  for (auto& [name, child] : sequential.named_children())
    children.push_back({chain_path(prefix, name), child});
  for (std::size_t i = 0; i < children.size();) {
    if (!is_chain_head(*children[i].module)) {
      ++i;
      continue;
    }
    Chain chain{.head = children[i++]};
    if (i < children.size() && is_plain_convolution(*chain.head.module) &&
        is_batch_norm(*children[i].module))
      chain.norm = children[i++];
    if (i < children.size() && is_fusable_activation(*children[i].module))
      chain.activation = children[i++];
    chains.push_back(std::move(chain));
  }
}

bool same_links(const std::optional<Link>& a, const std::optional<Link>& b) {
  return a.has_value() == b.has_value() && (!a || a->module == b->module);
}

bool same_links(const Chain& a, const Chain& b) {
  return a.head.module == b.head.module && same_links(a.norm, b.norm) &&
         same_links(a.activation, b.activation);
}

/// Adds `chain` unless it is there already; fp::Error when it shares its
/// computing layer or BatchNorm with another.
void add_chain(std::vector<Chain>& chains, Chain chain, const NamedChain& named,
               std::unordered_map<const ModuleBase*, std::size_t>& owners) {
  for (const Chain& known : chains) {
    if (same_links(known, chain)) return;
  }
  for (const std::optional<Link>& link : {std::optional<Link>(chain.head), chain.norm}) {
    if (!link) continue;
    if (owners.contains(link->module))
      refuse_chain(named, describe_link(*link) + " is in another chain already");
  }
  owners[chain.head.module] = chains.size();
  if (chain.norm) owners[chain.norm->module] = chains.size();
  chains.push_back(std::move(chain));
}

}  // namespace

bool is_chain_head(const ModuleBase& module) {
  return is_plain_convolution(module) || typeid(module) == typeid(Linear) ||
         typeid(module) == typeid(ConvTranspose1d) || typeid(module) == typeid(ConvTranspose2d);
}

std::vector<Chain> find_chains(ModuleBase& root, const OptimizeOptions& options) {
  std::vector<Chain> chains;
  std::unordered_map<const ModuleBase*, std::size_t> owners;
  const auto modules = root.named_modules();
  for (const auto& [path, module] : modules) {
    if (auto* sequential = dynamic_cast<Sequential*>(module)) {
      std::vector<Chain> found;
      sequential_chains_of(*sequential, path, found);
      for (Chain& chain : found) {
        const NamedChain named{{chain.head.path}, "of nn::Sequential \"" + path + "\""};
        add_chain(chains, std::move(chain), named, owners);
      }
    }
    for (auto& names : module->fusable_chains()) {
      const NamedChain named{std::move(names), "of " + module->type_name() +
                                                   (path.empty() ? "" : " \"" + path + "\"") +
                                                   " (its fusable_chains())"};
      add_chain(chains, parse_chain(resolve_chain(*module, path, named), named), named, owners);
    }
  }
  for (const auto& names : options.chains) {
    const NamedChain named{names, "of OptimizeOptions::chains"};
    add_chain(chains, parse_chain(resolve_chain(root, "", named), named), named, owners);
  }
  for (const auto& [path, module] : modules) {
    if (is_chain_head(*module) && !owners.contains(module)) {
      owners[module] = chains.size();
      chains.push_back({.head = {path, module}});
    }
  }
  return chains;
}

}  // namespace fp::nn::detail
