#include "analysis/AnalysisResult.hpp"

namespace ts {

AnalysisResult analysis_result(const MappingProgram& p, const AnalysisScratch& s) {
  AnalysisResult r;
  r.failure = s.failure;
  r.device_s = s.device_s;
  r.bound = s.bound;
  r.edge_bytes = s.edge_bytes;
  r.read_back_bytes = s.read_back_bytes;
  r.memory_usage = s.memory_usage;
  const size_t nt = static_cast<size_t>(p.ntensors);
  r.nodes.resize(p.nodes.size());
  for (size_t i = 0; i < p.nodes.size() && i < s.nodes.size(); ++i) {
    const ProgramNode& node = p.nodes[i];
    NodeResult& n = r.nodes[i];
    if (node.kind == MappingNodeKind::tile && (i + 1) * nt <= s.buffer_bytes.size())
      for (size_t t = 0; t < nt; ++t)
        if (node.buffer[t].valid())
          n.buffers.push_back({static_cast<int>(t), node.buffer[t], s.buffer_bytes[i * nt + t]});
    if (i < s.reports.size() && s.reports[i].evaluated) n.timing = s.reports[i];
    n.spatial_tiles = s.nodes[i].spread;
    n.instances = s.nodes[i].child_instances;
  }
  r.accesses = access_counts(p, s);
  return r;
}

AnalysisResult analyse(const MappingProgram& program) {
  AnalysisScratch scratch;
  evaluate(program, scratch);
  return analysis_result(program, scratch);
}

}  // namespace ts
