// flash_powder::aoti: AOTInductor packages through the stable C ABI.
#pragma once

#include "flash_powder/aoti/package.h"
#include "flash_powder/aoti/spec.h"
