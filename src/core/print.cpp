// Printing tensors as Python's repr() does. The algorithm is the one of
// torch/_tensor_str.py (_Formatter, _tensor_str, _str_intern), rewritten for
// C++: the elements to print are picked on the tensor's own device (narrow +
// cat along each summarised dimension), copied to the CPU once, read exactly
// (integers as int64/uint64, floats as double, complex as complex<double>),
// then formatted here.
//
// Why this file is long: it is one algorithm (Python's formatter, summarisation and layouts),
// whose parts only make sense together.
#include "flash_powder/core/print.h"
#include "base/text.h"

#include "flash_powder/abi/runtime.h"
#include "flash_powder/aten/aten.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdint>
#include <mutex>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/aten/aten.h"

namespace fp {
namespace {

// --- options -------------------------------------------------------------------

constexpr int max_precision = 1000;  // bounds the text of one number

struct OptionsStore {
  std::mutex mutex;
  PrintOptions options;
};

OptionsStore& options_store() {
  static OptionsStore store;
  return store;
}

void require(bool valid, const std::string& problem) {
  if (!valid) throw Error(ErrorCode::BadArgument, "fp::set_printoptions: " + problem);
}

void validate(const PrintOptions& options) {
  require(options.precision >= 0 && options.precision <= max_precision,
          "precision must be in [0, " + std::to_string(max_precision) + "], got " +
              std::to_string(options.precision));
  require(options.threshold >= 0,
          "threshold must be >= 0, got " + std::to_string(options.threshold));
  require(options.edgeitems >= 0,
          "edgeitems must be >= 0, got " + std::to_string(options.edgeitems));
  require(options.linewidth >= 1,
          "linewidth must be >= 1, got " + std::to_string(options.linewidth));
}

// --- numbers as Python's format() writes them ------------------------------------

/// `format(value, f".{precision}f")` (style 'f') or `".{precision}e"` (style
/// 'e'). std::to_chars gives printf's digits without depending on the locale,
/// as Python does; Python writes every NaN as "nan", whatever its sign bit.
std::string python_format(double value, int precision, std::chars_format style) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  // Room for 309 integer digits, the sign, the point and the exponent.
  std::array<char, max_precision + 330> buffer;
  const auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, style, precision);
  return std::string(buffer.data(), result.ptr);
}

std::string pad_left(std::string text, std::size_t width) {
  if (text.size() < width) text.insert(0, width - text.size(), ' ');
  return text;
}

// --- the elements a print shows ---------------------------------------------------

/// The printed elements in row-major order, as Python's tolist() gives them.
struct Elements {
  std::vector<std::string> text;  // bool and integer dtypes: Python's str() of each
  std::vector<double> real;       // floating dtypes: the values; complex: real parts
  std::vector<double> imag;       // complex: imaginary parts
};

template <class T>
std::vector<std::string> integer_texts(const Tensor& kept) {
  std::vector<std::string> texts;
  for (T value : kept.to_vector<T>())
    texts.push_back(std::to_string(value));
  return texts;
}

/// `dtype` is the printed tensor's: float4_e2m1fn_x2 arrives as its bytes,
/// which Python formats as floating values.
Elements read_elements(const Tensor& kept, DType dtype) {
  Elements elements;
  if (dtype == DType::Bool) {
    for (bool value : kept.to_vector<bool>())
      elements.text.emplace_back(value ? "True" : "False");
  } else if (dtype == DType::U64) {
    elements.text = integer_texts<std::uint64_t>(kept);  // beyond int64, exactly
  } else if (is_integral(dtype)) {
    elements.text = integer_texts<std::int64_t>(kept);
  } else if (is_complex(dtype)) {
    for (const auto value : kept.to_vector<std::complex<double>>()) {
      elements.real.push_back(value.real());
      elements.imag.push_back(value.imag());
    }
  } else {
    elements.real = kept.to_vector<double>();  // every float dtype is exact in double
  }
  return elements;
}

// --- the number format of one column of values (Python: _Formatter) ----------------

/// Python counts "nonzero finite" values with `isfinite(t) & t.ne(0)`. For
/// float8_e8m0fnu `0` converts to its smallest value, 2**-127, which
/// therefore counts as the zero, and before torch 2.15 isfinite is true for
/// its NaN too (the loaded torch decides, as it does for Python's repr).
bool counts_as_nonzero_finite(double value, DType dtype) {
  if (dtype == DType::F8_E8M0FNU) {
    static const bool nan_is_finite = torch_version() < TorchVersion{2, 15, 0};
    return value != std::ldexp(1.0, -127) && (nan_is_finite || !std::isnan(value));
  }
  return std::isfinite(value) && value != 0.0;
}

/// torch.min/max of |values|, which propagate NaN.
std::pair<double, double> abs_min_max(std::span<const double> values) {
  double low = std::abs(values.front());
  double high = low;
  for (double value : values) {
    const double magnitude = std::abs(value);
    if (std::isnan(magnitude) || std::isnan(low)) {
      low = high = std::nan("");
    } else {
      low = std::min(low, magnitude);
      high = std::max(high, magnitude);
    }
  }
  return {low, high};
}

/// Formats floating values like torch's _Formatter: all in scientific
/// notation, all as integers with a trailing point (`1.`), or all fixed, each
/// padded to the widest one.
class FloatFormatter {
 public:
  FloatFormatter(std::span<const double> values, DType dtype, const PrintOptions& options)
      : precision_(options.precision) {
    std::vector<double> chosen;
    for (double value : values) {
      if (counts_as_nonzero_finite(value, dtype)) chosen.push_back(value);
    }
    if (chosen.empty()) return;  // nothing to measure: `0.`, `nan`, `inf` print as they are
    int_mode_ = std::ranges::all_of(chosen, [](double v) { return v == std::ceil(v); });
    sci_mode_ = options.sci_mode.value_or(wants_scientific(abs_min_max(chosen)));
    for (double value : chosen)
      width_ = std::max(width_, measured_width(value));
  }

  std::size_t width() const { return width_; }

  std::string format(double value) const {
    std::string text;
    if (sci_mode_) {
      text = python_format(value, precision_, std::chars_format::scientific);
    } else if (int_mode_) {
      text = python_format(value, 0, std::chars_format::fixed);
      if (std::isfinite(value)) text += '.';  // shows the dtype is floating
    } else {
      text = python_format(value, precision_, std::chars_format::fixed);
    }
    return pad_left(std::move(text), width_);
  }

 private:
  /// PyTorch's rule; NaN bounds (float8_e8m0fnu only) compare false everywhere.
  static bool wants_scientific(std::pair<double, double> bounds) {
    const auto [low, high] = bounds;
    return high / low > 1000.0 || high > 1.0e8 || low < 1.0e-4;
  }

  std::size_t measured_width(double value) const {
    if (sci_mode_) return python_format(value, precision_, std::chars_format::scientific).size();
    if (int_mode_) return python_format(value, 0, std::chars_format::fixed).size() + 1;
    return python_format(value, precision_, std::chars_format::fixed).size();
  }

  int precision_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  std::size_t width_ = 1;
};

/// The text of one element, padded like its column (Python: _val_formatter).
class ElementPrinter {
 public:
  ElementPrinter(Elements elements, DType dtype, const PrintOptions& options)
      : elements_(std::move(elements)) {
    if (!elements_.real.empty()) real_.emplace(elements_.real, dtype, options);
    if (!elements_.imag.empty()) imag_.emplace(elements_.imag, dtype, options);
    for (const auto& text : elements_.text)
      text_width_ = std::max(text_width_, text.size());
  }

  /// Characters of one element, without the ", " between elements.
  std::size_t width() const {
    if (imag_) return real_->width() + imag_->width() + 1;  // + the 'j'
    return real_ ? real_->width() : text_width_;
  }

  std::string element(std::size_t index) const {
    if (imag_) return complex_text(elements_.real[index], elements_.imag[index]);
    if (real_) return real_->format(elements_.real[index]);
    return pad_left(elements_.text[index], text_width_);
  }

 private:
  std::string complex_text(double real, double imag) const {
    std::string imag_text = imag_->format(imag) + "j";
    imag_text.erase(0, imag_text.find_first_not_of(' '));
    const bool signed_imag = imag_text[0] == '+' || imag_text[0] == '-';
    return real_->format(real) + (signed_imag ? "" : "+") + imag_text;
  }

  Elements elements_;
  std::optional<FloatFormatter> real_;
  std::optional<FloatFormatter> imag_;
  std::size_t text_width_ = 1;
};

// --- which elements print: the summary of large tensors -----------------------------

/// The printed part of a tensor: per dimension, how many entries are kept and
/// whether `...` stands between the first and last `edgeitems` of them.
struct Summary {
  std::vector<std::int64_t> kept_sizes;
  std::vector<bool> elided;
};

Summary summarise(std::span<const std::int64_t> sizes, bool summarised, std::int64_t edgeitems) {
  Summary summary;
  for (const std::int64_t size : sizes) {
    const bool elided = summarised && size > 2 * edgeitems;
    summary.kept_sizes.push_back(elided ? 2 * edgeitems : size);
    summary.elided.push_back(elided);
  }
  return summary;
}

/// The kept elements as a (small) tensor on the source's device: the first
/// and last `edgeitems` along every elided dimension.
Tensor kept_elements(Tensor source, const Summary& summary, std::int64_t edgeitems) {
  for (std::size_t d = 0; d < summary.elided.size(); ++d) {
    if (!summary.elided[d]) continue;
    const auto dim = static_cast<std::int64_t>(d);
    const std::int64_t size = source.size(dim);
    const TensorView head = aten::narrow(source, dim, 0, edgeitems);
    const TensorView tail = aten::narrow(source, dim, size - edgeitems, edgeitems);
    source = aten::cat({head, tail}, dim);
  }
  return source;
}

// --- nesting the elements into lines (Python: _tensor_str_with_formatter) ------------

class Brackets {
 public:
  Brackets(const ElementPrinter& printer, const Summary& summary, const PrintOptions& options)
      : printer_(printer), summary_(summary), options_(options) {
    std::size_t stride = 1;
    strides_.resize(summary.kept_sizes.size());
    for (std::size_t d = strides_.size(); d-- > 0;) {
      strides_[d] = stride;
      stride *= static_cast<std::size_t>(summary.kept_sizes[d]);
    }
  }

  std::string text(int indent) const {
    if (strides_.empty()) return printer_.element(0);
    return block(0, 0, indent);
  }

 private:
  /// The dimensions from `dim` on, starting at element `offset`.
  std::string block(std::size_t dim, std::size_t offset, int indent) const {
    if (dim + 1 == strides_.size()) return row(offset, indent);
    const std::size_t remaining = strides_.size() - dim;
    const std::string separator = "," + std::string(remaining - 1, '\n') +
                                  std::string(static_cast<std::size_t>(indent) + 1, ' ');
    std::vector<std::string> slices;
    for_each_kept(
        dim,
        [&](std::int64_t i) {
          slices.push_back(
              block(dim + 1, offset + static_cast<std::size_t>(i) * strides_[dim], indent + 1));
        },
        [&] { slices.emplace_back("..."); });
    return "[" + join(slices, separator) + "]";
  }

  /// The last dimension: elements, as many per line as fit the line width.
  std::string row(std::size_t offset, int indent) const {
    std::vector<std::string> items;
    for_each_kept(
        strides_.size() - 1,
        [&](std::int64_t i) {
          items.push_back(printer_.element(offset + static_cast<std::size_t>(i)));
        },
        [&] { items.emplace_back(" ..."); });
    const auto item_width = static_cast<std::int64_t>(printer_.width()) + 2;  // + ", "
    const std::size_t per_line = static_cast<std::size_t>(
        std::max<std::int64_t>(1, (options_.linewidth - indent) / item_width));
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < items.size(); start += per_line) {
      const auto end = std::min(items.size(), start + per_line);
      lines.push_back(join(std::span(items).subspan(start, end - start), ", "));
    }
    return "[" + join(lines, ",\n" + std::string(static_cast<std::size_t>(indent) + 1, ' ')) + "]";
  }

  /// Calls `kept(i)` for each kept index of `dim` and `gap()` where `...` goes.
  template <class Kept, class Gap>
  void for_each_kept(std::size_t dim, Kept kept, Gap gap) const {
    const std::int64_t count = summary_.kept_sizes[dim];
    for (std::int64_t i = 0; i < count; ++i) {
      if (summary_.elided[dim] && i == options_.edgeitems) gap();
      kept(i);
    }
  }

  static std::string join(std::span<const std::string> parts, const std::string& separator) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i)
      out += (i ? separator : "") + parts[i];
    return out;
  }

  const ElementPrinter& printer_;
  const Summary& summary_;
  const PrintOptions& options_;
  std::vector<std::size_t> strides_;
};

// --- one tensor's bracketed elements (Python: _tensor_str) ---------------------------

/// The tensor as the elements Python formats: float4_e2m1fn_x2 has no
/// conversions, so Python shows its bytes (as floating values).
Tensor printable(const detail::TensorBase& tensor) {
  if (tensor.dtype() == DType::F4_E2M1FN_X2) {
    return Tensor(aten::view_dtype(detail::TensorAccess::unchecked(tensor), DType::U8));
  }
  return Tensor(abi::share(tensor.raw()));  // read only, so sharing is safe and free
}

std::string elements_text(const detail::TensorBase& tensor, int indent,
                          const PrintOptions& options) {
  if (tensor.numel() == 0) return "[]";
  const bool summarised = tensor.numel() > options.threshold;
  if (summarised && options.edgeitems == 0 && tensor.dim() > 0) return "[...]";
  const Tensor source = printable(tensor);
  const Summary summary = summarise(source.sizes(), summarised, options.edgeitems);
  const Tensor kept = kept_elements(source, summary, options.edgeitems);
  const ElementPrinter printer(read_elements(kept, tensor.dtype()), tensor.dtype(), options);
  return Brackets(printer, summary, options).text(indent);
}

// --- the suffixes and the whole text (Python: _str_intern) ----------------------------

/// Python's str(tuple(shape)): "(2, 3)", "(5,)", "()".
std::string shape_text(std::span<const std::int64_t> sizes) {
  return detail::tuple_text(sizes);
}

std::string dtype_text(DType dtype) {
  return "dtype=torch." + std::string(name(dtype));
}

/// The dtypes Python leaves unsaid: the default float and complex, int64, bool.
bool has_default_dtype(DType dtype) {
  return dtype == DType::F32 || dtype == DType::C64 || dtype == DType::I64 || dtype == DType::Bool;
}

/// Appends `suffixes` after `text`, each on a new line when the line would
/// pass the line width (Python: _add_suffixes, including its length count,
/// which is 2 more than the last line's length when `text` has no newline).
std::string add_suffixes(std::string text, const std::vector<std::string>& suffixes, int indent,
                         bool force_newline, int linewidth) {
  const auto last_newline = text.rfind('\n');
  auto line_length =
      static_cast<std::int64_t>(text.size()) -
      (last_newline == std::string::npos ? -1 : static_cast<std::int64_t>(last_newline)) + 1;
  for (const auto& suffix : suffixes) {
    const auto length = static_cast<std::int64_t>(suffix.size());
    if (force_newline || line_length + length + 2 > linewidth) {
      text += ",\n" + std::string(static_cast<std::size_t>(indent), ' ') + suffix;
      line_length = indent + length;
      force_newline = false;
    } else {
      text += ", " + suffix;
      line_length += length + 2;
    }
  }
  return text + ")";
}

bool is_meta(const detail::TensorBase& tensor) {
  return tensor.device().type == DeviceType::Meta;
}

struct Parts {
  std::string body;
  std::vector<std::string> suffixes;
  bool force_newline = false;
};

/// A strided tensor: "...", "[]" or its elements, and what Python adds.
void describe_strided(const detail::TensorBase& tensor, int indent, const PrintOptions& options,
                      Parts& parts) {
  const DType dtype = tensor.dtype();
  if (is_meta(tensor)) {
    parts.suffixes.push_back("size=" + shape_text(tensor.sizes()));
    if (dtype != DType::F32) parts.suffixes.push_back(dtype_text(dtype));
    parts.body = "...";
  } else if (tensor.numel() == 0) {
    // Python shows the shape unless it is (0,), and the dtype unless it is
    // float32: no elements tell an empty int64 tensor apart.
    if (tensor.dim() != 1) parts.suffixes.push_back("size=" + shape_text(tensor.sizes()));
    if (dtype != DType::F32) parts.suffixes.push_back(dtype_text(dtype));
    parts.body = "[]";
  } else {
    if (options.edgeitems == 0) parts.suffixes.push_back("size=" + shape_text(tensor.sizes()));
    if (!has_default_dtype(dtype)) parts.suffixes.push_back(dtype_text(dtype));
    parts.body = elements_text(tensor, indent, options);
  }
}

/// `name=tensor(...)`, one part of a sparse tensor; parts of meta tensors
/// have no elements to show and print as `...`.
std::string part_text(const std::string& name, const Tensor& part, int indent, bool meta,
                      const PrintOptions& options) {
  const std::string prefix = name + "=tensor(";
  std::string text =
      meta ? "..." : elements_text(part, indent + static_cast<int>(prefix.size()), options);
  if (meta || part.numel() == 0) text += ", size=" + shape_text(part.sizes());
  return prefix + text + ")";
}

/// size=, nnz= (unknown for meta tensors) and dtype=, as all sparse layouts add.
void add_sparse_suffixes(const detail::TensorBase& tensor, Parts& parts) {
  parts.suffixes.push_back("size=" + shape_text(tensor.sizes()));
  if (!is_meta(tensor)) {
    parts.suffixes.push_back("nnz=" +
                             std::to_string(aten::_nnz(detail::TensorAccess::unchecked(tensor))));
  }
  if (!has_default_dtype(tensor.dtype())) parts.suffixes.push_back(dtype_text(tensor.dtype()));
}

/// `part(tensor)` as an independent tensor, e.g. the values of a sparse tensor.
template <class Part>
Tensor part_of(Part part, const detail::TensorBase& tensor) {
  return Tensor(part(detail::TensorAccess::unchecked(tensor)));
}

/// torch.sparse_coo: its indices and values, and the suffixes on lines of their own.
void describe_coo(const detail::TensorBase& tensor, int indent, const PrintOptions& options,
                  Parts& parts) {
  add_sparse_suffixes(tensor, parts);
  const bool meta = is_meta(tensor);
  const std::string newline = ",\n" + std::string(static_cast<std::size_t>(indent), ' ');
  parts.body = part_text("indices", part_of(aten::_indices, tensor), indent, meta, options) +
               newline + part_text("values", part_of(aten::_values, tensor), indent, meta, options);
  parts.force_newline = true;
}

/// CSR, CSC, BSR and BSC: compressed indices, plain indices and values.
void describe_compressed(const detail::TensorBase& tensor, int indent, const PrintOptions& options,
                         Parts& parts) {
  add_sparse_suffixes(tensor, parts);
  const bool by_rows = tensor.layout() == Layout::SparseCsr || tensor.layout() == Layout::SparseBsr;
  const bool meta = is_meta(tensor);
  const std::string newline = ",\n" + std::string(static_cast<std::size_t>(indent), ' ');
  const auto compressed =
      by_rows ? part_of(aten::crow_indices, tensor) : part_of(aten::ccol_indices, tensor);
  const auto plain =
      by_rows ? part_of(aten::col_indices, tensor) : part_of(aten::row_indices, tensor);
  parts.body =
      part_text(by_rows ? "crow_indices" : "ccol_indices", compressed, indent, meta, options) +
      newline + part_text(by_rows ? "col_indices" : "row_indices", plain, indent, meta, options) +
      newline + part_text("values", part_of(aten::values, tensor), indent, meta, options);
}

void describe(const detail::TensorBase& tensor, int indent, const PrintOptions& options,
              Parts& parts) {
  switch (tensor.layout()) {
    case Layout::Strided:
      return describe_strided(tensor, indent, options, parts);
    case Layout::SparseCoo:
      return describe_coo(tensor, indent, options, parts);
    case Layout::SparseCsr:
    case Layout::SparseCsc:
    case Layout::SparseBsr:
    case Layout::SparseBsc:
      return describe_compressed(tensor, indent, options, parts);
    default:  // like Python: the dense equivalent, then the layout
      return describe_strided(
          part_of([](TensorArg sparse) { return aten::to_dense(sparse); }, tensor), indent, options,
          parts);
  }
}

std::string repr(const detail::TensorBase& tensor, const PrintOptions& options) {
  if (!tensor.is_defined()) return "tensor(undefined)";
  const std::string prefix = "tensor(";
  const int indent = static_cast<int>(prefix.size());
  Parts parts;
  if (!tensor.device().is_cpu()) parts.suffixes.push_back("device='" + tensor.device().str() + "'");
  describe(tensor, indent, options, parts);
  if (tensor.layout() != Layout::Strided) {
    parts.suffixes.push_back("layout=torch." + std::string(name(tensor.layout())));
  }
  return add_suffixes(prefix + parts.body, parts.suffixes, indent, parts.force_newline,
                      options.linewidth);
}

}  // namespace

void set_printoptions(const PrintOptions& options) {
  validate(options);
  auto& store = options_store();
  const std::lock_guard lock(store.mutex);
  store.options = options;
}

PrintOptions get_printoptions() {
  auto& store = options_store();
  const std::lock_guard lock(store.mutex);
  return store.options;
}

std::string to_string(const detail::TensorBase& tensor) {
  // One snapshot per print, so a concurrent set_printoptions never mixes in.
  return repr(tensor, get_printoptions());
}

std::ostream& operator<<(std::ostream& out, const detail::TensorBase& tensor) {
  return out << to_string(tensor);
}

}  // namespace fp
