#include "package_reader.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "elf_imports.h"
#include "flash_powder/base/error.h"
#include "messages.h"
#include "metadata_json.h"

namespace fp::aoti::detail {
namespace {

constexpr std::string_view kModelsDir = "data/aotinductor/";
constexpr std::string_view kSignaturePath = "extra/flash_powder.json";

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

// Entry names are "<root>/<path>": PyTorch writes every entry under one
// top-level folder named after the file. Returns <path>, or empty.
std::string_view inner_path(std::string_view name) {
  const auto slash = name.find('/');
  return slash == std::string_view::npos ? std::string_view{} : name.substr(slash + 1);
}

std::set<std::string> model_names(const ZipArchive& archive) {
  std::set<std::string> names;
  for (const auto& entry : archive.entries()) {
    std::string_view path = inner_path(entry.name);
    if (!path.starts_with(kModelsDir)) continue;
    path.remove_prefix(kModelsDir.size());
    const auto slash = path.find('/');
    if (slash != std::string_view::npos && slash > 0) names.emplace(path.substr(0, slash));
  }
  return names;
}

std::string choose_model(const ZipArchive& archive, const std::string& wanted) {
  const std::set<std::string> names = model_names(archive);
  std::string listed;
  for (const auto& name : names)
    listed += (listed.empty() ? "" : ", ") + in_quotes(name);
  if (names.empty())
    throw Error(
        ErrorCode::Format,
        message_prefix(archive.source()) +
            "no AOTInductor model in the package (no data/aotinductor/<model>/ entries); "
            "write it with torch._inductor.aoti_compile_and_package or tools/export_aoti.py");
  if (wanted.empty()) {
    if (names.size() == 1) return *names.begin();
    throw Error(ErrorCode::Format, message_prefix(archive.source()) +
                                       "the package holds several models (" + listed +
                                       "); choose one with Options::model_name");
  }
  if (!names.contains(wanted))
    throw Error(ErrorCode::Format, message_prefix(archive.source()) + "no model " +
                                       in_quotes(wanted) + " in the package; it holds " + listed);
  return wanted;
}

// The model's entries: its folder's files, keyed by file name.
std::map<std::string, const ZipEntry*> model_files(const ZipArchive& archive,
                                                   const std::string& model) {
  const std::string prefix = std::string(kModelsDir) + model + "/";
  std::map<std::string, const ZipEntry*> files;
  for (const auto& entry : archive.entries()) {
    const std::string_view path = inner_path(entry.name);
    if (path.starts_with(prefix) && path.size() > prefix.size())
      files.emplace(std::string(path.substr(prefix.size())), &entry);
  }
  return files;
}

const ZipEntry* only_one(const std::map<std::string, const ZipEntry*>& files,
                         std::string_view suffix, std::string_view preferred,
                         const std::string& source, const char* what) {
  std::vector<const ZipEntry*> found;
  for (const auto& [name, entry] : files) {
    if (ends_with(name, preferred)) return entry;
    if (ends_with(name, suffix)) found.push_back(entry);
  }
  if (found.size() > 1)
    throw Error(ErrorCode::Format, message_prefix(source) + "the model has several " + what +
                                       " files (" + in_quotes(found[0]->name) + ", " +
                                       in_quotes(found[1]->name) + ")");
  return found.empty() ? nullptr : found.front();
}

const ZipEntry* signature_entry(const ZipArchive& archive) {
  for (const auto& entry : archive.entries())
    if (inner_path(entry.name) == kSignaturePath) return &entry;
  return nullptr;
}

}  // namespace

PackageContents read_package(const ZipArchive& archive, const std::string& model_name) {
  const std::string& source = archive.source();
  PackageContents contents;
  contents.model_name = choose_model(archive, model_name);
  const auto files = model_files(archive, contents.model_name);

  const ZipEntry* library = only_one(files, ".so", ".wrapper.so", source, "library (.so)");
  if (library == nullptr)
    throw Error(ErrorCode::Format,
                message_prefix(source) + "the model " + in_quotes(contents.model_name) +
                    " has no compiled library (.so); it was packaged without compiling "
                    "(aot_inductor.package_cpp_only) and must be compiled first");
  contents.library = archive.read(*library);
  contents.imports = elf_imports(contents.library, source);

  if (const ZipEntry* metadata =
          only_one(files, "_metadata.json", ".wrapper_metadata.json", source, "metadata"))
    contents.metadata = parse_metadata(archive.read_text(*metadata), source);
  if (const ZipEntry* blob = only_one(files, ".blob", ".wrapper_weights.blob", source, "weights"))
    contents.weights_blob = archive.read(*blob);
  // The proxy executor's op list: "<hash>.json" beside the library, or
  // "<hash>.wrapper.json" (torch 2.8+), never a metadata file.
  for (const auto& [name, entry] : files) {
    if (ends_with(name, ".json") && !ends_with(name, "_metadata.json") &&
        name != "weights_config.json") {
      const auto ops = parse_proxy_ops(archive.read_text(*entry), source);
      contents.proxy_ops.insert(contents.proxy_ops.end(), ops.begin(), ops.end());
    }
  }
  for (const auto& [name, entry] : files) {
    if (ends_with(name, ".cubin") || ends_with(name, ".fatbin") || ends_with(name, ".hsaco"))
      contents.kernel_files.push_back(name);
    if (name == "weights_config.json") contents.pickled_weights = true;
  }
  if (const ZipEntry* signature = signature_entry(archive))
    contents.signature = parse_signature(archive.read_text(*signature), source);
  return contents;
}

}  // namespace fp::aoti::detail
