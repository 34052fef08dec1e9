// describe_graph ARCH.yaml: one line about an architecture graph, through the installed headers
// and libraries of tilescope::core; a bad file is the loader's one-line error and exit status 2.
#include <cstdio>

#include "arch/ArchitectureGraph.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: describe_graph ARCH.yaml\n");
    return 2;
  }
  try {
    const ts::ArchitectureGraph graph = ts::load_architecture(argv[1]);
    std::printf("%s: %zu nodes, %zu edges, version %s\n", graph.name.c_str(), graph.nodes.size(),
                graph.edges.size(), TILESCOPE_VERSION);
  } catch (const ts::InputError& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }
  return 0;
}
