// fp::image: images to tensors and back (see io.h, convert.h, draw.h).
// Link flash_powder::image.
#pragma once

#include "flash_powder/image/convert.h"
#include "flash_powder/image/draw.h"
#include "flash_powder/image/io.h"
