// fp::vision::models::detection::make: any detection model of
// fp::vision::models::detection by torchvision's builder name, like
// torchvision.models.get_model (which covers these names too).
//
//     auto net = fp::vision::models::detection::make("fasterrcnn_mobilenet_v3_large_fpn");
//     std::vector<fp::vision::models::detection::Detection> found = (*net)(images);
//
// Each family takes its own keyword arguments: FasterRCNNOptions for the
// R-CNN models, RetinaNetOptions (FCOSOptions) for RetinaNet and FCOS,
// SSDOptions for SSD300 and SSDlite.
//
//     auto retina = fp::vision::models::detection::make(
//         "retinanet_resnet50_fpn_v2", fp::vision::models::detection::RetinaNetOptions{.num_classes = 3});
//     auto ssd = fp::vision::models::detection::make(
//         "ssdlite320_mobilenet_v3_large", fp::vision::models::detection::SSDOptions{.num_classes = 3});
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/vision/models/detection/detection_model.h"
#include "flash_powder/vision/models/detection/faster_rcnn.h"
#include "flash_powder/vision/models/detection/retinanet.h"
#include "flash_powder/vision/models/detection/ssd.h"

namespace fp::vision::models::detection {

/// torchvision.models.get_model(name) for a detection model: the builder's
/// defaults, default-initialised weights; fp::Error naming the known ones
/// for an unknown name.
std::unique_ptr<DetectionModel> make(std::string_view name);
/// The same with an R-CNN model's options; fp::Error (BadArgument) for a
/// model of another family.
std::unique_ptr<DetectionModel> make(std::string_view name, const FasterRCNNOptions& options);
/// The same with RetinaNet's or FCOS's options; fp::Error (BadArgument) for
/// a model of another family.
std::unique_ptr<DetectionModel> make(std::string_view name, const RetinaNetOptions& options);
/// The same with SSD's or SSDlite's options; fp::Error (BadArgument) for a
/// model of another family.
std::unique_ptr<DetectionModel> make(std::string_view name, const SSDOptions& options);

/// The detection builders fp::vision::models::detection has, sorted.
std::vector<std::string> list_models();

}  // namespace fp::vision::models::detection
