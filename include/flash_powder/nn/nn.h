// fp::nn: torch.nn for C++ (inference). Modules, layers, containers, state
// dicts, and fp::functional (torch.nn.functional).
// https://pytorch.org/docs/stable/nn.html
#pragma once

#include "flash_powder/core/state_dict.h"
#include "flash_powder/functional/functional.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/init.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/attention.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/distance.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/flatten.h"
#include "flash_powder/nn/layers/fold.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/layers/padding.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/layers/rnn.h"
#include "flash_powder/nn/layers/sparse.h"
#include "flash_powder/nn/layers/transformer.h"
#include "flash_powder/nn/layers/vision.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/nn/options.h"
#include "flash_powder/nn/utils/rnn.h"
