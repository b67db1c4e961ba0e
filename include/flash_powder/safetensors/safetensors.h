// flash_powder::safetensors: load, map and save safetensors files.
//
//     #include <flash_powder/safetensors/safetensors.h>
//
//     fp::StateDict weights = fp::safetensors::load("model.safetensors");
//     auto file = fp::safetensors::MappedFile::open("model.safetensors");
//     fp::TensorView w = file.get("layer.weight");      // no copy
//     fp::safetensors::save(weights, "copy.safetensors", {{"format", "pt"}});
#pragma once

#include "flash_powder/safetensors/format.h"
#include "flash_powder/safetensors/load.h"
#include "flash_powder/safetensors/mapped_file.h"
#include "flash_powder/safetensors/save.h"
