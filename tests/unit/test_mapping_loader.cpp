#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "tile/MappingLoader.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

namespace {

// Three lines, so that the root node starts on line 4.
const std::string head = "version: 1\nkind: mapping\ntree:\n";

Mapping mapping_of(const std::string& tree) { return parse_mapping(head + tree, "m.yaml"); }

InputError mapping_error(const std::string& tree) {
  return input_error_of([&] { mapping_of(tree); });
}

std::string dims_of(const std::vector<DimFactor>& factors) {
  std::string text;
  for (const auto& f : factors) text += f.dim;
  return text;
}

}  // namespace

TEST_CASE("the example mapping of docs/formats.md", "[mapping][loader]") {
  Mapping m = load_mapping(fixture("mapping/tiny-gemm.yaml"));
  CHECK(m.name == "tiny-gemm");
  CHECK(m.op_name == "my_op");
  CHECK_FALSE(m.has_free_factors());

  const MappingNode& root = m.root;
  CHECK(root.kind == MappingNodeKind::tile);
  CHECK(root.memory == "DRAM");
  CHECK(root.where.line == 6);
  CHECK(root.where.column == 3);
  REQUIRE(root.temporal.size() == 3);
  CHECK(dims_of(root.temporal) == "MNK");
  CHECK(root.temporal[0].factor.full == 2);
  CHECK(root.temporal[0].where.line == 7);
  CHECK(root.temporal[0].where.column == 14);
  CHECK(root.temporal[2].where.column == 26);
  REQUIRE(root.spatial.size() == 1);
  CHECK(root.spatial[0].factor.full == 4);
  CHECK_FALSE(root.double_buffer);
  CHECK_FALSE(root.order_free);
  REQUIRE(root.children.size() == 1);

  const MappingNode& sram = root.children[0];
  CHECK(sram.memory == "SRAM");
  CHECK(sram.where.line == 10);
  CHECK(sram.where.column == 7);
  CHECK(sram.double_buffer);
  REQUIRE(sram.placements.size() == 1);
  CHECK(sram.placements[0].tensor == "C");
  CHECK(sram.placements[0].memory == "SRAM");
  CHECK(sram.placements[0].where.line == 12);
  CHECK(dims_of(sram.temporal) == "KM");  // as written: outermost first
  const Factor& tail = sram.temporal[1].factor;
  CHECK(tail.full == 8);
  CHECK(tail.tail == 4);
  CHECK(tail.has_tail());
  CHECK_FALSE(sram.temporal[0].factor.has_tail());

  REQUIRE(sram.children.size() == 1);
  const MappingNode& op = sram.children[0];
  CHECK(op.kind == MappingNodeKind::op);
  CHECK(op.compute == "PE");
  CHECK(op.stage.empty());
  CHECK(op.where.line == 15);
  CHECK(op.where.column == 11);
  CHECK(dims_of(op.op_factors) == "MNK");
  CHECK(op.op_factors[1].factor.full == 32);
  CHECK(op.op_factors[1].where.line == 16);
  CHECK(op.children.empty());
}

TEST_CASE("render_tree draws one line per node", "[mapping][render]") {
  Mapping m = load_mapping(fixture("mapping/tiny-gemm.yaml"));
  CHECK(render_tree(m) ==
        "tile DRAM  temporal M=2 N=1 K=1  spatial M=4\n"
        "  tile SRAM  temporal K=4 M=8/4  buffers C=SRAM  [db]\n"
        "    op PE  M=1 N=32 K=4\n");
}

TEST_CASE("free factors and orders, bare or quoted", "[mapping][loader]") {
  Mapping m = load_mapping(fixture("mapping/free-template.yaml"));
  CHECK(m.has_free_factors());
  const MappingNode& root = m.root;
  CHECK(root.order_free);
  REQUIRE(root.temporal.size() == 3);
  CHECK(root.temporal[0].factor.free);  // M: ?
  CHECK(root.temporal[1].factor.free);  // N: "?"
  CHECK_FALSE(root.temporal[2].factor.free);
  const MappingNode& sram = root.children.at(0);
  CHECK(sram.temporal[0].factor.free);  // block style M: ?
  CHECK(sram.temporal[1].factor.full == 2);
  CHECK(sram.temporal[1].factor.tail == 1);
  CHECK(sram.children.at(0).op_factors.at(2).factor.free);
  CHECK(render_tree(m) ==
        "tile DRAM  temporal M=? N=? K=1  order ?\n"
        "  tile SRAM  temporal M=? K=2/1\n"
        "    op PE  M=1 N=32 K=?\n");
}

TEST_CASE("a free factor inside a quoted string stays text", "[mapping][loader]") {
  Mapping m = parse_mapping(
      "version: 1\nkind: mapping\ndescription: 'is it: ?'\ntree: {op: PE, factors: {M: ?}}\n",
      "m.yaml");
  CHECK(m.description == "is it: ?");
  CHECK(m.root.op_factors.at(0).factor.free);
}

TEST_CASE("`order` reorders the temporal loops", "[mapping][loader]") {
  Mapping m = mapping_of(
      "  tile: L2\n  temporal: {M: 2, N: 3, K: 4}\n  order: [K, M, N]\n"
      "  children: [{op: PE}]\n");
  CHECK(dims_of(m.root.temporal) == "KMN");
  CHECK(m.root.temporal[0].factor.full == 4);
  CHECK(m.root.temporal[0].where.line == 5);  // where K was written
  CHECK(m.root.temporal[0].where.column == 26);
  CHECK_FALSE(m.root.order_free);
}

TEST_CASE("scopes, stages and trans nodes", "[mapping][loader]") {
  Mapping m = mapping_of(R"(  tile: UB
  temporal: {R: 8}
  children:
    - scope: pipeline
      children:
        - {op: Vector, stage: add, factors: {R: 1, C: 128}}
        - {trans: T1, to: L1}
        - {op: Vector, stage: layernorm}
)");
  const MappingNode& scope = m.root.children.at(0);
  CHECK(scope.kind == MappingNodeKind::scope);
  CHECK(scope.scope == ScopeKind::pipeline);
  REQUIRE(scope.children.size() == 3);
  CHECK(scope.children[0].stage == "add");
  const MappingNode& trans = scope.children[1];
  CHECK(trans.kind == MappingNodeKind::trans);
  CHECK(trans.tensor == "T1");
  CHECK(trans.target == "L1");
  CHECK(trans.where.line == 10);
  CHECK(render_tree(m) ==
        "tile UB  temporal R=8\n"
        "  scope pipeline\n"
        "    op Vector stage add  R=1 C=128\n"
        "    trans T1 -> L1\n"
        "    op Vector stage layernorm\n");
  CHECK(to_string(ScopeKind::sharing) == "sharing");
}

TEST_CASE("a bad factor is reported at its value", "[mapping][loader]") {
  InputError e = input_error_of([] { load_mapping(fixture("mapping/bad-factor.yaml")); });
  CHECK(e.where().line == 9);
  CHECK(e.where().column == 27);
  CHECK(e.message() == "the tail of `M: 4/8` exceeds its count; expected `F/T` with 1 <= T <= F");
}

TEST_CASE("mapping structure errors", "[mapping][loader]") {
  SECTION("factors that are not factors") {
    for (std::string bad : {"0", "-2", "abc", "2.5", "0/0", "4/0", "/4", "4/"}) {
      INFO(bad);
      InputError e = mapping_error("  op: PE\n  factors: {M: " + bad + "}\n");
      CHECK(e.where().line == 5);
      CHECK(e.where().column == 16);
      CHECK(e.message() ==
            "expected a factor for `M`: a positive integer, `F/T` (a tail, 1 <= T "
            "<= F) or `?`, got '" +
                bad + "'");
    }
  }
  SECTION("two node types in one node") {
    InputError e = mapping_error("  tile: L2\n  op: PE\n");
    CHECK(e.where().line == 5);
    CHECK(e.where().column == 3);
    CHECK(e.message() ==
          "a node has both `tile` and `op`; expected exactly one of tile, op, "
          "scope, trans");
  }
  SECTION("no node type") {
    InputError e = mapping_error("  temporal: {M: 2}\n");
    CHECK(e.where().line == 4);
    CHECK(e.message() == "a mapping node needs one of the keys tile, op, scope, trans");
  }
  SECTION("an unknown key lists the keys of its node type") {
    InputError e = mapping_error("  op: PE\n  factor: {M: 2}\n");
    CHECK(e.where().line == 5);
    CHECK(e.message() ==
          "unknown key 'factor' in op 'PE'; expected one of: op, stage, factors, warps, keep");
  }
  SECTION("a trans needs a node before it") {
    InputError e = mapping_error("  scope: sequential\n  children:\n    - {trans: T1, to: L1}\n");
    CHECK(e.where().line == 6);
    CHECK(e.where().column == 7);
    CHECK_THAT(e.message(), Catch::StartsWith("`trans` moves the tensor produced by the node"));
  }
  SECTION("an unknown scope") {
    InputError e = mapping_error("  scope: serial\n  children: [{op: PE}]\n");
    CHECK(e.where().column == 10);
    CHECK(e.message() ==
          "unknown scope 'serial'; expected sequential, parallel, pipeline or sharing");
  }
  SECTION("a tile without children") {
    InputError e = mapping_error("  tile: L2\n  temporal: {M: 2}\n");
    CHECK(e.where().line == 4);
    CHECK(e.message() ==
          "tile 'L2' has no children; expected `children:` leading down to an "
          "`op` node");
  }
  SECTION("an order naming a dimension without a temporal factor") {
    InputError e = mapping_error(
        "  tile: L2\n  temporal: {M: 2, N: 2}\n  order: [N, K]\n  children: [{op: PE}]\n");
    CHECK(e.where().line == 6);
    CHECK(e.where().column == 14);
    CHECK(e.message() == "`order` lists 'K', which has no temporal factor here (temporal: M, N)");
  }
  SECTION("an order missing a dimension") {
    InputError e = mapping_error(
        "  tile: L2\n  temporal: {M: 2, N: 2}\n  order: [N]\n  children: [{op: PE}]\n");
    CHECK(e.where().column == 10);
    CHECK(e.message() == "`order` must list every temporal dimension once (M, N)");
  }
  SECTION("an order listing a dimension twice") {
    InputError e = mapping_error(
        "  tile: L2\n  temporal: {M: 2, N: 2}\n  order: [N, N]\n  children: [{op: PE}]\n");
    CHECK(e.message() == "`order` lists 'N' twice");
  }
  SECTION("a dimension twice in one band") {
    InputError e = mapping_error("  op: PE\n  factors: {M: 2, M: 4}\n");
    CHECK(e.where().column == 19);
    CHECK(e.message() == "duplicate dimension 'M' in `factors`");
  }
  SECTION("double_buffer is true or false") {
    InputError e = mapping_error("  tile: L2\n  double_buffer: twice\n  children: [{op: PE}]\n");
    CHECK(e.message() == "expected true or false for `double_buffer`, got 'twice'");
  }
  SECTION("no tree") {
    InputError e = input_error_of([] { parse_mapping("version: 1\nkind: mapping\n", "m.yaml"); });
    CHECK(e.where().line == 1);
    CHECK(e.message() == "missing `tree` in a mapping");
  }
}

TEST_CASE("canonical text ignores what carries no meaning", "[mapping][canonical]") {
  const std::string tree =
      "tree:\n  tile: L2\n  temporal: {M: 2, N: 3}\n  spatial: {M: 4, N: 2}\n"
      "  buffers: {A: L2, B: bypass}\n  children: [{op: PE, factors: {M: 1, N: 8}}]\n";
  Mapping a = parse_mapping("version: 1\nkind: mapping\nname: a\n" + tree, "a.yaml");
  Mapping b = parse_mapping(
      "version: 1\nkind: mapping\nname: b  # another name\ndescription: d\noperator: g\n" + tree,
      "b.yaml");
  CHECK(canonical_text(a) == canonical_text(b));

  // spatial factors, buffers and op factors are sets: their order in the file carries no meaning
  Mapping shuffled = parse_mapping(
      "version: 1\nkind: mapping\ntree:\n  tile: L2\n  temporal: {M: 2, N: 3}\n"
      "  spatial: {N: 2, M: 4}\n  buffers: {B: bypass, A: L2}\n"
      "  children: [{op: PE, factors: {N: 8, M: 1}}]\n",
      "c.yaml");
  CHECK(canonical_text(shuffled) == canonical_text(a));

  // the temporal order is the loop order
  Mapping reordered = parse_mapping(
      "version: 1\nkind: mapping\ntree:\n  tile: L2\n  temporal: {N: 3, M: 2}\n"
      "  spatial: {M: 4, N: 2}\n  buffers: {A: L2, B: bypass}\n"
      "  children: [{op: PE, factors: {M: 1, N: 8}}]\n",
      "d.yaml");
  CHECK(canonical_text(reordered) != canonical_text(a));

  Mapping tail = parse_mapping(
      "version: 1\nkind: mapping\ntree:\n  tile: L2\n  temporal: {M: 2, N: 3/1}\n"
      "  spatial: {M: 4, N: 2}\n  buffers: {A: L2, B: bypass}\n"
      "  children: [{op: PE, factors: {M: 1, N: 8}}]\n",
      "e.yaml");
  CHECK(canonical_text(tail) != canonical_text(a));
}

TEST_CASE("a cached template is read again once its file changes", "[mapping][loader]") {
  const ts::test::TempDir dir("template-cache");
  const std::string path = dir / "template.yaml";
  const auto write = [&](const std::string& name) {
    std::ofstream(path) << head << "  tile: DRAM\n  temporal: {M: 2}\n  children:\n"
                        << "    - op: " << name << "\n";
  };
  write("PE");
  CHECK(load_mapping_cached(path).root.children.at(0).compute == "PE");
  CHECK(load_mapping_cached(path).root.children.at(0).compute == "PE");  // from the cache
  write("Cube");  // a new size: a new version, whatever the clock's resolution
  CHECK(load_mapping_cached(path).root.children.at(0).compute == "Cube");
  std::filesystem::remove(path);
  CHECK(input_error_of([&] { load_mapping_cached(path); }).where().file == path);
}
