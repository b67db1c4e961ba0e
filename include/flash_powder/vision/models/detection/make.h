// fp::vision::models::detection::make: any detection model of
// fp::vision::models::detection by torchvision's builder name, like
// torchvision.models.get_model (which covers these names too).
//
//     auto net = fp::vision::models::detection::make("fasterrcnn_mobilenet_v3_large_fpn");
//     std::vector<fp::vision::models::detection::Detection> found = (*net)(images);
//     auto ssd = fp::vision::models::detection::make_ssd("ssdlite320_mobilenet_v3_large");
//
// The R-CNN models (GeneralizedRCNN, with FasterRCNNOptions) come from make,
// the SSD models (SSD, with SSDOptions) from make_ssd: their options differ.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/vision/models/detection/faster_rcnn.h"
#include "flash_powder/vision/models/detection/generalized_rcnn.h"
#include "flash_powder/vision/models/detection/ssd.h"

namespace fp::vision::models::detection {

/// torchvision.models.get_model(name, **options) for an R-CNN detection
/// model: default-initialised weights; fp::Error naming the known ones for
/// an unknown name, and make_ssd for an SSD model's.
std::unique_ptr<GeneralizedRCNN> make(std::string_view name, const FasterRCNNOptions& options = {});

/// torchvision.models.get_model(name, **options) for an SSD model
/// (ssd300_vgg16, ssdlite320_mobilenet_v3_large): default-initialised
/// weights; fp::Error naming the known ones for another name.
std::unique_ptr<SSD> make_ssd(std::string_view name, const SSDOptions& options = {});

/// The detection builders fp::vision::models::detection has (make's and
/// make_ssd's), sorted.
std::vector<std::string> list_models();

}  // namespace fp::vision::models::detection
