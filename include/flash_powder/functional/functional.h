// fp::functional: torch.nn.functional for C++. Options are structs whose
// fields are Python's keyword arguments with their defaults:
//
//     namespace F = fp::functional;
//     fp::Tensor h = F::conv2d(x, w, b, {.stride = 2, .padding = 1});
//     fp::Tensor y = F::relu(h);
//     fp::Tensor p = F::softmax(logits, -1);
//
// Functions take fp::TensorView (a `const fp::Tensor&` converts) and return a
// new fp::Tensor. A view cannot be taken of a temporary, so intermediate
// results are named, as above.
// https://pytorch.org/docs/stable/nn.functional.html
#pragma once

#include "flash_powder/functional/activation.h"
#include "flash_powder/functional/activation_inplace.h"
#include "flash_powder/functional/attention.h"
#include "flash_powder/functional/conv.h"
#include "flash_powder/functional/distance.h"
#include "flash_powder/functional/dropout.h"
#include "flash_powder/functional/fold.h"
#include "flash_powder/functional/grid_sample.h"
#include "flash_powder/functional/gumbel_softmax.h"
#include "flash_powder/functional/linear.h"
#include "flash_powder/functional/normalization.h"
#include "flash_powder/functional/pooling.h"
#include "flash_powder/functional/sparse.h"
#include "flash_powder/functional/vision.h"
