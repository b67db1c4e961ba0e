// The layering check must refuse this: abi sits below core.
#pragma once
#include "flash_powder/core/tensor.h"
