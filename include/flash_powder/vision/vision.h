// fp::vision: torchvision's models and the preprocessing their weights expect.
// https://pytorch.org/vision/stable/index.html
#pragma once

#include "flash_powder/vision/masks/class_masks.h"
#include "flash_powder/vision/masks/components.h"
#include "flash_powder/vision/masks/morphology.h"
#include "flash_powder/vision/masks/rotated_box.h"
#include "flash_powder/vision/models.h"
#include "flash_powder/vision/ops/boxes.h"
#include "flash_powder/vision/ops/conv_norm_activation.h"
#include "flash_powder/vision/ops/feature_pyramid_network.h"
#include "flash_powder/vision/ops/frozen_batch_norm.h"
#include "flash_powder/vision/ops/misc.h"
#include "flash_powder/vision/ops/nms.h"
#include "flash_powder/vision/ops/permute.h"
#include "flash_powder/vision/ops/poolers.h"
#include "flash_powder/vision/ops/ps_roi_align.h"
#include "flash_powder/vision/ops/ps_roi_pool.h"
#include "flash_powder/vision/ops/roi.h"
#include "flash_powder/vision/ops/roi_align.h"
#include "flash_powder/vision/ops/roi_pool.h"
#include "flash_powder/vision/ops/stochastic_depth.h"
#include "flash_powder/vision/transforms.h"
