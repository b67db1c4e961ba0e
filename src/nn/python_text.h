// Text as Python prints it, for error messages that quote Python's.
#pragma once

#include <string>

namespace fp::nn::detail {

/// Python's repr of a float: the shortest text that reads back, always with
/// a point or an exponent ("0.5", "2.0", "1e-05").
std::string python_float(double value);

}  // namespace fp::nn::detail
