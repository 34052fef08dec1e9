#include "views/ArchitectureLayout.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

// The dot layout engine, linked in rather than found through Graphviz's plugin configuration
// file: that file is written by a package hook that a bare libgvc install may not have run.
extern "C" {
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
}

namespace ts::views {
namespace {

lt_symlist_t layout_plugins[] = {
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {nullptr, nullptr},
};

std::mutex graphviz_mutex;

// cgraph 2.42's setters take char* for every string; they do not write through them.
void set(void* object, const char* name, const std::string& value) {
  static char empty[] = "";
  agsafeset(object, const_cast<char*>(name), const_cast<char*>(value.c_str()), empty);
}

}  // namespace

ArchitectureLayout layout_architecture(const ArchitectureGraph& graph,
                                       const std::vector<std::pair<double, double>>& node_sizes,
                                       const std::vector<std::string>& edge_labels) {
  std::lock_guard lock(graphviz_mutex);
  std::unique_ptr<GVC_t, decltype(&gvFreeContext)> gvc(gvContextPlugins(layout_plugins, 0),
                                                       &gvFreeContext);
  if (!gvc) throw std::runtime_error("Graphviz: cannot create a layout context");
  Agraph_t* g = agopen(const_cast<char*>("architecture"), Agdirected, nullptr);
  set(g, "rankdir", "TB");
  set(g, "nodesep", "0.5");
  set(g, "ranksep", "0.6");
  set(g, "fontsize", "10");
  std::vector<Agnode_t*> nodes;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    // Built with append: GCC 12 warns falsely (-Wrestrict) on "n" + std::to_string(i).
    std::string id = "n";
    id += std::to_string(i);
    Agnode_t* n = agnode(g, const_cast<char*>(id.c_str()), 1);
    set(n, "shape", "box");
    set(n, "fixedsize", "true");
    set(n, "label", "");
    const auto [w, h] = i < node_sizes.size() ? node_sizes[i] : std::pair{72.0, 36.0};
    set(n, "width", std::to_string(w / 72.0));
    set(n, "height", std::to_string(h / 72.0));
    nodes.push_back(n);
  }
  std::vector<Agedge_t*> edges;
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    const ArchEdge& e = graph.edges[i];
    std::string id = "e";
    id += std::to_string(i);
    Agedge_t* edge =
        agedge(g, nodes[e.from.index()], nodes[e.to.index()], const_cast<char*>(id.c_str()), 1);
    // No text-layout plugin is loaded, so dot estimates label widths from a fixed font table;
    // a larger nominal size keeps room for the GUI's real font.
    set(edge, "label", i < edge_labels.size() ? edge_labels[i] : "");
    set(edge, "fontsize", "15");
    edges.push_back(edge);
  }
  if (gvLayout(gvc.get(), g, "dot") != 0) {
    agclose(g);
    throw std::runtime_error("Graphviz: the dot layout failed");
  }
  ArchitectureLayout out;
  const boxf bb = GD_bb(g);
  out.width = bb.UR.x - bb.LL.x;
  out.height = bb.UR.y - bb.LL.y;
  // Graphviz's y axis points up; Qt's points down.
  auto flip = [&](pointf p) { return PointF{p.x - bb.LL.x, bb.UR.y - p.y}; };
  for (Agnode_t* n : nodes)
    out.nodes.push_back({flip(ND_coord(n)), ND_width(n) * 72.0, ND_height(n) * 72.0});
  for (Agedge_t* e : edges) {
    EdgePlacement placement;
    if (const splines* spl = ED_spl(e); spl && spl->size > 0) {
      const bezier& b = spl->list[0];
      for (int k = 0; k < b.size; ++k) placement.spline.push_back(flip(b.list[k]));
      if (b.eflag) {
        placement.has_arrow = true;
        placement.arrow_tip = flip(b.ep);
      }
    }
    if (const textlabel_t* label = ED_label(e); label && label->set)
      placement.label_centre = flip(label->pos);
    out.edges.push_back(std::move(placement));
  }
  gvFreeLayout(gvc.get(), g);
  agclose(g);
  return out;
}

}  // namespace ts::views
