// fp::Layout and fp::MemoryFormat, like torch.layout and torch.memory_format.
//
// A vocabulary header: it depends on nothing, so every layer may use it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string_view>

namespace fp {

/// How a tensor's elements are stored. Python: `torch.layout`.
/// flash_powder creates strided tensors; the others can still arrive from ops.
enum class Layout : std::int8_t {
  Strided,
  SparseCoo,
  SparseCsr,
  SparseCsc,
  SparseBsr,
  SparseBsc,
  Mkldnn,
  Jagged
};

/// The order of dimensions in memory. Python: `torch.memory_format`.
enum class MemoryFormat : std::int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

/// Python's name after `torch.`, e.g. "strided", "sparse_coo".
std::string_view name(Layout layout);
/// Python's name after `torch.`, e.g. "contiguous_format", "channels_last".
std::string_view name(MemoryFormat format);

/// Prints like Python: "torch.strided".
std::ostream& operator<<(std::ostream& out, Layout layout);
/// Prints like Python: "torch.channels_last".
std::ostream& operator<<(std::ostream& out, MemoryFormat format);

}  // namespace fp
