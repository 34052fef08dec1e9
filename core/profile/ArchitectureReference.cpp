#include "profile/ArchitectureReference.hpp"

namespace ts {

bool is_profile_reference(std::string_view arch) {
  return arch.substr(0, kProfileReferencePrefix.size()) == kProfileReferencePrefix;
}

std::string resolve_architecture_file(const std::string& arch, const ProfileRegistry& registry,
                                      const SourceLocation& where) {
  if (!is_profile_reference(arch)) return arch;
  const std::string_view reference = std::string_view(arch).substr(kProfileReferencePrefix.size());
  const size_t slash = reference.find('/');
  const std::string name(reference.substr(0, slash));
  const LoadedProfile* loaded = registry.find(name);
  if (loaded == nullptr) {
    if (const ProfileFailure* failed = registry.find_failure(name))
      throw InputError(where, "profile '" + name + "' did not load: " + failed->line());
    std::string message =
        "unknown profile '" + name + "' in '" + arch + "'; known profiles: " + registry.names();
    if (!registry.failures().empty())
      message += "; " + std::to_string(registry.failures().size()) +
                 " failed to load (`tilescope profiles list` says why)";
    throw InputError(where, message);
  }
  const Profile& profile = loaded->profile;
  const std::string variant_name = slash == std::string_view::npos
                                       ? profile.default_variant
                                       : std::string(reference.substr(slash + 1));
  const ProfileVariant* variant = profile.variant(variant_name);
  if (variant == nullptr) {
    std::string known;
    for (const auto& v : profile.variants) known += (known.empty() ? "" : ", ") + v.name;
    throw InputError(where, "profile " + name + " (" + profile.origin + ") has no variant '" +
                                variant_name + "'; its variants: " + known);
  }
  return variant->arch_file;
}

std::string resolve_architecture_file(const std::string& arch, const SourceLocation& where) {
  if (!is_profile_reference(arch)) return arch;
  return resolve_architecture_file(arch, installed_profiles(), where);
}

std::string resolve_architecture_option(const std::string& arch, std::string_view option) {
  return resolve_architecture_file(arch, SourceLocation{std::string(option), 0, 0});
}

}  // namespace ts
