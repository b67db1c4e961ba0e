// The JSON files of a package: compile metadata, proxy-executor ops, signature.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fp::aoti::detail {

/// `<hash>.wrapper_metadata.json`: a flat object of strings
/// (`{"AOTI_DEVICE_KEY": "cpu", "AOTI_CPU_ISA": "AVX2", ...}`).
std::map<std::string, std::string> parse_metadata(const std::string& text,
                                                  const std::string& source);

/// The ops of the proxy executor's node list (`{"nodes": [{"node": {"target":
/// "torch.ops.aten.linalg_eigh.default", ...}}]}`), as their targets.
std::vector<std::string> parse_proxy_ops(const std::string& text, const std::string& source);

}  // namespace fp::aoti::detail
