// The calls the per-op leak check (test_leak_check.cpp) loops: every way
// flash_powder's layers and functions hand libtorch an op with a `str`
// argument, each through the public API a user calls, plus string-free
// controls. libtorch 2.10-2.13 leaks one heap std::string per `str` argument
// passed through torch_call_dispatcher (fixed in 2.14).
//
// THIS LIST MUST MATCH the list of ops called with a `str` in
// docs/architecture.md: an op added there (or a new call of such an op in
// src/nn, src/vision, src/image) gets a case here.
#pragma once

#include <flash_powder/flash_powder.h>
#include <flash_powder/library/library.h>

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace leak_test {

/// The tensors the calls work on: small, so a call costs microseconds and
/// the loop measures the call's bookkeeping, not a kernel.
struct Inputs {
  fp::Tensor x = fp::linspace(-2.0, 2.0, 16).reshape({16});              // float32 [16]
  fp::Tensor y = fp::linspace(0.5, 3.0, 16).reshape({16});               // float32 [16], no zero
  fp::Tensor image = fp::linspace(-1.0, 1.0, 48).reshape({1, 3, 4, 4});  // [N, C, H, W]
  fp::Tensor signal = fp::linspace(-1.0, 1.0, 24).reshape({1, 3, 8});    // [N, C, L]
  fp::Tensor volume = fp::linspace(-1.0, 1.0, 81).reshape({1, 1, 3, 3, 9});
  fp::Tensor weight2d = fp::linspace(-0.5, 0.5, 54).reshape({2, 3, 3, 3});
  fp::Tensor weight1d = fp::linspace(-0.5, 0.5, 18).reshape({2, 3, 3});
  fp::Tensor weight3d = fp::linspace(-0.5, 0.5, 8).reshape({1, 1, 2, 2, 2});
  fp::Tensor bias = fp::tensor({0.1f, -0.1f});
  fp::nn::GELU gelu_layer;
  fp::nn::GELU gelu_tanh_layer{"tanh"};
  fp::Tensor sequence = fp::linspace(-1.0, 1.0, 48).reshape({3, 2, 8});  // [S, N, E]
  // Sequence-first: the layer's slow path, which applies the activation itself.
  fp::nn::TransformerEncoderLayer gelu_encoder{8, 2, {.dim_feedforward = 16, .activation = "gelu"}};
  fp::nn::TransformerEncoderLayer gelu_tanh_encoder{
      8, 2, {.dim_feedforward = 16, .activation = fp::nn::GELU("tanh")}};
  fp::nn::Conv2d reflect_conv{3, 2, 3, {.padding = 1, .padding_mode = "reflect"}};
  fp::nn::Conv2d same_conv{3, 2, 3, {.padding = "same"}};
};

/// A custom op with a `str` argument, defined and bound in this process:
/// the string crosses torch_call_dispatcher to a flash_powder kernel.
inline fp::Tensor tagged(fp::TensorView x, std::string_view tag) {
  return tag == "double" ? x * 2.0 : x.to_owned();
}

inline void register_custom_op() {
  static const auto libraries = [] {
    std::vector<fp::library::Library> made;
    made.push_back(fp::library::Library::define("fp_leak_check"));
    made.back().def("tagged(Tensor x, str tag) -> Tensor");
    made.push_back(fp::library::Library::implement("fp_leak_check", fp::library::DispatchKey::CPU));
    made.back().impl<tagged>("tagged");
    return made;
  }();
  (void)libraries;
}

struct LeakCase {
  /// The test's name (letters, digits, underscores).
  std::string name;
  /// What libtorch receives: the op and overload, or "none" for a control
  /// that reaches no `str`.
  std::string op;
  /// How a user calls it.
  std::string call;
  /// Whether a `str` argument crosses torch_call_dispatcher.
  bool passes_string;
  std::function<void(Inputs&)> run;
  /// libtorch's own floor: on a torch that leaks strings (2.10-2.13) no
  /// stable route computes this call with the same bits, so it leaks there
  /// (one std::string, 48 bytes, a call) and nowhere else.
  bool libtorch_floor = false;
};

/// GoogleTest prints a parameter with this: its name, not its bytes.
inline void PrintTo(const LeakCase& leak_case, std::ostream* out) {
  *out << leak_case.name << " (" << leak_case.call << ")";
}

inline std::vector<LeakCase> leak_cases() {
  namespace F = fp::functional;
  using I = Inputs;
  return {
      // --- aten::gelu (str approximate) ---------------------------------------------------
      {"gelu", "aten::gelu", "fp::functional::gelu(x)", true, [](I& in) { (void)F::gelu(in.x); }},
      {"gelu_layer", "aten::gelu", "fp::nn::GELU()(x)", true,
       [](I& in) { (void)in.gelu_layer(in.x); }},
      {"dispatch_gelu", "aten::gelu", "fp::dispatch<fp::Tensor>(\"aten::gelu\", \"\", x)", true,
       [](I& in) { (void)fp::dispatch<fp::Tensor>("aten::gelu", "", in.x); }},
      {"gelu_tanh", "aten::gelu", "fp::functional::gelu(x, {.approximate = \"tanh\"})", true,
       [](I& in) { (void)F::gelu(in.x, {.approximate = "tanh"}); }, true},
      {"gelu_tanh_layer", "aten::gelu", "fp::nn::GELU(\"tanh\")(x)", true,
       [](I& in) { (void)in.gelu_tanh_layer(in.x); }, true},
      {"transformer_gelu_layer", "aten::gelu",
       "fp::nn::TransformerEncoderLayer(8, 2, {.activation = \"gelu\"})(x)", true,
       [](I& in) { (void)in.gelu_encoder(in.sequence); }},
      {"transformer_gelu_tanh_layer", "aten::gelu",
       "fp::nn::TransformerEncoderLayer(8, 2, {.activation = fp::nn::GELU(\"tanh\")})(x)", true,
       [](I& in) { (void)in.gelu_tanh_encoder(in.sequence); }, true},
      {"dispatch_gelu_tanh", "aten::gelu",
       "fp::dispatch<fp::Tensor>(\"aten::gelu\", \"\", x, \"tanh\")", true,
       [](I& in) { (void)fp::dispatch<fp::Tensor>("aten::gelu", "", in.x, "tanh"); }, true},
      // --- aten::div.Tensor_mode / div_.Tensor_mode (str? rounding_mode) --------------------
      {"div_floor", "aten::div.Tensor_mode", "x.div(y, \"floor\")", true,
       [](I& in) { (void)in.x.div(in.y, "floor"); }},
      {"div_trunc", "aten::div.Tensor_mode", "x.div(y, \"trunc\")", true,
       [](I& in) { (void)in.x.div(in.y, "trunc"); }},
      {"div_number_floor", "aten::div.Tensor_mode", "x.div(3.0, \"floor\")", true,
       [](I& in) { (void)in.x.div(3.0, "floor"); }},
      {"div_inplace_floor", "aten::div_.Tensor_mode", "t.div_(y, \"floor\")", true,
       [](I& in) {
         fp::Tensor t = in.x;
         t.div_(in.y, "floor");
       }},
      {"div_inplace_trunc", "aten::div_.Tensor_mode", "t.div_(y, \"trunc\")", true,
       [](I& in) {
         fp::Tensor t = in.x;
         t.div_(in.y, "trunc");
       }},
      {"dispatch_div_floor", "aten::div.Tensor_mode",
       "fp::dispatch<fp::Tensor>(\"aten::div\", \"Tensor_mode\", x, y, \"floor\")", true,
       [](I& in) {
         (void)fp::dispatch<fp::Tensor>("aten::div", "Tensor_mode", in.x, in.y, "floor");
       }},
      // --- aten::pad (str mode) --------------------------------------------------------------
      {"pad_constant", "aten::pad", "fp::functional::pad(x, {1, 1, 1, 1})", true,
       [](I& in) {
         (void)F::pad(in.image, {1, 1, 1, 1});
       }},
      {"pad_reflect", "aten::pad", "fp::functional::pad(x, {1, 1, 1, 1}, {.mode = \"reflect\"})",
       true,
       [](I& in) {
         (void)F::pad(in.image, {1, 1, 1, 1}, {.mode = "reflect"});
       }},
      {"pad_replicate", "aten::pad",
       "fp::functional::pad(x, {1, 1, 1, 1}, {.mode = \"replicate\"})", true,
       [](I& in) {
         (void)F::pad(in.image, {1, 1, 1, 1}, {.mode = "replicate"});
       }},
      {"pad_circular", "aten::pad", "fp::functional::pad(x, {1, 1, 1, 1}, {.mode = \"circular\"})",
       true,
       [](I& in) {
         (void)F::pad(in.image, {1, 1, 1, 1}, {.mode = "circular"});
       }},
      {"conv_reflect_layer", "aten::pad",
       "fp::nn::Conv2d(3, 2, 3, {.padding = 1, .padding_mode = \"reflect\"})(x)", true,
       [](I& in) { (void)in.reflect_conv(in.image); }},
      // --- aten::conv1d/2d/3d.padding (str padding) -----------------------------------------
      {"conv2d_same", "aten::conv2d.padding",
       "fp::functional::conv2d(x, w, b, {.padding = \"same\"})", true,
       [](I& in) { (void)F::conv2d(in.image, in.weight2d, in.bias, {.padding = "same"}); }},
      {"conv2d_valid", "aten::conv2d.padding",
       "fp::functional::conv2d(x, w, b, {.padding = \"valid\"})", true,
       [](I& in) { (void)F::conv2d(in.image, in.weight2d, in.bias, {.padding = "valid"}); }},
      {"conv1d_same", "aten::conv1d.padding",
       "fp::functional::conv1d(x, w, b, {.padding = \"same\"})", true,
       [](I& in) { (void)F::conv1d(in.signal, in.weight1d, in.bias, {.padding = "same"}); }},
      {"conv3d_same", "aten::conv3d.padding",
       "fp::functional::conv3d(x, w, std::nullopt, {.padding = \"same\"})", true,
       [](I& in) { (void)F::conv3d(in.volume, in.weight3d, std::nullopt, {.padding = "same"}); }},
      {"conv2d_same_layer", "aten::conv2d.padding",
       "fp::nn::Conv2d(3, 2, 3, {.padding = \"same\"})(x)", true,
       [](I& in) { (void)in.same_conv(in.image); }},
      // --- a custom op with a str, through the dispatcher to a flash_powder kernel ----------
      {"custom_op_str", "fp_leak_check::tagged",
       "fp::dispatch<fp::Tensor>(\"fp_leak_check::tagged\", \"\", x, \"double\")", true,
       [](I& in) {
         register_custom_op();
         (void)fp::dispatch<fp::Tensor>("fp_leak_check::tagged", "", in.x, "double");
       },
       true},
      // --- interpolate: the user passes a mode string, libtorch gets none -------------------
      {"interpolate_nearest", "aten::upsample_nearest2d.vec",
       "fp::functional::interpolate(x, {.size = {8, 8}})", false,
       [](I& in) {
         (void)F::interpolate(in.image, {.size = {8, 8}});
       }},
      {"interpolate_nearest_exact", "aten::_upsample_nearest_exact2d.vec",
       "fp::functional::interpolate(x, {.size = {8, 8}, .mode = \"nearest-exact\"})", false,
       [](I& in) {
         (void)F::interpolate(in.image, {.size = {8, 8}, .mode = "nearest-exact"});
       }},
      {"interpolate_bilinear", "aten::upsample_bilinear2d.vec",
       "fp::functional::interpolate(x, {.scale_factor = 2.0, .mode = \"bilinear\"})", false,
       [](I& in) { (void)F::interpolate(in.image, {.scale_factor = 2.0, .mode = "bilinear"}); }},
      {"interpolate_bicubic", "aten::upsample_bicubic2d.vec",
       "fp::functional::interpolate(x, {.size = {8, 8}, .mode = \"bicubic\", .align_corners = "
       "true})",
       false,
       [](I& in) {
         (void)F::interpolate(in.image, {.size = {8, 8}, .mode = "bicubic", .align_corners = true});
       }},
      {"interpolate_bilinear_antialias", "aten::_upsample_bilinear2d_aa.vec",
       "fp::functional::interpolate(x, {.size = {2, 2}, .mode = \"bilinear\", .antialias = true})",
       false,
       [](I& in) {
         (void)F::interpolate(in.image, {.size = {2, 2}, .mode = "bilinear", .antialias = true});
       }},
      {"interpolate_area", "aten::adaptive_avg_pool2d",
       "fp::functional::interpolate(x, {.size = {2, 2}, .mode = \"area\"})", false,
       [](I& in) {
         (void)F::interpolate(in.image, {.size = {2, 2}, .mode = "area"});
       }},
      // --- string-free controls: must pass on every torch ------------------------------------
      {"control_div", "aten::div.Tensor", "x.div(y)", false, [](I& in) { (void)in.x.div(in.y); }},
      {"control_relu", "aten::relu", "fp::functional::relu(x)", false,
       [](I& in) { (void)F::relu(in.x); }},
      {"control_add", "aten::add.Tensor", "x + y", false, [](I& in) { (void)(in.x + in.y); }},
      {"control_conv2d", "aten::conv2d", "fp::functional::conv2d(x, w, b, {.padding = 1})", false,
       [](I& in) { (void)F::conv2d(in.image, in.weight2d, in.bias, {.padding = 1}); }},
      {"control_dispatch_flip", "aten::flip",
       "fp::dispatch<fp::Tensor>(\"aten::flip\", \"\", x, std::vector<int64_t>{0})", false,
       [](I& in) {
         (void)fp::dispatch<fp::Tensor>("aten::flip", "", in.x, std::vector<std::int64_t>{0});
       }},
  };
}

}  // namespace leak_test
