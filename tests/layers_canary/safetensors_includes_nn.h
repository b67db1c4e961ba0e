// The layering check must refuse this: safetensors never uses nn.
#pragma once
#include "flash_powder/nn/module.h"
