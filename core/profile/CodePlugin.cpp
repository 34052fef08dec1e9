#include "profile/CodePlugin.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>
#include <set>

#include "profile/PluginAbi.h"
#include "profile/PluginCall.hpp"
#include "profile/ProfileCostHooks.hpp"

namespace ts {
namespace fs = std::filesystem;

ProfileLoadError::ProfileLoadError(const std::string& path, const std::string& problem)
    : std::runtime_error(path + ": " + problem), path_(path), problem_(problem) {}

namespace {

// dlerror() starts with the library's path ("/x/a.so: invalid ELF header"); the error line
// names the path once, so that prefix goes.
std::string dl_problem(const std::string& path) {
  const char* raw = dlerror();
  std::string text = raw != nullptr ? raw : "unknown dlopen failure";
  if (text.rfind(path + ": ", 0) == 0) text.erase(0, path.size() + 2);
  return text;
}

std::string plugin_text(const char* text) { return text != nullptr ? text : ""; }

PluginAnswer::Variant copy_variant(const TilescopeVariantV1& raw) {
  return {plugin_text(raw.name), plugin_text(raw.arch_file), raw.fitted != 0,
          plugin_text(raw.provenance)};
}

ProfileVariant judge_variant(const std::string& path, const fs::path& folder,
                             const PluginAnswer::Variant& raw, size_t index) {
  ProfileVariant v;
  v.name = raw.name;
  if (!is_profile_name(v.name))
    throw ProfileLoadError(path,
                           fmt::format("variant {} has no usable name ('{}'; letters, digits, "
                                       "'-', '_' and '.')",
                                       index, v.name));
  if (raw.arch_file.empty())
    throw ProfileLoadError(path, fmt::format("variant {} names no architecture file", v.name));
  const fs::path arch = raw.arch_file;
  const fs::path resolved = arch.is_absolute() ? arch : folder / arch;
  std::error_code ec;
  if (!fs::is_regular_file(resolved, ec))
    throw ProfileLoadError(path, fmt::format("variant {}: architecture file {} not found (paths "
                                             "are relative to the library's folder)",
                                             v.name, resolved.lexically_normal().string()));
  v.arch_file = resolved.lexically_normal().string();
  v.fitted = raw.fitted;
  v.provenance = raw.provenance;
  return v;
}

// Each library once: the handle stays open (what it returned is static data, and a refused
// library may have registered atexit handlers).
std::mutex g_open_mutex;
std::set<std::string> g_hooks_loaded;

std::string open_name(const std::string& path) {
  // dlopen searches the library path for a bare name: "./" keeps it to this file.
  return fs::path(path).has_parent_path() ? path : "./" + path;
}

// Opening and the entry point, in this process, each under a PluginCall (a crash in them names
// the library): throws ProfileLoadError.
PluginAnswer answer_in_this_process(const std::string& path) {
  void* handle = nullptr;
  {
    const PluginCall call(path, "its static constructors (dlopen)");
    if (std::string problem = open_plugin_library(path, &handle); !problem.empty())
      throw ProfileLoadError(path, problem);
  }
  const PluginCall call(path, "its entry point");
  const void* raw = nullptr;
  uint32_t abi_version = 0;
  if (std::string problem = call_plugin_entry_point(path, handle, &raw, &abi_version);
      !problem.empty())
    throw ProfileLoadError(path, problem);
  PluginAnswer answer;
  if (std::string problem = read_plugin_answer(raw, abi_version, &answer); !problem.empty())
    throw ProfileLoadError(path, problem);
  return answer;
}

std::vector<PluginHookFunction> hook_functions(const PluginAnswer& answer) {
  std::vector<PluginHookFunction> hooks;
  for (const PluginAnswer::Hook& h : answer.cost_hooks)
    hooks.push_back({h.name, h.seconds, h.user});
  return hooks;
}

}  // namespace

std::string open_plugin_library(const std::string& path, void** handle) {
  const std::string name = open_name(path);
  dlerror();
  *handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (*handle == nullptr) return "not a loadable shared library: " + dl_problem(name);
  return "";
}

std::string call_plugin_entry_point(const std::string& path, void* handle, const void** raw,
                                    uint32_t* abi_version) {
  (void)path;
  dlerror();
  void* symbol = dlsym(handle, TILESCOPE_PROFILE_ENTRY_POINT);
  if (symbol == nullptr)
    return "exports no `" TILESCOPE_PROFILE_ENTRY_POINT "` entry point (not a tilescope plugin?)";
  const auto entry = reinterpret_cast<TilescopeProfileEntryV1>(symbol);
  *abi_version = 0;
  *raw = entry(abi_version);
  // Checked before any field of the answer is read: a plugin of another ABI may lay it out
  // otherwise.
  if (*abi_version < TILESCOPE_PROFILE_OLDEST_ABI_VERSION ||
      *abi_version > TILESCOPE_PROFILE_ABI_VERSION)
    return fmt::format(
        "built for plugin ABI version {}, this tilescope reads versions {} to {}; rebuild it "
        "against this tilescope",
        *abi_version, TILESCOPE_PROFILE_OLDEST_ABI_VERSION, TILESCOPE_PROFILE_ABI_VERSION);
  if (*raw == nullptr) return "the entry point returned no profile";
  return "";
}

std::string read_plugin_answer(const void* raw_answer, uint32_t abi_version, PluginAnswer* answer) {
  const auto* raw = static_cast<const TilescopeProfileV1*>(raw_answer);
  PluginAnswer a;
  a.abi_version = abi_version;
  a.name = plugin_text(raw->name);
  a.version = plugin_text(raw->version);
  a.description = plugin_text(raw->description);
  if (raw->variant_count == 0 || raw->variants == nullptr)
    return "the profile has no variants (at least one architecture graph)";
  for (uint32_t i = 0; i < raw->variant_count; ++i)
    a.variants.push_back(copy_variant(raw->variants[i]));
  if (raw->default_variant != nullptr) a.default_variant = raw->default_variant;
  // Version 2 begins with version 1's fields, so the cast reads the same bytes as `raw`.
  if (abi_version >= 2) {
    const auto* v2 = static_cast<const TilescopeProfileV2*>(raw_answer);
    if (v2->cost_hook_count > 0 && v2->cost_hooks == nullptr)
      return fmt::format("the profile counts {} cost hooks but lists none", v2->cost_hook_count);
    for (uint32_t i = 0; i < v2->cost_hook_count; ++i) {
      const TilescopeCostHookV2& h = v2->cost_hooks[i];
      a.cost_hooks.push_back({plugin_text(h.name), h.seconds, h.user});
      if (h.seconds == nullptr)
        return fmt::format("cost hook {} has no function", a.cost_hooks.back().name);
    }
  }
  *answer = std::move(a);
  return "";
}

Profile profile_from_answer(const fs::path& library, const PluginAnswer& answer) {
  const std::string path = library.string();
  Profile p;
  p.kind = ProfileKind::code;
  p.origin = path;
  p.name = answer.name;
  if (!is_profile_name(p.name))
    throw ProfileLoadError(path, fmt::format("profile name '{}' may hold only letters, digits, "
                                             "'-', '_' and '.'",
                                             p.name));
  p.profile_version = answer.version;
  p.description = answer.description;
  if (answer.variants.empty())
    throw ProfileLoadError(path, "the profile has no variants (at least one architecture graph)");
  const fs::path folder = fs::absolute(library).parent_path();
  for (size_t i = 0; i < answer.variants.size(); ++i) {
    ProfileVariant v = judge_variant(path, folder, answer.variants[i], i);
    if (p.variant(v.name))
      throw ProfileLoadError(path, fmt::format("variant {} appears twice", v.name));
    p.variants.push_back(std::move(v));
  }
  p.default_variant = answer.default_variant.value_or(p.variants[0].name);
  if (!p.variant(p.default_variant))
    throw ProfileLoadError(
        path, fmt::format("default variant '{}' is not one of its variants", p.default_variant));
  for (size_t i = 0; i < answer.cost_hooks.size(); ++i) {
    const std::string& name = answer.cost_hooks[i].name;
    if (!is_profile_name(name))
      throw ProfileLoadError(path, fmt::format("cost hook {} has no usable name ('{}'; letters, "
                                               "digits, '-', '_' and '.')",
                                               i, name));
    p.cost_hooks.push_back(name);
  }
  return p;
}

Profile load_code_plugin(const fs::path& library) {
  const std::string path = library.string();
  std::lock_guard lock(g_open_mutex);
  const PluginAnswer answer = answer_in_this_process(path);
  Profile p = profile_from_answer(library, answer);
  // Checks every hook before registering any, so that a refused plugin leaves none behind.
  provide_plugin_cost_hooks(path, hook_functions(answer));
  g_hooks_loaded.insert(path);
  return p;
}

void load_plugin_cost_hooks(const std::string& library) {
  std::lock_guard lock(g_open_mutex);
  if (g_hooks_loaded.count(library)) return;
  provide_plugin_cost_hooks(library, hook_functions(answer_in_this_process(library)));
  g_hooks_loaded.insert(library);
}

}  // namespace ts
