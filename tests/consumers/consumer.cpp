// The program of a project that uses flash_powder, built by each of
// tests/consumers/*: a Linear layer with known weights and a ReLU (nn), its
// input from factories and ops. It prints the torch it loaded and the output
// with every digit a float32 needs; tests/consumers/check_consumer.py
// computes the same in PyTorch and compares.
#include <flash_powder/flash_powder.h>

#include <cstdio>

int main() {
  try {
    fp::nn::Linear layer{4, 3};
    fp::StateDict weights;
    weights.insert("weight", fp::arange(12.f).sin().reshape({3, 4}));
    weights.insert("bias", fp::arange(3.f).cos());
    layer.load_state_dict(weights);

    const fp::Tensor input = fp::linspace(-1.0, 1.0, 8).reshape({2, 4});
    const fp::Tensor output = fp::functional::relu(layer(input));

    std::printf("torch %s\n", fp::torch_version().str().c_str());
    for (float value : output.to_vector<float>())
      std::printf("%.9g\n", static_cast<double>(value));
    return 0;
  } catch (const fp::Error& error) {
    std::fprintf(stderr, "consumer: %s\n", error.what());
    return 1;
  }
}
