// fp::vision::models: torchvision's image classifiers, (in
// fp::vision::models::segmentation) segmentation models and (in
// fp::vision::models::detection) detection models, with its state-dict
// keys and its forward, bit for bit. https://pytorch.org/vision/stable/models.html
#pragma once

#include "flash_powder/vision/models/alexnet.h"
#include "flash_powder/vision/models/categories.h"
#include "flash_powder/vision/models/convnext.h"
#include "flash_powder/vision/models/densenet.h"
#include "flash_powder/vision/models/efficientnet.h"
#include "flash_powder/vision/models/googlenet.h"
#include "flash_powder/vision/models/inception.h"
#include "flash_powder/vision/models/intermediate_layer_getter.h"
#include "flash_powder/vision/models/make.h"
#include "flash_powder/vision/models/maxvit.h"
#include "flash_powder/vision/models/mnasnet.h"
#include "flash_powder/vision/models/mobilenetv2.h"
#include "flash_powder/vision/models/mobilenetv3.h"
#include "flash_powder/vision/models/regnet.h"
#include "flash_powder/vision/models/resnet.h"
#include "flash_powder/vision/models/shufflenetv2.h"
#include "flash_powder/vision/models/squeezenet.h"
#include "flash_powder/vision/models/swin_transformer.h"
#include "flash_powder/vision/models/vgg.h"
#include "flash_powder/vision/models/vision_transformer.h"
// Segmentation (torchvision.models.segmentation).
#include "flash_powder/vision/models/segmentation/deeplabv3.h"
#include "flash_powder/vision/models/segmentation/fcn.h"
#include "flash_powder/vision/models/segmentation/lraspp.h"
#include "flash_powder/vision/models/segmentation/make.h"
#include "flash_powder/vision/models/segmentation/utils.h"
// Detection (torchvision.models.detection).
#include "flash_powder/vision/models/detection/anchor_utils.h"
#include "flash_powder/vision/models/detection/backbone_utils.h"
#include "flash_powder/vision/models/detection/box_coder.h"
#include "flash_powder/vision/models/detection/faster_rcnn.h"
#include "flash_powder/vision/models/detection/generalized_rcnn.h"
#include "flash_powder/vision/models/detection/image_list.h"
#include "flash_powder/vision/models/detection/make.h"
#include "flash_powder/vision/models/detection/mask_rcnn.h"
#include "flash_powder/vision/models/detection/roi_heads.h"
#include "flash_powder/vision/models/detection/rpn.h"
#include "flash_powder/vision/models/detection/transform.h"
