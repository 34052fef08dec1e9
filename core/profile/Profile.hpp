#pragma once
// A hardware profile: one chip family's architecture graphs (its variants, measured or fitted)
// and what goes with them, whether it came from a folder with a profile.yaml (a data profile) or
// from a shared library's entry point (a code plugin). Paths are absolute or relative to the
// working folder, ready to open.
#include <string>
#include <string_view>
#include <vector>

namespace ts {

enum class ProfileKind { data, code };
std::string_view to_string(ProfileKind kind);

struct ProfileVariant {
  std::string name;
  std::string arch_file;   // a `kind: architecture` file
  bool fitted = false;     // parameters fitted to measurements rather than taken from datasheets
  std::string provenance;  // where the figures come from (measurements, papers, datasheets)
};

struct Profile {
  std::string name;
  std::string profile_version;  // the profile's own release, not the file format's version
  std::string description;
  ProfileKind kind = ProfileKind::data;
  std::string origin;  // the profile.yaml or the shared library it was loaded from
  std::vector<ProfileVariant> variants;  // at least one
  std::string default_variant;           // one of variants
  std::vector<std::string> mapping_templates;
  std::vector<std::string> microbenchmarks;  // calibration microbenchmarks (measurement plans)
  std::vector<std::string> kernel_rules;     // kernel-name rules for imported traces
  std::vector<std::string> cost_hooks;       // code plugins: the compute-unit hooks it provides

  // The variant of that name, or nullptr.
  const ProfileVariant* variant(std::string_view variant_name) const;
};

// Profile and variant names are what `profile:NAME/VARIANT` is written with: letters, digits,
// '-', '_' and '.', so that neither ':' nor '/' is ambiguous.
bool is_profile_name(std::string_view name);

}  // namespace ts
