// fp::vision::models::segmentation::make: any segmentation model of
// fp::vision::models::segmentation by torchvision's builder name, like
// torchvision.models.get_model (which covers these names too).
//
//     auto net = fp::vision::models::segmentation::make("lraspp_mobilenet_v3_large");
//     fp::Tensor scores = (*net)(batch).out;  // [N, 21, H, W]
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/vision/models/segmentation/utils.h"

namespace fp::vision::models::segmentation {

/// torchvision.models.get_model(name, **options) for a segmentation model:
/// default-initialised weights; fp::Error naming the known ones for an
/// unknown name.
std::unique_ptr<SegmentationModel> make(std::string_view name,
                                        const SegmentationOptions& options = {});

/// torchvision.models.list_models(torchvision.models.segmentation), sorted.
std::vector<std::string> list_models();

}  // namespace fp::vision::models::segmentation
