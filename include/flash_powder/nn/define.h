// FP_MODULE: a module's children and parameters named once, and a forward()
// with any arguments, called like Python's `layer(x, mask)`.
//
//     struct BertLayer : fp::nn::Module {
//       BertAttention attention;
//       BertIntermediate intermediate;
//       BertOutput output;
//       FP_MODULE(attention, intermediate, output)
//       fp::Tensor forward(fp::TensorView x, fp::TensorView mask) const { ... }
//     };
//     fp::Tensor h = layer(x, mask);
//
// forward() may return any type. One that takes a single TensorView and
// returns something other than a Tensor belongs to a module derived from
// fp::nn::ModuleBase (Module's virtual forward has that signature):
//
//     struct TwoHeads : fp::nn::ModuleBase {
//       fp::nn::Linear a{4, 2}, b{4, 3};
//       FP_MODULE(a, b)
//       std::tuple<fp::Tensor, fp::Tensor> forward(fp::TensorView x) const { return {a(x), b(x)}; }
//     };
//     auto [ya, yb] = heads(x);
//
// FP_MODULE(members...) defines visit(), reporting each member under its own
// name: a module as a child, an fp::Tensor as a parameter, a std::optional
// or std::unique_ptr of either when it holds one (Python's None is skipped).
// It also defines operator(), which calls this class's forward with whatever
// arguments it takes. Modules with buffers write visit() themselves and use
// FP_VISIT_MEMBERS inside it and FP_MODULE_CALL() for the call alone:
//
//     void visit(fp::nn::Visitor& v) override {
//       FP_VISIT_MEMBERS(v, word_embeddings, position_embeddings, LayerNorm);
//       v.buffer("position_ids", position_ids, {.persistent = false});
//     }
//     FP_MODULE_CALL()
//
// Errors raised inside a call name the module's place in the model (see
// Module::operator()). https://pytorch.org/docs/stable/generated/torch.nn.Module.html
#pragma once

#include <concepts>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "flash_powder/nn/module.h"

namespace fp::nn::detail {

/// The names in `list` (a macro's stringised arguments, "a, b, c"), one per
/// member; throws fp::Error naming `owner` unless each is a plain identifier
/// and there are `count` of them.
std::vector<std::string_view> member_names(const ModuleBase& owner, std::string_view list,
                                           std::size_t count);

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_unique_ptr : std::false_type {};
template <class T, class D>
struct is_unique_ptr<std::unique_ptr<T, D>> : std::true_type {};

template <class Member>
void visit_member(Visitor& visitor, std::string_view name, Member& member) {
  if constexpr (std::derived_from<Member, ModuleBase>) {
    visitor.child(name, member);
  } else if constexpr (std::same_as<Member, Tensor>) {
    visitor.parameter(name, member);
  } else if constexpr (is_optional<Member>::value || is_unique_ptr<Member>::value) {
    if (member) visit_member(visitor, name, *member);
  } else {
    static_assert(std::derived_from<Member, ModuleBase>,
                  "FP_MODULE / FP_VISIT_MEMBERS: a member must be a module, an fp::Tensor (a "
                  "parameter), or a std::optional or std::unique_ptr of one");
  }
}

template <class... Members>
void visit_members(Visitor& visitor, const ModuleBase& owner, std::string_view list,
                   Members&... members) {
  const std::vector<std::string_view> names = member_names(owner, list, sizeof...(Members));
  std::size_t i = 0;
  (visit_member(visitor, names[i++], members), ...);
}

}  // namespace fp::nn::detail

/// Inside visit(): reports each member to `visitor` under its own name.
#define FP_VISIT_MEMBERS(visitor, ...) \
  ::fp::nn::detail::visit_members(visitor, *this, #__VA_ARGS__ __VA_OPT__(, ) __VA_ARGS__)

/// Defines operator() to call this class's forward(), whatever its
/// arguments (passed on as lvalues: a temporary Tensor becomes a TensorView
/// argument and lives until the call is done). The using-declaration keeps Module's virtual forward visible
/// next to a forward with other arguments (no -Woverloaded-virtual); in a
/// module derived from ModuleBase it names a placeholder nothing can call.
/// forward() may return anything: a Tensor, a tuple, a struct, a map.
#define FP_MODULE_CALL()                                                       \
  using fp_forward_base::forward;                                              \
  template <class... FpArgs>                                                   \
  decltype(auto) operator()(FpArgs&&... fp_args) const {                       \
    return ::fp::nn::detail::call_module(                                      \
        *this, [&]() -> decltype(auto) { return this->forward(fp_args...); }); \
  }

/// visit() over the members named, and operator() (see the top of this file).
#define FP_MODULE(...)                                       \
  void visit(::fp::nn::Visitor& fp_visitor) override {       \
    FP_VISIT_MEMBERS(fp_visitor __VA_OPT__(, ) __VA_ARGS__); \
  }                                                          \
  FP_MODULE_CALL()
