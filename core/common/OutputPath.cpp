#include "common/OutputPath.hpp"

#include <filesystem>

#include "common/InputError.hpp"

namespace ts {
namespace {

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  // One of them is not there yet (or cannot be inspected): compare where they would be.
  const fs::path pa = fs::weakly_canonical(fs::absolute(a, ec), ec);
  const fs::path pb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return pa.lexically_normal() == pb.lexically_normal();
}

}  // namespace

void refuse_output_over_inputs(const NamedPath& output, const std::vector<NamedPath>& inputs) {
  if (output.path.empty()) return;
  for (const NamedPath& input : inputs) {
    if (input.path.empty() || !same_file(output.path, input.path)) continue;
    throw InputError(SourceLocation{output.option, 0, 0},
                     "'" + output.path + "' is the same file as " + input.option + " '" +
                         input.path + "'; a command never writes over its own input: give " +
                         output.option + " another file");
  }
}

}  // namespace ts
