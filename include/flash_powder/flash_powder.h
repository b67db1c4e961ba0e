// flash_powder: run PyTorch models from C++ through libtorch's stable C ABI.
//
//     #include <flash_powder/flash_powder.h>
//
// brings in the whole public API of the core library (namespace fp).
#pragma once

#include "flash_powder/abi/dispatch.h"
#include "flash_powder/abi/error.h"
#include "flash_powder/abi/grad_mode.h"
#include "flash_powder/abi/routes.h"
#include "flash_powder/abi/runtime.h"
#include "flash_powder/abi/schema.h"
#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/base/half.h"
#include "flash_powder/base/layout.h"
#include "flash_powder/core/arguments.h"
#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/generator.h"
#include "flash_powder/core/index.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/core/options.h"
#include "flash_powder/core/print.h"
#include "flash_powder/core/scalar.h"
#include "flash_powder/core/state_dict.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"
#include "flash_powder/nn/nn.h"
