#include "flash_powder/core/state_dict.h"

namespace fp {

void StateDict::insert(std::string name, Tensor tensor) {
  if (index_.contains(name)) {
    throw Error(ErrorCode::BadArgument,
                "fp::StateDict::insert: the key \"" + name + "\" is already present");
  }
  index_.emplace(name, entries_.size());
  entries_.emplace_back(std::move(name), std::move(tensor));
}

const Tensor& StateDict::at(std::string_view name) const {
  const auto found = index_.find(std::string(name));
  if (found == index_.end()) {
    throw Error(ErrorCode::BadArgument,
                "fp::StateDict::at: no tensor under the key \"" + std::string(name) + "\"");
  }
  return entries_[found->second].second;
}

Tensor& StateDict::at(std::string_view name) {
  return const_cast<Tensor&>(static_cast<const StateDict&>(*this).at(name));
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> names;
  names.reserve(entries_.size());
  for (const auto& [name, tensor] : entries_)
    names.push_back(name);
  return names;
}

std::optional<TensorView> StateDict::find(std::string_view key) const {
  const auto found = index_.find(std::string(key));
  if (found == index_.end()) return std::nullopt;
  return TensorView(entries_[found->second].second);
}

std::string_view name(TensorKind kind) {
  return kind == TensorKind::Parameter ? "parameter" : "buffer";
}

void StateDictView::insert(std::string name, TensorView tensor, TensorKind kind) {
  if (index_.contains(name)) {
    throw Error(ErrorCode::BadArgument,
                "fp::StateDictView::insert: the key \"" + name + "\" is already present");
  }
  index_.emplace(name, entries_.size());
  entries_.emplace_back(std::move(name), std::move(tensor));
  kinds_.push_back(kind);
}

std::size_t StateDictView::position(std::string_view name, const char* operation) const {
  const auto found = index_.find(std::string(name));
  if (found == index_.end()) {
    throw Error(ErrorCode::BadArgument, std::string("fp::StateDictView::") + operation +
                                            ": no tensor under the key \"" + std::string(name) +
                                            "\"");
  }
  return found->second;
}

const TensorView& StateDictView::at(std::string_view name) const {
  return entries_[position(name, "at")].second;
}

TensorKind StateDictView::kind(std::string_view name) const {
  return kinds_[position(name, "kind")];
}

StateDict StateDictView::to_owned() const {
  StateDict owned;
  for (const auto& [name, view] : entries_)
    owned.insert(name, view.to_owned());
  return owned;
}

std::vector<std::string> StateDictView::keys() const {
  std::vector<std::string> names;
  names.reserve(entries_.size());
  for (const auto& [name, view] : entries_)
    names.push_back(name);
  return names;
}

std::optional<TensorView> StateDictView::find(std::string_view key) const {
  const auto found = index_.find(std::string(key));
  if (found == index_.end()) return std::nullopt;
  return entries_[found->second].second;
}

}  // namespace fp
