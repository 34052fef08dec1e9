#pragma once
// Where Graphviz's `dot` puts the nodes and edges of an architecture graph. Plain values in
// points (1/72 inch) with y growing downwards, as Qt draws, so that the GUI scene and headless
// reports draw the same picture.
#include <utility>
#include <vector>

#include "arch/ArchitectureGraph.hpp"

namespace ts::views {

struct PointF {
  double x = 0, y = 0;
};

struct NodePlacement {
  PointF centre;
  double width = 0, height = 0;
};

struct EdgePlacement {
  // Cubic Bezier control points as dot writes them: p0, then (c1, c2, p) triples.
  std::vector<PointF> spline;
  bool has_arrow = false;
  PointF arrow_tip;  // where the arrowhead ends, at the target's border
  PointF label_centre;
};

struct ArchitectureLayout {
  double width = 0, height = 0;
  std::vector<NodePlacement> nodes;  // by node id
  std::vector<EdgePlacement> edges;  // by edge id
};

// `node_sizes` (points, by node id) are the boxes the caller will draw in; `edge_labels` are the
// texts dot makes room for beside each edge. Throws std::runtime_error when Graphviz fails.
// Graphviz is not thread-safe: calls are serialised.
ArchitectureLayout layout_architecture(const ArchitectureGraph& graph,
                                       const std::vector<std::pair<double, double>>& node_sizes,
                                       const std::vector<std::string>& edge_labels);

}  // namespace ts::views
