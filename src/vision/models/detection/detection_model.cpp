// The detection models' common forward over a vector of Tensors.
#include "flash_powder/vision/models/detection/detection_model.h"

namespace fp::vision::models::detection {

std::vector<Detection> DetectionModel::forward(const std::vector<Tensor>& images) const {
  return forward(std::vector<TensorView>(images.begin(), images.end()));
}

}  // namespace fp::vision::models::detection
