#include "common/YamlSource.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>

#include "common/BareQuestionMarks.hpp"
#include "common/BoundedText.hpp"
#include "common/WorkLabel.hpp"
#include "common/YamlStructureCheck.hpp"

namespace ts {
namespace {

// Only text yaml-cpp rejects is rewritten, so valid YAML is always read exactly as written.
YAML::Node load_yaml(const std::string& text, const std::string& file) {
  try {
    YAML::Node root = YAML::Load(text);
    check_yaml_structure(text, file);
    return root;
  } catch (const YAML::Exception& first) {
    std::string marked = mark_bare_questions(text);
    if (marked != text) {
      std::optional<YAML::Node> root;
      try {
        root = YAML::Load(marked);
      } catch (const YAML::Exception&) {
        // report the error of the text as written
      }
      if (root) {
        check_yaml_structure(marked, file);
        return *root;
      }
    }
    throw InputError({file, first.mark.line + 1, first.mark.column + 1},
                     "invalid YAML: " + first.msg);
  }
}

}  // namespace

YamlSource::YamlSource(YAML::Node root, std::string file, std::string text)
    : file_(std::move(file)), text_(std::move(text)), root_(std::move(root)) {}

YamlSource YamlSource::parse(const std::string& text, const std::string& file_name) {
  const WorkLabel work("the YAML tree of '" + file_name + "'");
  return YamlSource(load_yaml(text, file_name), file_name, text);
}

YamlSource YamlSource::load(const std::string& path) { return parse(read_file(path), path); }

std::string YamlSource::read_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError({path, 0, 0}, "file not found");
  if (fs::is_directory(path, ec))
    throw InputError({path, 0, 0}, "is a directory; expected a YAML file");
  // Bounded: a pipe or /dev/zero has no size to check first, and a 200 MB file given as a graph
  // is refused before it is held (common/WorkLimits).
  // An empty file reads as "": check_header reports it.
  return read_bounded_text(path, kMaxInputFileBytes, "a YAML or JSON input", "Sizes");
}

SourceLocation YamlSource::where(const YAML::Node& node) const {
  if (!node.IsDefined()) return {file_, 0, 0};
  YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {file_, 0, 0};
  return {file_, mark.line + 1, mark.column + 1};
}

void YamlSource::fail(const YAML::Node& node, const std::string& message) const {
  throw InputError(where(node), message);
}

std::string YamlSource::existing_path(const YAML::Node& node, std::string_view what) const {
  const std::filesystem::path written = text(node, what);
  const std::filesystem::path base = std::filesystem::path(file_).parent_path();
  const std::filesystem::path resolved =
      (written.is_absolute() ? written : base / written).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(resolved, ec))
    fail(node, std::string(what) + " '" + written.string() + "' not found (looked for " +
                   resolved.string() + "; paths are relative to this file)");
  return resolved.string();
}

void YamlSource::check_header(std::string_view kind) const {
  std::string expected = "`version: 1` and `kind: " + std::string(kind) + "`";
  if (!root_.IsDefined() || root_.IsNull())
    throw InputError({file_, 1, 1}, "empty file; expected " + expected);
  if (!root_.IsMap()) fail(root_, "expected a map with " + expected + ", got " + describe(root_));
  YAML::Node version = root_["version"];
  if (!version.IsDefined()) fail(root_, "missing `version: 1`");
  if (!version.IsScalar() || version.Scalar() != "1")
    fail(version, "unsupported version " + describe(version) + "; expected `version: 1`");
  YAML::Node found = root_["kind"];
  if (!found.IsDefined()) fail(root_, "missing `kind: " + std::string(kind) + "`");
  if (!found.IsScalar() || found.Scalar() != kind)
    fail(found, "wrong kind " + describe(found) + "; expected `kind: " + std::string(kind) + "`");
}

namespace {

// One check for both lists of allowed keys: every key allowed and none twice. The list is only
// joined into a message on failure, so the common path copies nothing.
template <typename Allowed>
void check_keys_in(const YamlSource& src, const YAML::Node& map, const Allowed& allowed,
                   std::string_view what) {
  src.expect_map(map, what);
  std::map<std::string, int> seen;  // key -> line
  for (auto entry : map) {
    const YAML::Node& key = entry.first;
    if (!key.IsScalar()) src.fail(key, "expected a plain key in " + std::string(what));
    const std::string& name = key.Scalar();
    bool known = false;
    for (const auto& a : allowed) known = known || std::string_view(a) == name;
    if (!known) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      src.fail(key,
               "unknown key '" + name + "' in " + std::string(what) + "; expected one of: " + list);
    }
    auto [it, inserted] = seen.emplace(name, src.where(key).line);
    if (!inserted)
      src.fail(key, "duplicate key '" + name + "' in " + std::string(what) + " (first at line " +
                        std::to_string(it->second) + ")");
  }
}

}  // namespace

void YamlSource::check_keys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                            std::string_view what) const {
  check_keys_in(*this, map, allowed, what);
}

void YamlSource::check_keys(const YAML::Node& map, const std::vector<std::string>& allowed,
                            std::string_view what) const {
  check_keys_in(*this, map, allowed, what);
}

void YamlSource::expect_map(const YAML::Node& node, std::string_view what) const {
  if (!node.IsMap())
    fail(node, "expected a map for " + std::string(what) + ", got " + describe(node));
}

void YamlSource::expect_sequence(const YAML::Node& node, std::string_view what) const {
  if (!node.IsSequence())
    fail(node, "expected a list for " + std::string(what) + ", got " + describe(node));
}

YAML::Node YamlSource::require(const YAML::Node& map, std::string_view key,
                               std::string_view what) const {
  YAML::Node value = map[std::string(key)];
  if (!value.IsDefined()) fail(map, "missing `" + std::string(key) + "` in " + std::string(what));
  return value;
}

std::optional<YAML::Node> YamlSource::key_node(const YAML::Node& map, std::string_view key) const {
  for (auto entry : map)
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.first;
  return std::nullopt;
}

std::string YamlSource::text(const YAML::Node& node, std::string_view what) const {
  if (!node.IsScalar() || node.Scalar().empty())
    fail(node, "expected a name or text for `" + std::string(what) + "`, got " + describe(node));
  return node.Scalar();
}

int64_t YamlSource::integer(const YAML::Node& node, std::string_view what) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    int64_t value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) return value;
  }
  fail(node, "expected an integer for `" + std::string(what) + "`, got " + describe(node));
}

int64_t YamlSource::positive_integer(const YAML::Node& node, std::string_view what) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    int64_t value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty() && value > 0) return value;
  }
  fail(node, "expected a positive integer for `" + std::string(what) + "`, got " + describe(node));
}

double YamlSource::number(const YAML::Node& node, std::string_view what) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    double value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty() && std::isfinite(value))
      return value;
  }
  fail(node, "expected a number for `" + std::string(what) + "`, got " + describe(node));
}

double YamlSource::positive_number(const YAML::Node& node, std::string_view what) const {
  double value = number(node, what);
  if (!(value > 0))
    fail(node, "expected a positive number for `" + std::string(what) + "`, got " + describe(node));
  return value;
}

bool YamlSource::boolean(const YAML::Node& node, std::string_view what) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "True") return true;
    if (s == "false" || s == "False") return false;
  }
  fail(node, "expected true or false for `" + std::string(what) + "`, got " + describe(node));
}

bool YamlSource::is_free(const YAML::Node& node) const {
  if (node.IsScalar()) return node.Scalar() == "?";
  if (!node.IsNull()) return false;
  YAML::Mark mark = node.Mark();
  return !mark.is_null() && mark.pos >= 0 && static_cast<size_t>(mark.pos) < text_.size() &&
         text_[static_cast<size_t>(mark.pos)] == '?';
}

std::string YamlSource::text_or(const YAML::Node& map, std::string_view key,
                                std::string fallback) const {
  YAML::Node value = map[std::string(key)];
  return value.IsDefined() ? text(value, key) : fallback;
}

int64_t YamlSource::positive_integer_or(const YAML::Node& map, std::string_view key,
                                        int64_t fallback) const {
  YAML::Node value = map[std::string(key)];
  return value.IsDefined() ? positive_integer(value, key) : fallback;
}

bool YamlSource::boolean_or(const YAML::Node& map, std::string_view key, bool fallback) const {
  YAML::Node value = map[std::string(key)];
  return value.IsDefined() ? boolean(value, key) : fallback;
}

std::string peek_kind(const std::string& path) { return kind_of(YamlSource::load(path)); }

std::string kind_of(const YamlSource& source) {
  const YAML::Node& root = source.root();
  if (!root.IsDefined() || root.IsNull())
    throw InputError({source.file(), 1, 1},
                     "empty file; expected `version: 1` and a `kind:` (architecture, workload, "
                     "mapping, ...)");
  if (!root.IsMap() || !root["kind"].IsDefined())
    throw InputError({source.file(), 1, 1},
                     "missing `kind:`; expected one of: architecture, workload, mapping");
  return source.text(root["kind"], "kind");
}

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  return "an unknown node";
}

std::string file_stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

}  // namespace ts
