// fp::vision::models::detection::make: any detection model of
// fp::vision::models::detection by torchvision's builder name, like
// torchvision.models.get_model (which covers these names too).
//
//     auto net = fp::vision::models::detection::make("fasterrcnn_mobilenet_v3_large_fpn");
//     std::vector<fp::vision::models::detection::Detection> found = (*net)(images);
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/vision/models/detection/faster_rcnn.h"
#include "flash_powder/vision/models/detection/generalized_rcnn.h"

namespace fp::vision::models::detection {

/// torchvision.models.get_model(name, **options) for a detection model:
/// default-initialised weights; fp::Error naming the known ones for an
/// unknown name.
std::unique_ptr<GeneralizedRCNN> make(std::string_view name, const FasterRCNNOptions& options = {});

/// The detection builders fp::vision::models::detection has, sorted.
std::vector<std::string> list_models();

}  // namespace fp::vision::models::detection
