// The smallest flash_powder program: make a tensor, run an ATen op on it
// through libtorch's stable C ABI, read the result back.
//
//     build/examples/quickstart/fp_quickstart
//
// scripts/demo runs it next to quickstart.py, the same computation in Python.
#include <flash_powder/flash_powder.h>

#include <iostream>

int main() {
  try {
    // A 1x1x4x4 image holding 1..16, and a 2x2 kernel, as in quickstart.py.
    const fp::Tensor image = fp::tensor({{{{1.f, 2.f, 3.f, 4.f},
                                           {5.f, 6.f, 7.f, 8.f},
                                           {9.f, 10.f, 11.f, 12.f},
                                           {13.f, 14.f, 15.f, 16.f}}}});
    const fp::Tensor kernel = fp::tensor({{{{1.f, 2.f}, {3.f, 4.f}}}});

    // Any ATen op can be called by name; arguments follow its schema, and
    // trailing ones with defaults (stride, padding, ...) may be left out.
    const fp::Tensor result = fp::dispatch<fp::Tensor>("aten::conv2d", "", image, kernel);

    std::cout << "torch " << fp::torch_version().str() << " (built against "
              << fp::torch_build_version().str() << ")\n";
    std::cout << "conv2d -> shape [";
    for (std::size_t d = 0; d < result.sizes().size(); ++d) {
      std::cout << (d ? ", " : "") << result.sizes()[d];
    }
    std::cout << "], values";
    for (float value : result.to_vector<float>())
      std::cout << ' ' << value;
    std::cout << '\n';
    return 0;
  } catch (const fp::Error& error) {
    std::cerr << "fp_quickstart: " << error.what() << '\n';
    return 1;
  }
}
