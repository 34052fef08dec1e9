// The architecture picture: Graphviz places every node and edge, memories and compute units
// are told apart, and the scene renders headless (as reports will).
#include <QGraphicsItem>
#include <QSignalSpy>

#include "GuiTestSupport.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "views/ArchitectureLayout.hpp"
#include "views/ArchitectureParameter.hpp"
#include "views/ArchitectureScene.hpp"
#include "views/ArchitectureView.hpp"

using ts::guitest::sample;

TEST_CASE("dot lays out every node and edge of the Ascend graph", "[gui][architecture]") {
  const ts::ArchitectureGraph g =
      ts::load_architecture(sample("arch/ascend910b3.yaml").toStdString());
  std::vector<std::pair<double, double>> sizes(g.nodes.size(), {80.0, 40.0});
  const auto layout = ts::views::layout_architecture(g, sizes, {});
  REQUIRE(layout.nodes.size() == g.nodes.size());
  REQUIRE(layout.edges.size() == g.edges.size());
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    const auto& n = layout.nodes[i];
    CHECK(n.centre.x >= 0);
    CHECK(n.centre.x <= layout.width);
    CHECK(n.width == Approx(80.0));
    for (size_t j = 0; j < i; ++j)  // no two nodes on the same spot
      CHECK(std::hypot(n.centre.x - layout.nodes[j].centre.x,
                       n.centre.y - layout.nodes[j].centre.y) > 10);
  }
  for (const auto& e : layout.edges) {
    CHECK(e.spline.size() >= 4);
    CHECK(e.has_arrow);
  }
  // HBM is above L2 (the graph flows downward from the off-chip memory).
  CHECK(layout.nodes[g.find_node("HBM")->index()].centre.y <
        layout.nodes[g.find_node("L1")->index()].centre.y);
}

TEST_CASE("the architecture view selects nodes and edges and renders headless",
          "[gui][architecture]") {
  const ts::ArchitectureGraph g =
      ts::load_architecture(sample("arch/ascend910b3.yaml").toStdString());
  ts::views::ArchitectureView view;
  view.resize(900, 700);
  view.setGraph(g);
  auto* scene = view.architectureScene();
  const ts::NodeId cube = *g.find_node("Cube");
  REQUIRE(scene->nodeItem(cube.value));
  CHECK(ts::views::ArchitectureScene::nodeText(g, cube).contains(QString::fromUtf8("×20")));
  CHECK(ts::views::ArchitectureScene::edgeText(g, ts::EdgeId{0}) == "1.60 TB/s shared");
  QSignalSpy nodes(&view, &ts::views::ArchitectureView::nodeSelected);
  QSignalSpy edges(&view, &ts::views::ArchitectureView::edgeSelected);
  view.selectNode(cube.value);
  REQUIRE(nodes.count() == 1);
  CHECK(nodes.front().front().toInt() == cube.value);
  view.selectEdge(0);
  REQUIRE(edges.count() == 1);
  CHECK(edges.front().front().toInt() == 0);

  // Values change in place: the layout does not jump.
  const QPointF before = scene->nodeItem(cube.value)->sceneBoundingRect().center();
  ts::ArchitectureGraph edited = g;
  ts::views::write_parameter(edited, g, "edge:HBM->L2.bandwidth", 0.8e12);
  view.setGraph(edited);
  CHECK(scene->nodeItem(cube.value)->sceneBoundingRect().center() == before);
  CHECK(ts::views::ArchitectureScene::edgeText(edited, ts::EdgeId{0}) == "800 GB/s shared");

  const QImage image = scene->toImage(1.5);
  CHECK(image.width() > 200);
  QDir().mkpath(TILESCOPE_SCREENSHOTS);
  CHECK(image.save(TILESCOPE_SCREENSHOTS "/architecture-scene.png"));
}

TEST_CASE("inspector parameters read and write the graph, efficiency against the baseline",
          "[gui][architecture]") {
  const ts::ArchitectureGraph g =
      ts::load_architecture(sample("arch/ascend910b3.yaml").toStdString());
  ts::ArchitectureGraph edited = g;
  ts::views::write_parameter(edited, g, "node:L1.capacity", 1024.0 * 1024);
  CHECK(ts::views::read_parameter(edited, g, "node:L1.capacity") == 1024.0 * 1024);
  ts::views::write_parameter(edited, g, "node:Cube.efficiency", 0.5);
  CHECK(ts::views::read_parameter(edited, g, "node:Cube.efficiency") == Approx(0.5));
  ts::views::write_parameter(edited, g, "node:Cube.efficiency", 1.0);
  ts::views::write_parameter(edited, g, "node:L1.capacity",
                             g.node(*g.find_node("L1")).capacity_bytes);
  CHECK(edited.content_hash() == g.content_hash());  // set back: the same graph
  CHECK_THROWS_AS(ts::views::read_parameter(edited, g, "node:Nope.capacity"), ts::InputError);
}
