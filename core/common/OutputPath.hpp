#pragma once
// A command never writes its output over one of its own inputs: `db export --db X --out X`
// would replace a database of runs with a CSV, `import kineto T --db X --workload-out X` the
// database with a workload, `simulate --out` over `--model` the model with JSON. Nor does it
// write two of its outputs to one file (`simulate --out X --timeline X`: the second write
// replaces the first). The check is made once, before any work: for every tilescope command by
// its grammar (app/cli/PathOptions.hpp tags each option that names a file as read or written),
// and by tilescope-gui before each file it saves (write_file_atomically is the how of writing;
// this is the where).
#include <string>
#include <string_view>
#include <vector>

namespace ts {

// A path as the command line named it: the option, for messages, and the path.
struct NamedPath {
  std::string option;  // "--out", "--db"
  std::string path;    // empty: not given (skipped)
};

// What the message says is the rule, after the two paths.
inline constexpr std::string_view kCommandOutputRule = "a command never writes over its own input";

// False for what names no file: "" (not given), "-" (stdout, stdin) and profile:NAME[/VARIANT]
// (a bundled graph, resolved elsewhere).
bool names_a_file(const std::string& path);

// Whether `a` and `b` are one file: by device and inode (std::filesystem::equivalent) when both
// exist, whichever spelling, symbolic or hard link named them; else, one not there yet, by their
// weakly canonical absolute paths (`a/../x` and a path through a symbolically linked folder
// meet there). A folder is a file here too: an output folder is the same as an input of its path.
bool same_file(const std::string& a, const std::string& b);

// Throws InputError at the output's option when an output is the same file as an input
// (`--out: 'X' is the same file as --db 'Y'; a command never writes over its own input: give
// --out another file`), or as another output. Paths that name no file (names_a_file) are
// skipped. A file the command both reads and writes (a results database it adds to) is in both
// lists under one option: it is not compared with itself, only with the others. `rule` is the
// sentence after the paths (tilescope-gui says it of itself).
void refuse_outputs_over_inputs(const std::vector<NamedPath>& outputs,
                                const std::vector<NamedPath>& inputs,
                                std::string_view rule = kCommandOutputRule);

// One output: refuse_outputs_over_inputs({output}, inputs).
void refuse_output_over_inputs(const NamedPath& output, const std::vector<NamedPath>& inputs,
                               std::string_view rule = kCommandOutputRule);

}  // namespace ts
