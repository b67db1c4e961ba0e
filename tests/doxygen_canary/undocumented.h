// The canary of CTest doxygen: a public declaration without a comment, which
// tools/check_doxygen.sh must refuse.
#pragma once

namespace fp {

/// A documented function.
int documented();

int undocumented();

}  // namespace fp
