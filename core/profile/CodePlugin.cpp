#include "profile/CodePlugin.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include "arch/CostHooks.hpp"
#include "profile/PluginAbi.h"

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

std::string plain_text(const char* text) { return text != nullptr ? text : ""; }

ProfileVariant read_variant(const std::string& path, const fs::path& folder,
                            const TilescopeVariantV1& raw, uint32_t index) {
  ProfileVariant v;
  v.name = plain_text(raw.name);
  if (!is_profile_name(v.name))
    throw ProfileLoadError(path,
                           fmt::format("variant {} has no usable name ('{}'; letters, digits, "
                                       "'-', '_' and '.')",
                                       index, v.name));
  const std::string arch = plain_text(raw.arch_file);
  if (arch.empty())
    throw ProfileLoadError(path, fmt::format("variant {} names no architecture file", v.name));
  const fs::path resolved = fs::path(arch).is_absolute() ? fs::path(arch) : folder / arch;
  std::error_code ec;
  if (!fs::is_regular_file(resolved, ec))
    throw ProfileLoadError(path, fmt::format("variant {}: architecture file {} not found (paths "
                                             "are relative to the library's folder)",
                                             v.name, resolved.lexically_normal().string()));
  v.arch_file = resolved.lexically_normal().string();
  v.fitted = raw.fitted != 0;
  v.provenance = plain_text(raw.provenance);
  return v;
}

// Checks every hook before registering any, so that a refused plugin leaves none behind.
std::vector<std::string> register_cost_hooks(const std::string& path,
                                             const TilescopeProfileV2& raw) {
  if (raw.cost_hook_count > 0 && raw.cost_hooks == nullptr)
    throw ProfileLoadError(
        path, fmt::format("the profile counts {} cost hooks but lists none", raw.cost_hook_count));
  std::vector<ComputeCostHook> hooks;
  for (uint32_t i = 0; i < raw.cost_hook_count; ++i) {
    const TilescopeCostHookV2& h = raw.cost_hooks[i];
    ComputeCostHook hook{plain_text(h.name), h.seconds, h.user, path};
    if (!is_profile_name(hook.name))
      throw ProfileLoadError(path, fmt::format("cost hook {} has no usable name ('{}'; letters, "
                                               "digits, '-', '_' and '.')",
                                               i, hook.name));
    if (hook.seconds == nullptr)
      throw ProfileLoadError(path, fmt::format("cost hook {} has no function", hook.name));
    if (const auto known = find_registered_cost_hook(hook.name); known && known->provider != path)
      throw ProfileLoadError(
          path, fmt::format("cost hook {} is already provided by {}", hook.name, known->provider));
    hooks.push_back(std::move(hook));
  }
  std::vector<std::string> names;
  for (const ComputeCostHook& hook : hooks) {
    register_cost_hook(hook);
    names.push_back(hook.name);
  }
  return names;
}

}  // namespace

Profile load_code_plugin(const fs::path& library) {
  const std::string path = library.string();
  // dlopen searches the library path for a bare name: "./" keeps it to this file.
  const std::string open_name = library.has_parent_path() ? path : "./" + path;
  dlerror();
  void* handle = dlopen(open_name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr)
    throw ProfileLoadError(path, "not a loadable shared library: " + dl_problem(open_name));
  dlerror();
  void* symbol = dlsym(handle, TILESCOPE_PROFILE_ENTRY_POINT);
  if (symbol == nullptr) {
    dlclose(handle);
    throw ProfileLoadError(path, "exports no `" TILESCOPE_PROFILE_ENTRY_POINT
                                 "` entry point (not a tilescope plugin?)");
  }
  const auto entry = reinterpret_cast<TilescopeProfileEntryV1>(symbol);
  uint32_t abi_version = 0;
  const TilescopeProfileV1* raw = entry(&abi_version);
  // Checked before any field of `raw` is read: a plugin of another ABI may lay it out otherwise.
  // The handle stays open: a refused library may have registered atexit handlers.
  if (abi_version < TILESCOPE_PROFILE_OLDEST_ABI_VERSION ||
      abi_version > TILESCOPE_PROFILE_ABI_VERSION)
    throw ProfileLoadError(path, fmt::format("built for plugin ABI version {}, this tilescope "
                                             "reads versions {} to {}; rebuild it against this "
                                             "tilescope",
                                             abi_version, TILESCOPE_PROFILE_OLDEST_ABI_VERSION,
                                             TILESCOPE_PROFILE_ABI_VERSION));
  if (raw == nullptr) throw ProfileLoadError(path, "the entry point returned no profile");
  Profile p;
  p.kind = ProfileKind::code;
  p.origin = path;
  p.name = plain_text(raw->name);
  if (!is_profile_name(p.name))
    throw ProfileLoadError(path, fmt::format("profile name '{}' may hold only letters, digits, "
                                             "'-', '_' and '.'",
                                             p.name));
  p.profile_version = plain_text(raw->version);
  p.description = plain_text(raw->description);
  if (raw->variant_count == 0 || raw->variants == nullptr)
    throw ProfileLoadError(path, "the profile has no variants (at least one architecture graph)");
  const fs::path folder = fs::absolute(library).parent_path();
  for (uint32_t i = 0; i < raw->variant_count; ++i) {
    ProfileVariant v = read_variant(path, folder, raw->variants[i], i);
    if (p.variant(v.name))
      throw ProfileLoadError(path, fmt::format("variant {} appears twice", v.name));
    p.variants.push_back(std::move(v));
  }
  p.default_variant = raw->default_variant != nullptr ? raw->default_variant : p.variants[0].name;
  if (!p.variant(p.default_variant))
    throw ProfileLoadError(
        path, fmt::format("default variant '{}' is not one of its variants", p.default_variant));
  // Version 2 begins with version 1's fields, so the cast reads the same bytes as `raw`.
  if (abi_version >= 2)
    p.cost_hooks = register_cost_hooks(path, *reinterpret_cast<const TilescopeProfileV2*>(raw));
  return p;
}

}  // namespace ts
