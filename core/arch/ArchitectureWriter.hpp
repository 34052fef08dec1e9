#pragma once
// Writes a graph back as a `kind: architecture` file that load_architecture reads to an equal
// graph (same content_hash). Used by `calibrate` (a measured graph) and `fit` (a fitted one).
// `header_comment` lines become `# ` comments at the top (what was measured, when, by which
// command). Template paths are written relative to `out_file`'s folder.
#include <string>

#include "arch/ArchitectureGraph.hpp"

namespace ts {

std::string architecture_yaml(const ArchitectureGraph& graph, const std::string& header_comment,
                              const std::string& out_file);
// Writes to a temporary file beside `out_file` and renames it over, so a failure leaves nothing
// half-written.
void write_architecture(const ArchitectureGraph& graph, const std::string& header_comment,
                        const std::string& out_file);

}  // namespace ts
