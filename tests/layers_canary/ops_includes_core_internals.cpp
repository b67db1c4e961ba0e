// The layering check must refuse this: a layer's internal headers are its own.
#include "../../src/core/borrow_state.h"
