#include "common/OutputPath.hpp"

#include <filesystem>

#include "common/InputError.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

// Where a path is, without following what is not there yet: the absolute path with its
// existing part's links and `..` resolved (weakly_canonical), then lexically normalised.
fs::path where(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = fs::path(path);
  fs::path canonical = fs::weakly_canonical(absolute, ec);
  if (ec) canonical = absolute;
  return canonical.lexically_normal();
}

// A folder spelt with a trailing separator ("out/") is the folder ("out").
fs::path without_trailing_separator(fs::path p) {
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

}  // namespace

bool names_a_file(const std::string& path) {
  return !path.empty() && path != "-" && !path.starts_with("profile:");
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  // One of them is not there yet (or cannot be inspected): compare where they would be.
  return without_trailing_separator(where(a)) == without_trailing_separator(where(b));
}

void refuse_outputs_over_inputs(const std::vector<NamedPath>& outputs,
                                const std::vector<NamedPath>& inputs, std::string_view rule) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& output = outputs[i];
    if (!names_a_file(output.path)) continue;
    const auto refuse = [&](const NamedPath& other, std::string_view why) {
      throw InputError(SourceLocation{output.option, 0, 0},
                       "'" + output.path + "' is the same file as " + other.option + " '" +
                           other.path + "'; " + std::string(why) + ": give " + output.option +
                           " another file");
    };
    for (const NamedPath& input : inputs) {
      // A file both read and written (a database added to) is in both lists: not itself.
      if (input.option == output.option && input.path == output.path) continue;
      if (names_a_file(input.path) && same_file(output.path, input.path)) refuse(input, rule);
    }
    for (size_t j = 0; j < i; ++j) {
      const NamedPath& earlier = outputs[j];
      if (earlier.option == output.option && earlier.path == output.path) continue;  // listed twice
      if (names_a_file(earlier.path) && same_file(output.path, earlier.path))
        refuse(earlier, "each output is a file of its own");
    }
  }
}

void refuse_output_over_inputs(const NamedPath& output, const std::vector<NamedPath>& inputs,
                               std::string_view rule) {
  refuse_outputs_over_inputs({output}, inputs, rule);
}

}  // namespace ts
