#include "profile/ProfileManifest.hpp"

#include "common/YamlSource.hpp"

namespace ts {
namespace {

std::string profile_name(const YamlSource& src, const YAML::Node& node, std::string_view what) {
  std::string name = src.text(node, what);
  if (!is_profile_name(name))
    src.fail(node, std::string(what) + " '" + name +
                       "' may hold only letters, digits, '-', '_' and '.' (it is written in "
                       "`profile:NAME/VARIANT`)");
  return name;
}

// An optional list of files, each relative to the profile's folder.
std::vector<std::string> file_list(const YamlSource& src, const YAML::Node& root,
                                   std::string_view key, std::string_view what) {
  std::vector<std::string> files;
  const YAML::Node list = root[std::string(key)];
  if (!list.IsDefined() || list.IsNull()) return files;
  std::string label = "`";  // built step by step: `"`" + string` trips GCC 12's -Wrestrict
  label.append(key).append("`");
  src.expect_sequence(list, label);
  for (const YAML::Node& item : list) files.push_back(src.existing_path(item, what));
  return files;
}

ProfileVariant read_variant(const YamlSource& src, const YAML::Node& key, const YAML::Node& map) {
  ProfileVariant v;
  v.name = profile_name(src, key, "variant name");
  const std::string what = "variant " + v.name;
  src.expect_map(map, what);
  src.check_keys(map, {"arch", "fitted", "provenance"}, what);
  v.arch_file = src.existing_path(src.require(map, "arch", what), "architecture graph");
  v.fitted = src.boolean_or(map, "fitted", false);
  v.provenance = src.text_or(map, "provenance", "");
  // A fitted graph is only as good as the measurements it was fitted to: say which.
  if (v.fitted && v.provenance.empty())
    src.fail(map, what +
                      " is `fitted: true` but names no `provenance:` (which measurements "
                      "it was fitted to)");
  return v;
}

}  // namespace

Profile parse_profile_manifest(const std::string& yaml_text, const std::string& file_name) {
  const YamlSource src = YamlSource::parse(yaml_text, file_name);
  src.check_header("profile");
  const YAML::Node& root = src.root();
  src.check_keys(root,
                 {"version", "kind", "name", "profile_version", "description", "variants",
                  "default_variant", "mapping_templates", "microbenchmarks", "kernel_rules"},
                 "a profile");
  Profile p;
  p.kind = ProfileKind::data;
  p.origin = file_name;
  p.name = profile_name(src, src.require(root, "name", "a profile"), "profile name");
  p.profile_version =
      src.text(src.require(root, "profile_version", "a profile"), "profile_version");
  p.description = src.text_or(root, "description", "");
  const YAML::Node variants = src.require(root, "variants", "a profile");
  src.expect_map(variants, "`variants`");
  if (variants.size() == 0)
    src.fail(variants, "`variants` is empty; a profile names at least one architecture graph");
  for (auto it = variants.begin(); it != variants.end(); ++it) {
    ProfileVariant v = read_variant(src, it->first, it->second);
    if (p.variant(v.name)) src.fail(it->first, "variant " + v.name + " appears twice");
    p.variants.push_back(std::move(v));
  }
  if (const YAML::Node chosen = root["default_variant"]; chosen.IsDefined()) {
    p.default_variant = src.text(chosen, "default_variant");
    if (!p.variant(p.default_variant)) {
      std::string known;
      for (const auto& v : p.variants) known += (known.empty() ? "" : ", ") + v.name;
      src.fail(chosen, "`default_variant` '" + p.default_variant +
                           "' is not one of the variants (" + known + ")");
    }
  } else {
    p.default_variant = p.variants.front().name;
  }
  p.mapping_templates = file_list(src, root, "mapping_templates", "mapping template");
  p.microbenchmarks = file_list(src, root, "microbenchmarks", "microbenchmark");
  p.kernel_rules = file_list(src, root, "kernel_rules", "kernel-name rules file");
  return p;
}

Profile load_profile_manifest(const std::string& profile_yaml) {
  return parse_profile_manifest(YamlSource::read_file(profile_yaml), profile_yaml);
}

}  // namespace ts
