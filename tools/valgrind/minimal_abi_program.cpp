// A program that only calls libtorch's stable C ABI, the way flash_powder does,
// with nothing of flash_powder in it. Whatever valgrind reports for it belongs
// to libtorch; tools/valgrind/regenerate turns those reports into the
// suppressions the test suite runs with (libtorch.supp).
//
// It exercises each kind of call the library makes: tensor creation and
// deletion, metadata, data pointers, copies, from_blob, and dispatcher calls
// with every argument kind but strings (optional, list, enums), reductions and
// kernels that start libtorch's thread pools.
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/c/shim.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

void check(AOTITorchError status, const char* what) {
  if (status != AOTI_TORCH_SUCCESS) {
    std::fprintf(stderr, "minimal_abi_program: %s failed: %s\n", what,
                 torch_exception_get_what_without_backtrace());
    std::exit(1);
  }
}

AtenTensorHandle make(std::vector<int64_t> sizes, int32_t dtype) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (std::size_t d = sizes.size(); d-- > 1;)
    strides[d - 1] = strides[d] * sizes[d];
  AtenTensorHandle tensor = nullptr;
  check(aoti_torch_empty_strided(static_cast<int64_t>(sizes.size()), sizes.data(), strides.data(),
                                 dtype, aoti_torch_device_type_cpu(), 0, &tensor),
        "empty_strided");
  void* data = nullptr;
  check(torch_get_mutable_data_ptr(tensor, &data), "data");
  int64_t numel = 0;
  check(aoti_torch_get_numel(tensor, &numel), "numel");
  std::memset(data, 0, static_cast<std::size_t>(numel) * aoti_torch_dtype_element_size(dtype));
  return tensor;
}

StableIValue tensor_arg(AtenTensorHandle tensor) {
  AtenTensorHandle shared = nullptr;
  check(aoti_torch_new_tensor_handle(tensor, &shared), "new_tensor_handle");
  StableIValue value = 0;
  std::memcpy(&value, &shared, sizeof(shared));
  return value;
}

StableIValue int_list(std::vector<int64_t> values) {
  StableListHandle list = nullptr;
  check(torch_new_list_reserve_size(values.size(), &list), "new_list");
  for (int64_t v : values) {
    StableIValue item = 0;
    std::memcpy(&item, &v, sizeof(v));
    check(torch_list_push_back(list, item), "push_back");
  }
  StableIValue value = 0;
  std::memcpy(&value, &list, sizeof(list));
  return value;
}

StableIValue optional_arg(StableIValue inner) {
  auto* box = new StableIValue(inner);  // what libtorch 2.11-2.12 frees with delete
  StableIValue value = 0;
  std::memcpy(&value, &box, sizeof(box));
  return value;
}

StableIValue tensor_list(std::vector<AtenTensorHandle> tensors, bool optional_items) {
  StableListHandle list = nullptr;
  check(torch_new_list_reserve_size(tensors.size(), &list), "new_list");
  for (AtenTensorHandle tensor : tensors) {
    StableIValue item = tensor == nullptr ? 0 : tensor_arg(tensor);
    if (optional_items && tensor != nullptr) item = optional_arg(item);
    check(torch_list_push_back(list, item), "push_back");
  }
  StableIValue value = 0;
  std::memcpy(&value, &list, sizeof(list));
  return value;
}

StableIValue int32_arg(int32_t code) {
  StableIValue value = 0;
  std::memcpy(&value, &code, sizeof(code));
  return value;
}

StableIValue int64_arg(int64_t value) {
  StableIValue item = 0;
  std::memcpy(&item, &value, sizeof(value));
  return item;
}

StableIValue double_arg(double value) {
  StableIValue item = 0;
  std::memcpy(&item, &value, sizeof(value));
  return item;
}

void free_returned_tensors(StableIValue* stack, int count) {
  for (int i = 0; i < count; ++i) {
    AtenTensorHandle tensor = nullptr;
    std::memcpy(&tensor, &stack[i], sizeof(tensor));
    if (tensor != nullptr) aoti_torch_delete_tensor_object(tensor);
  }
}

void call(const char* op, const char* overload, std::vector<StableIValue> stack, int returns) {
  if (static_cast<int>(stack.size()) < returns) stack.resize(returns, 0);
  check(torch_call_dispatcher(op, overload, stack.data(), TORCH_ABI_VERSION), op);
  free_returned_tensors(stack.data(), returns);
}

void call_expecting_failure(const char* op, std::vector<StableIValue> stack) {
  if (torch_call_dispatcher(op, "", stack.data(), TORCH_ABI_VERSION) == AOTI_TORCH_SUCCESS) {
    std::fprintf(stderr, "minimal_abi_program: %s was expected to fail\n", op);
    std::exit(1);
  }
}

void count_deleter(void*, void* context) {
  ++*static_cast<int*>(context);
}

}  // namespace

int main() {
  const int32_t f32 = aoti_torch_dtype_float32();
  AtenTensorHandle a = make({4, 8}, f32);
  AtenTensorHandle b = make({8, 4}, f32);
  AtenTensorHandle index = make({2}, aoti_torch_dtype_int64());

  // Kernels, reductions and BLAS: the thread pools start here.
  call("aten::neg", "", {tensor_arg(a)}, 1);
  call("aten::mm", "", {tensor_arg(a), tensor_arg(b)}, 1);
  // A GEMM large enough for MKL's threaded driver and its per-thread buffers.
  AtenTensorHandle wide = make({16, 128}, f32);
  AtenTensorHandle tall = make({128, 64}, f32);
  call("aten::mm", "", {tensor_arg(wide), tensor_arg(tall)}, 1);
  AtenTensorHandle wide64 = make({16, 128}, aoti_torch_dtype_float64());
  AtenTensorHandle tall64 = make({128, 64}, aoti_torch_dtype_float64());
  call("aten::mm", "", {tensor_arg(wide64), tensor_arg(tall64)}, 1);
  call("aten::max", "dim", {tensor_arg(a), int32_arg(1), int32_arg(0)}, 2);
  // Optional arguments: None, and a boxed value.
  call("aten::sum", "dim_IntList", {tensor_arg(a), 0, int32_arg(0), 0}, 1);
  call("aten::sum", "dim_IntList",
       {tensor_arg(a), optional_arg(int_list({1})), int32_arg(1), optional_arg(int32_arg(f32))}, 1);
  // Lists of tensors, with and without None items.
  call("aten::flip", "", {tensor_arg(a), int_list({0})}, 1);
  call("aten::cat", "", {tensor_list({a, a}, false), 0}, 1);
  call("aten::index", "Tensor", {tensor_arg(a), tensor_list({nullptr, index}, true)}, 1);
  // bfloat16 cosine_similarity: libtorch converts its eps (a wrapped double)
  // to bfloat16 in a copy kernel that memcheck sees branch on uninitialised bits.
  AtenTensorHandle brain1 = make({4, 5}, aoti_torch_dtype_bfloat16());
  AtenTensorHandle brain2 = make({4, 5}, aoti_torch_dtype_bfloat16());
  call("aten::cosine_similarity", "",
       {tensor_arg(brain1), tensor_arg(brain2), int64_arg(1), double_arg(1e-8)}, 1);
  aoti_torch_delete_tensor_object(brain1);
  aoti_torch_delete_tensor_object(brain2);
  // No string argument: libtorch 2.10-2.13 leaks one std::string for each
  // (fixed in 2.14). flash_powder sends none through torch_call_dispatcher on
  // those releases for the ops it calls (src/aten/string_free.h), so that
  // leak is left unsuppressed for the valgrind lane to catch.
  // Factories with dtype, layout, device and memory format.
  const StableIValue cpu = static_cast<StableIValue>(static_cast<uint32_t>(-1)) |
                           (static_cast<StableIValue>(aoti_torch_device_type_cpu()) << 32);
  call("aten::empty", "memory_format",
       {int_list({2, 2}), optional_arg(int32_arg(f32)),
        optional_arg(int32_arg(aoti_torch_layout_strided())), optional_arg(cpu), 0, 0},
       1);
  const StableIValue meta = static_cast<StableIValue>(static_cast<uint32_t>(-1)) |
                            (static_cast<StableIValue>(aoti_torch_device_type_meta()) << 32);
  call("aten::empty", "memory_format",
       {int_list({2, 3}), optional_arg(int32_arg(f32)), 0, optional_arg(meta), 0, 0}, 1);
  call("aten::_to_copy", "",
       {tensor_arg(a), optional_arg(int32_arg(aoti_torch_dtype_float64())), 0, optional_arg(cpu), 0,
        int32_arg(0), optional_arg(int32_arg(aoti_torch_memory_format_contiguous_format()))},
       1);
  call("aten::_lazy_clone", "", {tensor_arg(a)}, 1);
  call("aten::clone", "", {tensor_arg(a), 0}, 1);
  check(aoti_torch_copy_(a, a, 0), "copy_");

  // Foreign memory with a deleter.
  static float memory[6] = {};
  int deleted = 0;
  const int64_t sizes[] = {6};
  const int64_t strides[] = {1};
  AtenTensorHandle blob = nullptr;
  check(torch_from_blob(memory, 1, sizes, strides, 0, f32, aoti_torch_device_type_cpu(), -1, &blob,
                        aoti_torch_layout_strided(), nullptr, 0, count_deleter, &deleted),
        "from_blob");
  call("aten::clone", "", {tensor_arg(blob), 0}, 1);
  aoti_torch_delete_tensor_object(blob);

  // A failing call: libtorch records its message for the thread.
  call_expecting_failure("aten::mm", {tensor_arg(a), tensor_arg(a)});
  if (torch_exception_get_what_without_backtrace() == nullptr) return 1;

  aoti_torch_delete_tensor_object(a);
  aoti_torch_delete_tensor_object(b);
  aoti_torch_delete_tensor_object(index);
  aoti_torch_delete_tensor_object(wide);
  aoti_torch_delete_tensor_object(tall);
  aoti_torch_delete_tensor_object(wide64);
  aoti_torch_delete_tensor_object(tall64);
  return deleted == 1 ? 0 : 1;
}
