// The class names of a converted torchvision checkpoint:
// tools/convert_torchvision_weights.py writes them beside the weights, one
// a line, in the order of the model's classes (ImageNet's 1000 for the
// classifiers; Pascal VOC's 21, "__background__" first, for the
// segmentation models).
//
//     auto names = fp::vision::models::read_categories("resnet50.safetensors");
//     std::cout << names[logits.argmax(1).item<std::int64_t>()];
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fp::vision::models {

/// The lines of `checkpoint` + ".categories" (or of `checkpoint` itself when
/// its name ends in ".categories"), without line ends (LF or CRLF).
/// fp::Error naming the file when it is missing or unreadable, holds no
/// names, or has an empty line.
std::vector<std::string> read_categories(const std::filesystem::path& checkpoint);

}  // namespace fp::vision::models
