#pragma once
// Reading the YAML files people write. Every error names the file, line and column of the node
// at fault and says what was expected; unknown keys are errors so that a typo is never silently
// ignored. The loaders of each format sit on these helpers.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/InputError.hpp"
#include "common/NameList.hpp"
#include "common/WorkLimits.hpp"

namespace ts {

class YamlSource {
 public:
  // Unreadable files and YAML syntax errors become InputError at the place of the fault.
  static YamlSource load(const std::string& path);
  // The text of a file, read once: a pipe (`<(cat file.yaml)`) can be read only once, so a
  // command that looks at a file twice (its kind, then its content) reads it with this and
  // parses the text.
  static std::string read_file(const std::string& path);
  static YamlSource parse(const std::string& text, const std::string& file_name);

  const YAML::Node& root() const { return root_; }
  const std::string& file() const { return file_; }

  // 1-based line and column of a node; 0 when the node has no place in the file.
  SourceLocation where(const YAML::Node& node) const;
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const;

  // The root is a map with `version: 1` and `kind: <kind>`.
  void check_header(std::string_view kind) const;
  // Every key of `map` is one of `allowed` and none appears twice. `what` names the map in
  // messages, e.g. "edge HBM->L2".
  void check_keys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                  std::string_view what) const;
  void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed,
                  std::string_view what) const;

  void expect_map(const YAML::Node& node, std::string_view what) const;
  void expect_sequence(const YAML::Node& node, std::string_view what) const;
  // The value of a key, or an error at the map naming the missing key.
  YAML::Node require(const YAML::Node& map, std::string_view key, std::string_view what) const;
  // The key node itself, for errors about a key that should not be there.
  std::optional<YAML::Node> key_node(const YAML::Node& map, std::string_view key) const;

  // Scalars. `what` names the value in messages, usually its key.
  std::string text(const YAML::Node& node, std::string_view what) const;  // non-empty
  int64_t integer(const YAML::Node& node, std::string_view what) const;
  int64_t positive_integer(const YAML::Node& node, std::string_view what) const;
  double number(const YAML::Node& node, std::string_view what) const;
  double positive_number(const YAML::Node& node, std::string_view what) const;
  bool boolean(const YAML::Node& node, std::string_view what) const;
  // A file named at `node`, relative to this file unless absolute; fails at the node, naming
  // `what` and the path looked for, when there is no such file.
  std::string existing_path(const YAML::Node& node, std::string_view what) const;

  // `?`: a choice left to the mapper. Written bare or quoted.
  bool is_free(const YAML::Node& node) const;

  // Optional keys with a default.
  std::string text_or(const YAML::Node& map, std::string_view key, std::string fallback) const;
  int64_t positive_integer_or(const YAML::Node& map, std::string_view key, int64_t fallback) const;
  bool boolean_or(const YAML::Node& map, std::string_view key, bool fallback) const;

 private:
  YamlSource(YAML::Node root, std::string file, std::string text);
  std::string file_;
  std::string text_;  // as written, to tell a bare `?` from `~` (see is_free)
  YAML::Node root_;
};

// The `kind:` of a file, for dispatching a file of unknown type to its loader.
std::string peek_kind(const std::string& path);
std::string kind_of(const YamlSource& source);

// A node's value as written, for messages: the scalar, or "a map"/"a list"/"nothing".
std::string describe(const YAML::Node& node);
// The file name without directory and extension: the default name of what a file declares.
std::string file_stem(const std::string& path);

}  // namespace ts
