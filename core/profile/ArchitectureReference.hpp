#pragma once
// What an `--arch` (or a cluster's `device:`) names: a file path, or `profile:NAME[/VARIANT]`, a
// variant of a registered profile (no variant: the profile's default). Every place that reads
// an architecture file name passes it through here first, so all of them accept both.
#include <string>
#include <string_view>

#include "common/InputError.hpp"
#include "profile/ProfileRegistry.hpp"

namespace ts {

inline constexpr std::string_view kProfileReferencePrefix = "profile:";

// What every option that names a graph says it accepts, in every program's help (tilescope,
// tilescope-report, tilescope-gui): one text, so that none forgets the profile form.
inline constexpr char kArchitectureForms[] =
    "a kind: architecture file or profile:NAME[/VARIANT] (`tilescope profiles list`)";
// And an option that names a cluster, whose device is such a graph.
inline constexpr char kClusterForms[] =
    "a kind: cluster file; its device: is a kind: architecture file or profile:NAME[/VARIANT]";

bool is_profile_reference(std::string_view arch);

// The architecture file that `arch` names: `arch` itself when it is not a profile reference.
// An unknown profile or variant is an InputError at `where` that lists the known ones.
std::string resolve_architecture_file(const std::string& arch, const ProfileRegistry& registry,
                                      const SourceLocation& where);
// With installed_profiles(), discovered only when `arch` is a profile reference.
std::string resolve_architecture_file(const std::string& arch, const SourceLocation& where);
// For a command-line option: errors are located at the option, e.g. `--arch: unknown ...`.
std::string resolve_architecture_option(const std::string& arch,
                                        std::string_view option = "--arch");

}  // namespace ts
