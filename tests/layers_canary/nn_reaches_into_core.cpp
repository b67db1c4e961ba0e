// The layering check must refuse this: a private header is included as
// "<folder>/<name>.h", never by a relative path into another folder.
#include "../../src/core/arithmetic.h"
