#pragma once
// A command never writes its output over one of its own inputs: `db export --db X --out X`
// would replace a database of runs with a CSV, `report --out` over `--db` the same. The check is
// made once, before any work, for every command that writes a file (write_file_atomically is
// the how of writing; this is the where).
#include <string>
#include <vector>

namespace ts {

// A path as the command line named it: the option, for messages, and the path.
struct NamedPath {
  std::string option;  // "--out", "--db"
  std::string path;    // empty: not given (skipped)
};

// Throws InputError at `output.option` when the output is the same file as an input: by
// std::filesystem::equivalent when both exist (another spelling, a symbolic or hard link), else
// by their normalised absolute paths.
void refuse_output_over_inputs(const NamedPath& output, const std::vector<NamedPath>& inputs);

}  // namespace ts
