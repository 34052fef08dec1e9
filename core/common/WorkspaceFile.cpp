#include "common/WorkspaceFile.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>

#include "common/AtomicFile.hpp"
#include "common/YamlSource.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

struct MemberKey {
  const char* key;
  std::optional<WorkspaceMember> Workspace::*member;
};

// In the order the GUI opens them (a CSV of results is predicted on the architecture) and the
// writer writes them.
constexpr std::array<MemberKey, 4> kMemberKeys = {{{"architecture", &Workspace::architecture},
                                                   {"workload", &Workspace::workload},
                                                   {"results", &Workspace::results},
                                                   {"simulation", &Workspace::simulation}}};

// What a plain (unquoted) scalar reads as besides text in YAML: a number or a boolean. Such a
// value where a path belongs is far likelier a slip than a file named `42`; one that is can be
// quoted, and the writer quotes it.
bool reads_as_number_or_bool(const std::string& text) {
  for (const char* word : {"true", "false", "True", "False", "TRUE", "FALSE"})
    if (text == word) return true;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

bool equivalent_files(const fs::path& a, const fs::path& b) {
  std::error_code ec;  // either missing: not the same file
  return fs::equivalent(a, b, ec);
}

// The whole file when it is no larger than a workspace may be; nothing otherwise (a larger file
// is no workspace, and a workload of millions of operators is not read twice).
std::optional<std::string> read_if_small(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(kWorkspaceMaxBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kWorkspaceMaxBytes) return std::nullopt;
  return text;
}

// A member of `source` that is itself a workspace is refused, at the member's path: opening it
// would open a workspace from a workspace, and one naming this one back would never end. A
// member that is not valid YAML, or of another kind, is left to its own loader.
void refuse_nested_workspace(const YamlSource& source, const YAML::Node& node,
                             const std::string& key, const fs::path& member) {
  const std::string& written = node.Scalar();
  if (equivalent_files(member, source.file()))
    source.fail(node, "workspace '" + source.file() + "' names itself as its " + key);
  const std::optional<std::string> text = read_if_small(member);
  if (!text) return;
  std::optional<YamlSource> inner;
  try {
    inner = YamlSource::parse(*text, member.string());
  } catch (const InputError&) {
    return;
  }
  // A missing key of a const node is an invalid node, which throws on anything but IsDefined.
  const auto scalar = [](const YAML::Node& node) { return node.IsDefined() && node.IsScalar(); };
  const YAML::Node& root = inner->root();
  if (!root.IsMap() || !scalar(root["kind"]) || root["kind"].Scalar() != "workspace") return;
  for (const MemberKey& m : kMemberKeys) {
    const YAML::Node back = root[m.key];
    if (scalar(back) && !back.Scalar().empty() &&
        equivalent_files(member.parent_path() / back.Scalar(), source.file()))
      source.fail(node, "workspace '" + source.file() + "' includes itself through " + written);
  }
  source.fail(node, key + " '" + written +
                        "' is a workspace; a workspace names architecture, workload, results "
                        "and simulation files, not other workspaces");
}

}  // namespace

Workspace parse_workspace(const std::string& text, const std::string& file_name) {
  if (text.size() > kWorkspaceMaxBytes)
    throw InputError({file_name, 1, 1}, "a workspace names four paths in at most " +
                                            std::to_string(kWorkspaceMaxBytes) +
                                            " bytes; this file has " + std::to_string(text.size()));
  const YamlSource source = YamlSource::parse(text, file_name);
  source.check_header("workspace");
  const YAML::Node& root = source.root();
  source.check_keys(root, {"version", "kind", "architecture", "workload", "results", "simulation"},
                    "the workspace");
  Workspace workspace;
  for (const MemberKey& m : kMemberKeys) {
    const YAML::Node node = root[m.key];
    if (!node.IsDefined()) continue;
    const std::string key = m.key;
    // An empty value has its place after the line ends: its key is where the reader looks.
    if (node.IsNull())
      source.fail(*source.key_node(root, key), "expected a path for `" + key + "`, got nothing");
    if (!node.IsScalar() || node.Scalar().empty())
      source.fail(node, "expected a path for `" + key + "`, got " + describe(node));
    // yaml-cpp tags a plain scalar "?" and a quoted one "!".
    if (node.Tag() == "?" && reads_as_number_or_bool(node.Scalar()))
      source.fail(node, "expected a path for `" + key + "`, got " + describe(node) +
                            " (a number or true/false; quote it if a file has that name)");
    const std::string path = source.existing_path(node, key);
    refuse_nested_workspace(source, node, key, path);
    workspace.*m.member = WorkspaceMember{path, source.where(node)};
  }
  return workspace;
}

Workspace load_workspace(const std::string& path) {
  return parse_workspace(YamlSource::read_file(path), path);
}

void write_workspace(const Workspace& workspace, const std::string& path) {
  const fs::path folder = fs::absolute(fs::path(path)).parent_path().lexically_normal();
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << 1;
  out << YAML::Key << "kind" << YAML::Value << "workspace";
  for (const MemberKey& m : kMemberKeys) {
    const std::optional<WorkspaceMember>& member = workspace.*m.member;
    if (!member) continue;
    const fs::path absolute = fs::absolute(fs::path(member->path)).lexically_normal();
    const fs::path relative = absolute.lexically_relative(folder);
    const std::string written = (relative.empty() ? absolute : relative).string();
    out << YAML::Key << m.key << YAML::Value;
    if (reads_as_number_or_bool(written)) out << YAML::DoubleQuoted;
    out << written;
  }
  out << YAML::EndMap;
  write_file_atomically(path, "# tilescope-gui workspace: paths are relative to this file\n" +
                                  std::string(out.c_str()) + "\n");
}

}  // namespace ts
