#include "flash_powder/functional/fold.h"

#include "flash_powder/aten/aten.h"

namespace fp::functional {

Tensor unfold(const TensorView& input, nn::ExpandingArray<2> kernel_size,
              const UnfoldOptions& options) {
  return aten::im2col(input, kernel_size.values(), options.dilation.values(),
                      options.padding.values(), options.stride.values());
}

Tensor fold(const TensorView& input, nn::ExpandingArray<2> output_size,
            nn::ExpandingArray<2> kernel_size, const FoldOptions& options) {
  return aten::col2im(input, output_size.values(), kernel_size.values(), options.dilation.values(),
                      options.padding.values(), options.stride.values());
}

}  // namespace fp::functional
