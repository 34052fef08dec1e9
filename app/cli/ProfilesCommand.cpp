// `tilescope profiles list|show NAME`: the hardware profiles found on the search path
// (core/profile), where each came from, what it provides, and those that failed to load and why.
// `tilescope profiles new gpu` writes a new one from a GPU's specification (ProfilesNewGpu.cpp).
#include "ProfilesCommand.hpp"

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "profile/ArchitectureReference.hpp"
#include "profile/ProfileRegistry.hpp"

namespace ts::cli {
namespace {

std::string variant_list(const Profile& p) {
  std::string text;
  for (const ProfileVariant& v : p.variants) {
    if (!text.empty()) text += ", ";
    text += v.name;
    if (v.name == p.default_variant) text += " (default)";
    if (v.fitted) text += " (fitted)";
  }
  return text;
}

void print_failures(const ProfileRegistry& registry) {
  if (!registry.failures().empty()) {
    std::cout << fmt::format("\nfailed to load ({}):\n", registry.failures().size());
    for (const ProfileFailure& f : registry.failures()) std::cout << "  " << f.line() << "\n";
  }
  for (const std::string& line : registry.shadowed()) std::cout << "  " << line << "\n";
}

void print_files(std::string_view what, const std::vector<std::string>& files) {
  std::cout << fmt::format("{}:{}\n", what, files.empty() ? " none" : "");
  for (const std::string& f : files) std::cout << "  " << f << "\n";
}

// The listing for scripts (docs/plugins.md): every profile with its variants, the failures and
// the folders searched, as the text shows them.
nlohmann::ordered_json profile_list_json(const ProfileRegistry& registry,
                                         const std::vector<ProfileFolder>& search_path) {
  nlohmann::ordered_json j{{"schema_version", 1},
                           {"profiles", nlohmann::ordered_json::array()},
                           {"failures", nlohmann::ordered_json::array()},
                           {"shadowed", registry.shadowed()},
                           {"search_path", nlohmann::ordered_json::array()}};
  for (const LoadedProfile& l : registry.profiles()) {
    nlohmann::ordered_json variants = nlohmann::ordered_json::array();
    for (const ProfileVariant& v : l.profile.variants)
      variants.push_back({{"name", v.name},
                          {"arch_file", v.arch_file},
                          {"default", v.name == l.profile.default_variant},
                          {"fitted", v.fitted}});
    j["profiles"].push_back({{"name", l.profile.name},
                             {"version", l.profile.profile_version},
                             {"kind", std::string(to_string(l.profile.kind))},
                             {"variants", std::move(variants)},
                             {"loaded_from", l.profile.origin},
                             {"source", l.source}});
  }
  for (const ProfileFailure& f : registry.failures())
    j["failures"].push_back({{"path", f.path}, {"problem", f.problem}, {"line", f.line()}});
  for (const ProfileFolder& f : search_path)
    j["search_path"].push_back({{"path", f.path.string()}, {"source", f.source}});
  return j;
}

}  // namespace

int run_profiles_list(const std::string& format) {
  const std::vector<ProfileFolder> search_path = profile_search_path();
  // Not installed_profiles(): a faulty plugin is one line of the listing, not a line on stderr too.
  ProfileRegistry registry = ProfileRegistry::discover(search_path);
  registry.check_graphs();  // a broken graph shows here rather than at the first prediction
  if (format == "json") {
    std::cout << profile_list_json(registry, search_path).dump(2) << "\n";
    return 0;
  }
  size_t name_w = 4, version_w = 7, variants_w = 8;
  for (const LoadedProfile& l : registry.profiles()) {
    name_w = std::max(name_w, l.profile.name.size());
    version_w = std::max(version_w, l.profile.profile_version.size());
    variants_w = std::max(variants_w, variant_list(l.profile).size());
  }
  std::cout << fmt::format("{:<{}}  {:<{}}  {:<4}  {:<{}}  {}\n", "name", name_w, "version",
                           version_w, "kind", "variants", variants_w, "loaded from");
  for (const LoadedProfile& l : registry.profiles())
    std::cout << fmt::format("{:<{}}  {:<{}}  {:<4}  {:<{}}  {} ({})\n", l.profile.name, name_w,
                             l.profile.profile_version, version_w, to_string(l.profile.kind),
                             variant_list(l.profile), variants_w, l.profile.origin, l.source);
  print_failures(registry);
  std::cout << "\nsearched, first to last:\n";
  for (const ProfileFolder& f : search_path)
    std::cout << fmt::format("  {} ({})\n", f.path.string(), f.source);
  if (registry.code_plugins_found() > 0) {
    // Where the verdicts are kept: deleting the file (or touching a library) checks again.
    const std::optional<std::filesystem::path> cache = plugin_check_options().cache_file;
    std::cout << "\ncode plugins are checked in a child process when first seen; "
              << (cache ? "the checks are kept in " + cache->string() : std::string("no cache"))
              << "\n";
  }
  return 0;
}

int run_profiles_show(const std::string& name) {
  const SourceLocation where{"profiles show", 0, 0};
  if (!is_profile_name(name))
    throw InputError(where, "'" + name +
                                "' is not a profile name (letters, digits, '-', '_' and '.'; "
                                "no /VARIANT: show lists the variants)");
  const ProfileRegistry& registry = installed_profiles();
  // Resolving the bare name gives the same error as `--arch profile:NAME` for an unknown one.
  resolve_architecture_file(std::string(kProfileReferencePrefix) + name, registry, where);
  const LoadedProfile& loaded = *registry.find(name);
  const Profile& p = loaded.profile;
  std::cout << fmt::format("name: {}\nversion: {}\nkind: {}\n", p.name, p.profile_version,
                           to_string(p.kind));
  if (!p.description.empty()) std::cout << "description: " << p.description << "\n";
  std::cout << fmt::format("loaded from: {} ({})\n", p.origin, loaded.source);
  std::cout << "variants (profile:" << p.name << "/VARIANT):\n";
  for (const ProfileVariant& v : p.variants) {
    // Each graph is loaded: a broken one fails here with its own file:line:col.
    const ArchitectureGraph graph = load_architecture(v.arch_file);
    std::cout << fmt::format("  {}{}{}: {} (graph {})\n", v.name,
                             v.name == p.default_variant ? " (default)" : "",
                             v.fitted ? " (fitted)" : "", v.arch_file, graph.name);
    if (!v.provenance.empty()) std::cout << "    provenance: " << v.provenance << "\n";
  }
  print_files("mapping templates", p.mapping_templates);
  print_files("calibration microbenchmarks", p.microbenchmarks);
  print_files("kernel-name rules", p.kernel_rules);
  if (!p.cost_hooks.empty()) {
    std::cout << "cost hooks (a compute node's `cost_hook:`):\n";
    for (const std::string& h : p.cost_hooks) std::cout << "  " << h << "\n";
  }
  return 0;
}

}  // namespace ts::cli
