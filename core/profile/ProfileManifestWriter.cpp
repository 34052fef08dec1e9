#include "profile/ProfileManifestWriter.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "common/AtomicFile.hpp"

namespace ts {
namespace fs = std::filesystem;

namespace {

std::string path_from(const fs::path& folder, const std::string& file) {
  const fs::path absolute = fs::absolute(file).lexically_normal();
  const fs::path relative = absolute.lexically_relative(folder);
  if (!relative.empty() && *relative.begin() != "..") return relative.string();
  return absolute.string();
}

void file_list(YAML::Emitter& out, const fs::path& folder, const char* key,
               const std::vector<std::string>& files) {
  if (files.empty()) return;
  out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const std::string& f : files) out << path_from(folder, f);
  out << YAML::EndSeq;
}

}  // namespace

std::string profile_manifest_yaml(const Profile& p, const std::string& profile_yaml) {
  const fs::path folder = fs::absolute(profile_yaml).lexically_normal().parent_path();
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << 1;
  out << YAML::Key << "kind" << YAML::Value << "profile";
  out << YAML::Key << "name" << YAML::Value << p.name;
  out << YAML::Key << "profile_version" << YAML::Value << p.profile_version;
  if (!p.description.empty()) out << YAML::Key << "description" << YAML::Value << p.description;
  out << YAML::Key << "default_variant" << YAML::Value << p.default_variant;
  out << YAML::Key << "variants" << YAML::Value << YAML::BeginMap;
  for (const ProfileVariant& v : p.variants) {
    out << YAML::Key << v.name << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "arch" << YAML::Value << path_from(folder, v.arch_file);
    if (v.fitted) out << YAML::Key << "fitted" << YAML::Value << true;
    if (!v.provenance.empty()) out << YAML::Key << "provenance" << YAML::Value << v.provenance;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  file_list(out, folder, "mapping_templates", p.mapping_templates);
  file_list(out, folder, "microbenchmarks", p.microbenchmarks);
  file_list(out, folder, "kernel_rules", p.kernel_rules);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

void write_profile_manifest(const Profile& profile, const std::string& profile_yaml) {
  write_file_atomically(profile_yaml, profile_manifest_yaml(profile, profile_yaml));
}

}  // namespace ts
