#pragma once
// A workspace file (`kind: workspace`): the inputs tilescope-gui has open, saved so that they
// reopen together. Each member is an optional path, relative to the workspace's folder unless
// absolute (docs/formats.md, "kind: workspace"):
//   version: 1
//   kind: workspace
//   architecture: ../samples/arch/nvidia-h200.yaml
//   workload: ../samples/workloads/vit-b16.yaml
//   results: runs.sqlite          # a results database or a CSV of measured GEMMs
//   simulation: gpt.sim.json
// Workspaces do not nest: a member that is a workspace (this one, or one naming it back) is
// refused here, so opening a workspace opens each member by its role and never recurses.
// Reading and writing sit together so that a saved workspace loads back the same paths; the
// loader is Qt-free so that the unit tests and the fuzzer reach it.
#include <cstddef>
#include <optional>
#include <string>

#include "common/InputError.hpp"

namespace ts {

struct WorkspaceMember {
  std::string path;      // as resolved: the workspace's folder joined with what was written
  SourceLocation where;  // of the path's text in the workspace file; file empty when not loaded
};

struct Workspace {
  std::optional<WorkspaceMember> architecture, workload, results, simulation;
};

// A workspace names four paths in a few hundred bytes; a larger file is refused before it is
// parsed, and the check that a member is not a workspace reads no more than this of it (a
// member may be a workload of millions of operators).
inline constexpr size_t kWorkspaceMaxBytes = 64 * 1024;

// Throws InputError at the place of the fault: YAML that does not parse, a missing or wrong
// `version`/`kind`, an unknown key, a member that is not a path (a list, a map, a number), a
// member that does not exist, or a member that is a workspace.
Workspace load_workspace(const std::string& path);
Workspace parse_workspace(const std::string& text, const std::string& file_name);

// Writes the members' paths relative to `path`'s folder (absolute where there is no relative
// path, another drive or root), whole or not at all (write_file_atomically).
void write_workspace(const Workspace& workspace, const std::string& path);

}  // namespace ts
