// Bad input through the CLI: exit status 2, nothing on stdout, and exactly one line on stderr,
// `<file>:<line>:<col>: <message>`, naming the offending file and the place of the fault in it.
// Each case says the line and the text that starts at the reported column, so the expected
// place is read off the fixture itself.
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

namespace {

using namespace ts::cli_test;
using ts::test::TempDir;

struct Fault {
  std::string file;                   // as given on the command line, absolute here
  int line = 0;                       // 1-based
  std::string at;                     // the text that starts at the reported column of that line
  std::vector<std::string> mentions;  // words the message must contain
  bool exact_column = true;           // false: the line must match, any column on it will do
};

// The text of a line of a file, 1-based.
std::string line_of(const std::string& file, int line) {
  const std::vector<std::string> lines = split_lines(read_text(file));
  REQUIRE(line >= 1);
  REQUIRE(static_cast<size_t>(line) <= lines.size());
  return lines[static_cast<size_t>(line - 1)];
}

void check_fault(const RunResult& r, const Fault& f) {
  INFO(r.command << "\nexit " << r.status << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK_FALSE(r.signaled);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  REQUIRE_FALSE(r.err.empty());
  CHECK(r.err.back() == '\n');
  const std::vector<std::string> lines = split_lines(r.err);
  REQUIRE(lines.size() == 1);
  const std::string& err = lines[0];

  // `<file>:<line>:<col>: <message>`
  REQUIRE(err.rfind(f.file + ":", 0) == 0);
  std::smatch m;
  const std::string rest = err.substr(f.file.size() + 1);
  REQUIRE(std::regex_match(rest, m, std::regex("([0-9]+):([0-9]+): (.+)")));
  const int line = std::stoi(m[1].str());
  const int column = std::stoi(m[2].str());
  const std::string message = m[3].str();
  CHECK(line == f.line);

  const std::string text = line_of(f.file, f.line);
  INFO("line " << f.line << " of " << f.file << ": " << text);
  const size_t at = text.find(f.at);
  REQUIRE(at != std::string::npos);  // the fixture still has the fault where this case says
  if (f.exact_column) CHECK(column == static_cast<int>(at) + 1);
  CHECK(column >= 1);
  CHECK(static_cast<size_t>(column) <= text.size());

  for (const std::string& word : f.mentions) {
    INFO("the message should mention '" << word << "'");
    CHECK(message.find(word) != std::string::npos);
  }
}

const std::string kSuite = "samples/workloads/bert-base.yaml";
const std::string kTiny = fixture("arch/tiny.yaml");
const std::string kTwoUnits = fixture("cli/two-units.yaml");
const std::string kSmall = fixture("cli/small-suite.yaml");
const std::string kGemmOk = fixture("cli/gemm-ok.yaml");

// A graph file at fault: through predict, through `validate FILE`, and through the graph a
// mapping is validated against. `standalone`: the file is at fault on its own too, not only as a
// graph (a file of another kind is checked as that kind by `validate FILE`).
void check_graph_fault(const Fault& f, bool standalone = true) {
  SECTION("predict") {
    check_fault(run_tilescope({"predict", "--arch", f.file, "--workload", kSuite}), f);
  }
  SECTION("predict with a mapping") {
    check_fault(run_tilescope({"predict", "--arch", f.file, "--workload", kSmall, "--mapping",
                               kGemmOk, "--op", "gemm_small"}),
                f);
  }
  if (standalone) {
    SECTION("validate FILE") { check_fault(run_tilescope({"validate", f.file}), f); }
  }
  SECTION("validate --arch FILE MAPPING") {
    check_fault(run_tilescope({"validate", "--arch", f.file, "--workload", kSmall, "--op",
                               "gemm_small", kGemmOk}),
                f);
  }
}

// A mapping at fault for operator `op` of the small suite on graph `arch`.
void check_mapping_fault(const std::string& arch, const std::string& op, const Fault& f) {
  SECTION("predict --mapping") {
    check_fault(run_tilescope({"predict", "--arch", arch, "--workload", kSmall, "--mapping", f.file,
                               "--op", op}),
                f);
  }
  SECTION("predict --mapping --format json --explain") {
    check_fault(run_tilescope({"predict", "--arch", arch, "--workload", kSmall, "--mapping", f.file,
                               "--op", op, "--format", "json", "--explain"}),
                f);
  }
  SECTION("predict --mapping without --op (the mapping names its operator)") {
    check_fault(
        run_tilescope({"predict", "--arch", arch, "--workload", kSmall, "--mapping", f.file}), f);
  }
  SECTION("validate --arch --workload --op MAPPING") {
    check_fault(
        run_tilescope({"validate", "--arch", arch, "--workload", kSmall, "--op", op, f.file}), f);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The fixtures that must work: each error fixture below changes one thing in one of these.

TEST_CASE("the valid CLI fixtures predict and validate", "[cli][errors]") {
  SECTION("gemm-ok on tiny") {
    const RunResult r = run_tilescope({"predict", "--arch", kTiny, "--workload", kSmall,
                                       "--mapping", kGemmOk, "--format", "csv"});
    INFO(r.command << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.err.empty());
    const auto lines = split_lines(r.out);
    REQUIRE(lines.size() == 2);
    CHECK(lines[1].rfind("gemm_small,", 0) == 0);
    const RunResult v = run_tilescope(
        {"validate", "--arch", kTiny, "--workload", kSmall, "--op", "gemm_small", kGemmOk});
    INFO(v.command << "\n" << v.out << v.err);
    CHECK(v.status == 0);
    CHECK(v.err.empty());
  }
  SECTION("fused-ok on two-units") {
    const std::string mapping = fixture("cli/fused-ok.yaml");
    const RunResult r = run_tilescope({"predict", "--arch", kTwoUnits, "--workload", kSmall,
                                       "--mapping", mapping, "--format", "csv"});
    INFO(r.command << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    const auto lines = split_lines(r.out);
    REQUIRE(lines.size() == 2);
    CHECK(lines[1].rfind("add_relu,", 0) == 0);
    const RunResult v = run_tilescope(
        {"validate", "--arch", kTwoUnits, "--workload", kSmall, "--op", "add_relu", mapping});
    INFO(v.command << "\n" << v.out << v.err);
    CHECK(v.status == 0);
  }
  SECTION("the whole small suite on two-units, auto-mapped") {
    const RunResult r =
        run_tilescope({"predict", "--arch", kTwoUnits, "--workload", kSmall, "--format", "csv"});
    INFO(r.command << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(split_lines(r.out).size() == 1 + 4);  // header + the 4 operators of small-suite.yaml
  }
  SECTION("validate the fixture files on their own") {
    const RunResult r =
        run_tilescope({"validate", kTwoUnits, kSmall, kGemmOk, fixture("cli/fused-ok.yaml")});
    INFO(r.command << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(split_lines(r.out).size() == 4);
  }
}

// ---------------------------------------------------------------------------------------------
// Graph files.

TEST_CASE("malformed YAML is reported where the parser breaks", "[cli][errors]") {
  // Line 6 opens a flow map `{name: DRAM, ...` without closing it; in flow context the plain
  // scalar `1GiB` runs on into line 7 and the parser breaks at the `{` of line 7.
  check_graph_fault({fixture("arch/malformed.yaml"), 7, "{name: SRAM", {"YAML"}});
}

TEST_CASE("an edge to an unknown node", "[cli][errors]") {
  check_graph_fault({fixture("arch/unknown-node-edge.yaml"), 15, "L9", {"L9"}});
}

TEST_CASE("an edge without bandwidth", "[cli][errors]") {
  check_graph_fault({fixture("arch/edge-without-bandwidth.yaml"), 9, "{from: HBM", {"bandwidth"}});
}

TEST_CASE("a size with a bad unit", "[cli][errors]") {
  check_graph_fault({fixture("arch/bad-unit.yaml"), 8, "64Gb", {"64Gb"}});
}

TEST_CASE("a graph file of the wrong kind", "[cli][errors]") {
  // `validate FILE` reads it as the workload it says it is; as a graph it is the wrong kind.
  check_graph_fault({fixture("arch/wrong-kind.yaml"), 2, "workload", {"architecture"}}, false);
}

// ---------------------------------------------------------------------------------------------
// Workload and mapping files.

TEST_CASE("a workload with an unknown operator type", "[cli][errors]") {
  const Fault f{fixture("workload/unknown-type.yaml"), 7, "conv3d", {"conv3d"}};
  SECTION("predict") {
    check_fault(
        run_tilescope({"predict", "--arch", "samples/arch/ascend910b3.yaml", "--workload", f.file}),
        f);
  }
  SECTION("validate FILE") { check_fault(run_tilescope({"validate", f.file}), f); }
}

TEST_CASE("a tail larger than its count", "[cli][errors]") {
  const Fault f{fixture("mapping/bad-factor.yaml"), 9, "4/8", {"4/8"}};
  SECTION("predict --mapping") {
    check_fault(run_tilescope({"predict", "--arch", kTiny, "--workload", kSmall, "--mapping",
                               f.file, "--op", "gemm_small"}),
                f);
  }
  SECTION("validate FILE") { check_fault(run_tilescope({"validate", f.file}), f); }
}

TEST_CASE("mapping factors that do not multiply to the problem size", "[cli][errors]") {
  // M: 2 x 4 x 6 x 1 = 48 against M=64; reported at the root tile.
  check_mapping_fault(kTiny, "gemm_small",
                      {fixture("cli/gemm-wrong-factors.yaml"), 9, "tile: DRAM", {"48", "64"}});
}

TEST_CASE("a tile that overflows its memory", "[cli][errors]") {
  // 112 KiB of buffers per SRAM instance of 64 KiB; reported at the SRAM tile.
  check_mapping_fault(kTiny, "gemm_wide",
                      {fixture("cli/gemm-overflow.yaml"), 15, "tile: SRAM", {"SRAM"}});
}

TEST_CASE("an op on a compute node that cannot run it", "[cli][errors]") {
  // A matmul on VEC, which runs elementwise and reduction only; reported at the op.
  check_mapping_fault(kTwoUnits, "gemm_small",
                      {fixture("cli/gemm-on-vector.yaml"), 16, "op: VEC", {"VEC", "matmul"}});
}

TEST_CASE("a trans with no path in the graph", "[cli][errors]") {
  // T1 moves from UB to ROM, which no edge enters; reported at the trans node.
  check_mapping_fault(kTwoUnits, "add_relu",
                      {fixture("cli/trans-no-path.yaml"), 22, "trans: T1", {"ROM", "T1"}});
}

TEST_CASE("validate reports each bad file and checks the rest", "[cli][errors]") {
  const std::string good = fixture("cli/fused-ok.yaml");
  const std::string bad = fixture("cli/trans-no-path.yaml");
  const RunResult r = run_tilescope(
      {"validate", "--arch", kTwoUnits, "--workload", kSmall, "--op", "add_relu", good, bad});
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.status == 2);
  const auto out = split_lines(r.out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].rfind(good + ":", 0) == 0);
  const auto err = split_lines(r.err);
  REQUIRE(err.size() == 1);
  CHECK(err[0].rfind(bad + ":22:", 0) == 0);
}

// ---------------------------------------------------------------------------------------------
// Files that name other files or operators: the error belongs to the place that names them.

TEST_CASE("a graph whose mapping template does not exist", "[cli][errors]") {
  // The template is loaded when an operator is auto-mapped; the fault is the entry in the graph
  // that names the missing file, not the missing file itself.
  const std::string graph = fixture("cli/missing-template.yaml");
  const Fault f{graph, 21, "no-such-template.yaml", {"no-such-template.yaml"}, false};
  check_fault(
      run_tilescope({"predict", "--arch", graph, "--workload", kSmall, "--op", "gemm_small"}), f);
}

TEST_CASE("a mapping for an operator the workload does not have", "[cli][errors]") {
  // The operator's name comes from the mapping's `operator:` (line 6), not from --op.
  const Fault f{
      fixture("cli/gemm-unknown-operator.yaml"), 6, "gemm_missing", {"gemm_missing"}, false};
  SECTION("predict --mapping") {
    check_fault(
        run_tilescope({"predict", "--arch", kTiny, "--workload", kSmall, "--mapping", f.file}), f);
  }
  SECTION("validate --arch --workload MAPPING") {
    check_fault(run_tilescope({"validate", "--arch", kTiny, "--workload", kSmall, f.file}), f);
  }
}

// ---------------------------------------------------------------------------------------------
// Counts whose products overflow 64 bits (issue 18): refused where the product overflows, with
// the factors written so far, instead of wrapping around into a silently wrong answer. Nothing
// is written: a folder given for saved mappings stays empty.

TEST_CASE("a granule whose product overflows 64 bits", "[cli][errors][checked]") {
  // granule: [9223372036854775807, 8, 4]: 9223372036854775807 x 8 overflows at the 8.
  const Fault f{fixture("arch/granule-overflow.yaml"),
                23,
                "8, 4]",
                {"granule 9223372036854775807 x 8 overflows 64 bits"}};
  check_graph_fault(f);
  SECTION("predict --save-mappings writes nothing") {
    TempDir dir("granule-overflow");
    const std::string saved = dir / "mappings";
    check_fault(run_tilescope({"predict", "--arch", f.file, "--workload", kSmall, "--op",
                               "gemm_small", "--save-mappings", saved}),
                f);
    CHECK(dir.names().empty());
  }
}

TEST_CASE("strategy degrees whose GPU count overflows 64 bits", "[cli][errors][checked]") {
  // DP 9223372036854775807 x TP 2 overflows at the tensor-parallel degree, line 9.
  const Fault f{fixture("dist/strategy-overflow.yaml"),
                9,
                "2",
                {"data_parallel.degree x tensor_parallel.degree x pipeline_parallel.degree",
                 "9223372036854775807 x 2 overflows 64 bits"}};
  check_fault(run_tilescope({"validate", f.file}), f);
}

TEST_CASE("workload sizes whose element count overflows 64 bits", "[cli][errors][checked]") {
  // huge: M 3e18 x K 4 elements of A overflow at K; the column is that of the value 4.
  const Fault f{fixture("workload/size-overflow.yaml"),
                9,
                "4}",
                {"tensor 'A' of operator 'huge'", "3000000000000000000 x 4 overflows 64 bits"}};
  SECTION("validate") { check_fault(run_tilescope({"validate", f.file}), f); }
  SECTION("predict") {
    check_fault(run_tilescope({"predict", "--arch", kTiny, "--workload", f.file}), f);
  }
}

// ---------------------------------------------------------------------------------------------
// Errors that arise after loading, from what a file's numbers make: they point at the number.

namespace {

// `simulate` of `model` on one of Selene's A100s (HBM 80 GB), at micro-batch 2 and no parallelism.
RunResult simulate_on_one_a100(const TempDir& dir, const std::string& model) {
  const std::string strategy = dir / "strategy.yaml";
  std::ofstream(strategy) << "version: 1\nkind: strategy\n"
                             "data_parallel: {degree: 1}\ntensor_parallel: {degree: 1}\n"
                             "pipeline_parallel: {degree: 1}\nbatch: {global: 2, micro: 2}\n";
  return run_tilescope({"simulate", "--model", model, "--strategy", strategy, "--cluster",
                        "samples/dist/clusters/selene.yaml"});
}

}  // namespace

TEST_CASE("a model too large for its device names the model's field", "[cli][errors][simulate]") {
  // seq_len 2^22 at micro-batch 2 makes ln_attn, the first operator of a layer, a layernorm over
  // R = 2 x 4194304 = 8388608 tokens of C = 4096: X and Y are 2^23 x 2^12 x 2 bytes = 64 GiB each,
  // gamma and beta 8 KiB each, 128 GiB and 16 KiB in all ("128 GiB" to three figures). The A100's
  // HBM, its outermost memory, holds 80 GB = 80e9 bytes = 74.5 GiB. seq_len (4194304) is the
  // larger of the two sizes that make the tokens x hidden tensors large, so the error is at it.
  TempDir dir("model-too-large");
  const std::string model = dir / "model.yaml";
  std::ofstream(model) << "version: 1\nkind: model\nname: too-long\nfamily: gpt\nlayers: 2\n"
                          "hidden: 4096\nheads: 32\nffn: 16384\nvocab: 1000\n"
                          "seq_len: 4194304\n";
  const Fault f{model,
                10,
                "4194304",
                {"operator 'ln_attn' (R=8388608 C=4096) of model 'too-long', sized by its "
                 "`seq_len` 4194304 at micro-batch 2 on 1 tensor-parallel shard, needs 128 GiB "
                 "for its tensors but HBM, the outermost memory of 'nvidia-a100', holds 74.5 GiB"}};
  check_fault(simulate_on_one_a100(dir, model), f);
}

TEST_CASE("a graph model's operator too large for its device is reported at its entry",
          "[cli][errors][simulate]") {
  // The same layernorm as above, written as a block entry: rows = tokens = micro-batch 2 x
  // seq_len 4194304 = 8388608, cols = hidden 4096; 128 GiB against the A100's 74.5 GiB. Its sizes
  // are its entry's (line 9); the micro-batch, from the strategy, is said in the message.
  TempDir dir("graph-too-large");
  const std::string model = dir / "graph.yaml";
  std::ofstream(model) << "version: 1\nkind: model\nname: tall\nfamily: graph\nlayers: 2\n"
                          "seq_len: 4194304\nhidden: 4096\nblock:\n"
                          "  - {name: norm, type: layernorm, rows: tokens, cols: hidden}\n";
  const Fault f{model,
                9,
                "{name: norm",
                {"operator 'norm' (R=8388608 C=4096) of a layer at micro-batch 2 on 1 "
                 "tensor-parallel shard, needs 128 GiB for its tensors but HBM, the outermost "
                 "memory of 'nvidia-a100', holds 74.5 GiB"}};
  check_fault(simulate_on_one_a100(dir, model), f);
}

TEST_CASE("a compute node that no memory reaches", "[cli][errors]") {
  // add_small is elementwise; the graph has no elementwise template, and VEC, its one
  // elementwise unit, has no edge from any memory: reported at the VEC node.
  const Fault f{fixture("cli/unreachable-vector.yaml"),
                17,
                "name: VEC",
                {"graph 'unreachable-vector': no memory reaches compute node 'VEC'", "add_small"}};
  check_fault(
      run_tilescope({"predict", "--arch", f.file, "--workload", kSmall, "--op", "add_small"}), f);
}

TEST_CASE("fixed template factors whose product overflows 64 bits", "[cli][errors][checked]") {
  // Under the free spatial M at DRAM: M 4611686018427387904 (2^62) at SRAM x 8 at the op is 2^65,
  // past 2^63-1; the mapper bounds the free factor by that product, and reports it at the op.
  const Fault f{fixture("cli/gemm-template-factor-overflow.yaml"),
                17,
                "op: PE",
                {"fixed factors of dimension 'M' under a free one: 4611686018427387904 x 8 "
                 "overflows 64 bits"}};
  check_fault(run_tilescope({"predict", "--arch", kTiny, "--workload", kSmall, "--mapping", f.file,
                             "--op", "gemm_small"}),
              f);
}

TEST_CASE("an operator of a type its unit has no operation of", "[cli][errors][dtype]") {
  // tiny's PE has fp16 matmul alone: the int16 GEMM is refused at the operator, naming the unit,
  // its types and the `runs_as:` that would run it; the graph that says so predicts it.
  const Fault f{fixture("workload/int16-gemm.yaml"),
                7,
                "{name: gemm_int16",
                {"operator 'gemm_int16'", "is int16", "compute node 'PE'", "matmul types: fp16",
                 "runs_as: {int16: fp16}"}};
  check_fault(run_tilescope({"predict", "--arch", kTiny, "--workload", f.file}), f);
  const RunResult ok =
      run_tilescope({"predict", "--arch", fixture("arch/tiny-runs-int16-as-fp16.yaml"),
                     "--workload", f.file, "--format", "csv"});
  INFO(ok.command << "\n" << ok.out << ok.err);
  CHECK(ok.status == 0);
  CHECK(ok.out.find("gemm_int16,") != std::string::npos);
}
