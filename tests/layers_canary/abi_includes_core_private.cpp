// The layering check must refuse this: abi is below core, so core's private
// headers are out of its reach as much as its public ones.
#include "core/arithmetic.h"
