// `tilescope predict` on the bundled graphs and suites: output formats, one row per operator,
// and properties of every prediction checked against the input files themselves (read here with
// a small scanner, independent of the loaders under test).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "SuiteTotals.hpp"

namespace {

using namespace ts::cli_test;
using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// A scanner for the bundled YAML files: enough of YAML for their top-level scalars and the
// items of their top-level lists (block or flow style), nothing more.

std::string strip_comment(const std::string& line) {
  for (size_t i = 0; i < line.size(); ++i)
    if (line[i] == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(line[i - 1]))))
      return line.substr(0, i);
  return line;
}

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

size_t indent_of(const std::string& line) { return line.find_first_not_of(' '); }

struct YamlScan {
  std::map<std::string, std::string> scalars;                  // top-level `key: value`
  std::map<std::string, std::vector<std::string>> list_items;  // top-level lists, item texts
};

YamlScan scan_yaml(const std::string& path) {
  YamlScan scan;
  std::string section;
  size_t item_indent = std::string::npos;  // indentation of the current list's dashes
  for (const std::string& raw : split_lines(read_text(path))) {
    const std::string line = strip_comment(raw);
    if (blank(line)) continue;
    if (line[0] != ' ') {  // a top-level key
      const size_t colon = line.find(':');
      section = line.substr(0, colon);
      std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      value.erase(value.find_last_not_of(" \t\r") + 1);
      scan.scalars[section] = value;
      item_indent = std::string::npos;
      continue;
    }
    const size_t ind = indent_of(line);
    const bool dash = line.compare(ind, 2, "- ") == 0;
    if (dash && (item_indent == std::string::npos || ind == item_indent)) {
      item_indent = ind;
      scan.list_items[section].push_back(line.substr(ind + 2));
    } else if (!scan.list_items[section].empty()) {
      scan.list_items[section].back() += "\n" + line;
    }
  }
  return scan;
}

// The first value of `key` in an item, block (`key: v`) or flow (`{key: v, ...}`) style.
std::optional<std::string> field(const std::string& item, const std::string& key) {
  const std::regex re("(?:^|[\\s{,])" + key + ":\\s*([^,}\\s]+)");
  std::smatch m;
  if (!std::regex_search(item, m, re)) return std::nullopt;
  return m[1].str();
}

// `1.8GHz`, `700MHz`, `12us`, `5ns`: a number and a unit with a known scale.
double quantity(const std::string& text, const std::map<std::string, double>& units) {
  const std::regex re("^([0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]+)$");
  std::smatch m;
  if (!std::regex_match(text, m, re)) throw std::runtime_error("not a quantity: " + text);
  const auto u = units.find(m[2].str());
  if (u == units.end()) throw std::runtime_error("unknown unit in " + text);
  return std::stod(m[1].str()) * u->second;
}

struct GraphFile {
  std::string path;  // root-relative
  double clock_hz = 0;
  double launch_us = 0;
  bool nodes_have_own_clock = false;
  std::map<std::string, std::string> node_type;  // name -> memory | compute
  std::set<std::string> edges;                   // "A->B"
};

GraphFile read_graph(const std::string& relative) {
  const YamlScan scan = scan_yaml(root_path(relative));
  GraphFile g;
  g.path = relative;
  g.clock_hz =
      quantity(scan.scalars.at("clock"), {{"GHz", 1e9}, {"MHz", 1e6}, {"kHz", 1e3}, {"Hz", 1}});
  if (scan.scalars.count("launch_overhead"))
    g.launch_us = quantity(scan.scalars.at("launch_overhead"),
                           {{"s", 1e6}, {"ms", 1e3}, {"us", 1}, {"ns", 1e-3}});
  for (const std::string& item : scan.list_items.at("nodes")) {
    const auto name = field(item, "name");
    const auto type = field(item, "type");
    if (!name || !type) throw std::runtime_error(relative + ": a node without name or type");
    g.node_type[*name] = *type;
    if (field(item, "clock")) g.nodes_have_own_clock = true;
  }
  for (const std::string& item : scan.list_items.at("edges")) {
    const auto from = field(item, "from");
    const auto to = field(item, "to");
    if (!from || !to) throw std::runtime_error(relative + ": an edge without from or to");
    g.edges.insert(*from + "->" + *to);
  }
  return g;
}

// Operator names of a workload file, in file order.
std::vector<std::string> read_operators(const std::string& relative) {
  const YamlScan scan = scan_yaml(root_path(relative));
  std::vector<std::string> names;
  for (const std::string& item : scan.list_items.at("operators")) {
    const auto name = field(item, "name");
    if (!name) throw std::runtime_error(relative + ": an operator without a name");
    names.push_back(*name);
  }
  return names;
}

// ---------------------------------------------------------------------------------------------

std::string first_token(const std::string& line) {
  const size_t b = line.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return line.substr(b, line.find(' ', b) - b);
}

std::vector<std::string> split_csv_simple(const std::string& line) {
  std::vector<std::string> fields;
  std::string f;
  std::istringstream in(line);
  while (std::getline(in, f, ',')) fields.push_back(f);
  if (!line.empty() && line.back() == ',') fields.push_back("");
  return fields;
}

// The lines of predict's stderr, each of which must be a warning that a mapper search did not
// converge (the one thing predict may say there on a bundled suite).
size_t convergence_warnings(const std::string& err) {
  std::istringstream lines(err);
  std::string line;
  size_t count = 0;
  while (std::getline(lines, line)) {
    INFO("stderr line: " << line);
    REQUIRE(line.rfind("warning: the mapper's search for '", 0) == 0);
    ++count;
  }
  return count;
}

json predict_json(const std::vector<std::string>& args) {
  std::vector<std::string> full{"predict"};
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--format");
  full.push_back("json");
  const RunResult r = run_tilescope(full);
  INFO(r.command << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  // The one thing predict may say on stderr is that a mapper search did not converge (one line
  // per such operator); the JSON must then mark exactly those operators.
  json doc = json::parse(r.out);
  size_t unconverged = 0;
  for (const json& op : doc.at("operators"))
    if (!op.value("mapper_converged", true)) ++unconverged;
  CHECK(unconverged == convergence_warnings(r.err));
  if (unconverged > 0) WARN(unconverged << " operator searches did not converge: " << r.command);
  return doc;
}

// What every operator entry of `predict --format json` must satisfy on graph `g`.
void check_prediction(const json& op, const GraphFile& g) {
  REQUIRE(op.contains("name"));
  INFO("graph " << g.path << ", operator " << op["name"]);
  CHECK(op["name"].is_string());
  CHECK_FALSE(op["name"].get<std::string>().empty());

  REQUIRE(op.contains("latency_us"));
  const double latency_us = op["latency_us"].get<double>();
  CHECK(std::isfinite(latency_us));
  CHECK(latency_us > 0);

  REQUIRE(op.contains("launch_overhead_us"));
  CHECK(op["launch_overhead_us"].get<double>() == Approx(g.launch_us).margin(1e-9));

  REQUIRE(op.contains("cycles"));
  const double cycles = op["cycles"].get<double>();
  CHECK(cycles > 0);
  if (!g.nodes_have_own_clock)  // cycles of the graph clock over the device time
    CHECK(cycles == Approx(latency_us * 1e-6 * g.clock_hz).epsilon(1e-3));

  REQUIRE(op.contains("bound_by"));
  const std::string bound = op["bound_by"].get<std::string>();
  std::smatch m;
  if (std::regex_match(bound, m, std::regex("compute:(.+)"))) {
    INFO("bound_by " << bound);
    REQUIRE(g.node_type.count(m[1].str()) == 1);
    CHECK(g.node_type.at(m[1].str()) == "compute");
  } else if (std::regex_match(bound, m, std::regex("edge:(.+)->(.+)"))) {
    INFO("bound_by " << bound);
    CHECK(g.node_type.count(m[1].str()) == 1);
    CHECK(g.node_type.count(m[2].str()) == 1);
    CHECK(g.edges.count(m[1].str() + "->" + m[2].str()) == 1);
  } else {
    CHECK(bound == "launch");
  }

  REQUIRE(op.contains("utilization"));
  const double util = op["utilization"].get<double>();
  CHECK(util >= 0.0);
  CHECK(util <= 1.0);

  REQUIRE(op.contains("traffic"));
  REQUIRE(op["traffic"].is_array());
  CHECK_FALSE(op["traffic"].empty());
  for (const json& t : op["traffic"]) {
    REQUIRE(t.contains("edge"));
    REQUIRE(t.contains("bytes"));
    const std::string edge = t["edge"].get<std::string>();
    INFO("traffic on " << edge);
    CHECK(g.edges.count(edge) == 1);
    CHECK(t["bytes"].get<double>() > 0);
  }
}

// The names of operator entries, in output order.
std::vector<std::string> names_of(const json& doc) {
  std::vector<std::string> names;
  for (const json& op : doc.at("operators")) names.push_back(op.at("name").get<std::string>());
  return names;
}

const std::string kAscend = "samples/arch/ascend910b3.yaml";
const std::string kH200 = "samples/arch/nvidia-h200.yaml";

}  // namespace

TEST_CASE("the scanner reads the bundled files as the loaders do", "[cli][predict]") {
  // Guards the scanner above: its counts agree with `tilescope validate`'s summaries.
  for (const std::string& arch : files_in("samples/arch")) {
    const GraphFile g = read_graph(arch);
    const RunResult r = run_tilescope({"validate", arch});
    INFO(r.command << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find(std::to_string(g.node_type.size()) + " nodes, " +
                     std::to_string(g.edges.size()) + " edges") != std::string::npos);
    CHECK(g.clock_hz > 0);
  }
  for (const std::string& suite : files_in("samples/workloads")) {
    const auto ops = read_operators(suite);
    const RunResult r = run_tilescope({"validate", suite});
    INFO(r.command << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find(std::to_string(ops.size()) + " operators") != std::string::npos);
  }
}

TEST_CASE("predict bert-base on the Ascend 910B3 as JSON", "[cli][predict]") {
  const GraphFile g = read_graph(kAscend);
  REQUIRE(g.launch_us == Approx(12));    // the graph says `launch_overhead: 12us`
  REQUIRE(g.clock_hz == Approx(1.8e9));  // and `clock: 1.8GHz`
  REQUIRE_FALSE(g.nodes_have_own_clock);
  const std::vector<std::string> ops = read_operators("samples/workloads/bert-base.yaml");
  REQUIRE(ops.size() >= 10);

  const json doc =
      predict_json({"--arch", kAscend, "--workload", "samples/workloads/bert-base.yaml"});
  REQUIRE(doc.contains("operators"));
  REQUIRE(doc["operators"].is_array());
  CHECK(names_of(doc) == ops);  // one entry per operator, in the order of the file

  const RunResult csv = run_tilescope({"predict", "--arch", kAscend, "--workload",
                                       "samples/workloads/bert-base.yaml", "--format", "csv"});
  REQUIRE(csv.status == 0);
  CHECK(split_lines(csv.out).size() == ops.size() + 1);  // header + one row per operator

  for (const json& op : doc["operators"]) {
    check_prediction(op, g);
    INFO(op["name"]);
    CHECK(op["launch_overhead_us"].get<double>() == 12.0);
    CHECK(op["cycles"].get<double>() ==
          Approx(op["latency_us"].get<double>() * 1.8e3).epsilon(1e-3));
  }
}

TEST_CASE("predict every bundled suite on every bundled graph", "[cli][predict][slow]") {
  const std::vector<std::string> graphs = files_in("samples/arch");
  const std::vector<std::string> suites = files_in("samples/workloads");
  REQUIRE(graphs.size() >= 6);
  REQUIRE(suites.size() >= 6);
  REQUIRE(std::count(graphs.begin(), graphs.end(), kAscend) == 1);
  REQUIRE(std::count(graphs.begin(), graphs.end(), kH200) == 1);

  const std::string arch = GENERATE_COPY(from_range(graphs));
  const GraphFile g = read_graph(arch);
  for (const std::string& suite : suites) {
    INFO("--arch " << arch << " --workload " << suite);
    const std::vector<std::string> ops = read_operators(suite);
    REQUIRE_FALSE(ops.empty());

    // The host suite is fp32; the accelerator arrays' matrix units have 8- and 16-bit
    // operations only and their graphs say nothing of fp32: an error at the first GEMM, not an
    // answer at another type's rate (docs/formats.md, "Operations by data type").
    const bool fp32_refused =
        suite.ends_with("/host-suite.yaml") && (arch.find("/eyeriss-") != std::string::npos ||
                                                arch.find("/systolic-") != std::string::npos);
    if (fp32_refused) {
      const RunResult r = run_tilescope({"predict", "--arch", arch, "--workload", suite});
      INFO(r.err);
      CHECK(r.status == 2);
      CHECK(r.out.empty());
      CHECK(r.err.rfind(suite + ":", 0) == 0);
      CHECK(r.err.find("is fp32 but compute node") != std::string::npos);
      CHECK(r.err.find("has no matmul operation of that type") != std::string::npos);
      continue;
    }
    // Timeloop's designs have integer MACs and nothing else: a transformer's softmax and layer
    // norms are refused at their first operator, and a Timeloop layer (int8 or int16) runs
    // where a graph has a MAC of its type. Each runs the convolution suites (their fp16 as the
    // design's integer word, runs_as) and its own layer.
    const bool timeloop_graph = arch.find("/timeloop-") != std::string::npos;
    const bool timeloop_layer = suite.find("/timeloop-") != std::string::npos;
    const bool convolutions = suite.ends_with("/resnet50.yaml") ||
                              suite.ends_with("/alexnet.yaml") ||
                              suite.ends_with("/mobilenet-v1.yaml");
    if ((timeloop_graph && !convolutions && !timeloop_layer) || timeloop_layer) {
      const RunResult r = run_tilescope({"predict", "--arch", arch, "--workload", suite});
      INFO(r.err);
      const bool own_layer =
          timeloop_layer && arch.substr(arch.rfind('/')) == suite.substr(suite.rfind('/'));
      if (own_layer) CHECK(r.status == 0);
      if (r.status != 0) {
        CHECK(r.status == 2);
        CHECK(r.out.empty());
        CHECK((r.err.find("has no compute node that runs") != std::string::npos ||
               r.err.find("has no matmul operation of that type") != std::string::npos));
      }
      continue;
    }

    const json doc = predict_json({"--arch", arch, "--workload", suite});
    CHECK(doc.value("schema_version", 0) == 1);
    CHECK(names_of(doc) == ops);
    for (const json& op : doc.at("operators")) check_prediction(op, g);
    check_total_no_slower(arch, suite, doc);

    if (arch != kAscend && arch != kH200) continue;
    // The table: one row per operator, each operator name the first word of exactly one line.
    const RunResult table = run_tilescope({"predict", "--arch", arch, "--workload", suite});
    INFO(table.command << "\n" << table.out << table.err);
    REQUIRE(table.status == 0);
    size_t unconverged = 0;
    for (const json& op : doc.at("operators"))
      if (!op.value("mapper_converged", true)) ++unconverged;
    CHECK(convergence_warnings(table.err) == unconverged);
    const std::set<std::string> names(ops.begin(), ops.end());
    std::map<std::string, int> rows;
    for (const std::string& line : split_lines(table.out))
      if (names.count(first_token(line))) ++rows[first_token(line)];
    for (const std::string& name : ops) {
      INFO("operator " << name);
      CHECK(rows[name] == 1);
    }
  }
}

TEST_CASE("predict --format csv agrees with JSON, one line per operator", "[cli][predict]") {
  const std::string suite = "samples/workloads/vit-b16.yaml";
  const std::vector<std::string> ops = read_operators(suite);
  const json doc = predict_json({"--arch", kH200, "--workload", suite});
  const RunResult csv =
      run_tilescope({"predict", "--arch", kH200, "--workload", suite, "--format", "csv"});
  INFO(csv.command << "\n" << csv.out << csv.err);
  REQUIRE(csv.status == 0);
  CHECK(csv.err.empty());

  const std::vector<std::string> lines = split_lines(csv.out);
  REQUIRE(lines.size() == ops.size() + 1);
  const std::vector<std::string> header = split_csv_simple(lines[0]);
  auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    REQUIRE(it != header.end());
    return static_cast<size_t>(it - header.begin());
  };
  const size_t c_name = column("name"), c_latency = column("latency_us"),
               c_launch = column("launch_overhead_us"), c_cycles = column("cycles"),
               c_bound = column("bound_by"), c_util = column("utilization");
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::vector<std::string> row = split_csv_simple(lines[i + 1]);  // no commas in these
    INFO(lines[i + 1]);
    REQUIRE(row.size() == header.size());
    const json& op = doc["operators"][i];
    CHECK(row[c_name] == ops[i]);
    CHECK(std::stod(row[c_latency]) == Approx(op["latency_us"].get<double>()).margin(1e-6));
    CHECK(std::stod(row[c_launch]) == Approx(op["launch_overhead_us"].get<double>()).margin(1e-3));
    CHECK(std::abs(std::stod(row[c_cycles]) - op["cycles"].get<double>()) <= 0.5 + 1e-6);
    CHECK(row[c_bound] == op["bound_by"].get<std::string>());
    CHECK(std::stod(row[c_util]) == Approx(op["utilization"].get<double>()).margin(1e-6));
  }
}

TEST_CASE("predict --op gives exactly that operator", "[cli][predict]") {
  const std::string suite = "samples/workloads/bert-base.yaml";
  const std::vector<std::string> ops = read_operators(suite);
  const json all = predict_json({"--arch", kAscend, "--workload", suite});
  // One operator of each class, and the last one.
  for (const std::string& name : {std::string("attn_softmax"), std::string("ffn_up"), ops.back()}) {
    INFO("--op " << name);
    REQUIRE(std::count(ops.begin(), ops.end(), name) == 1);
    const json one = predict_json({"--arch", kAscend, "--workload", suite, "--op", name});
    REQUIRE(one["operators"].size() == 1);
    CHECK(one["operators"][0]["name"] == name);
    // Predicting it alone gives what it gets within the suite.
    const size_t index = static_cast<size_t>(std::find(ops.begin(), ops.end(), name) - ops.begin());
    CHECK(one["operators"][0]["latency_us"].get<double>() ==
          Approx(all["operators"][index]["latency_us"].get<double>()));
    CHECK(one["operators"][0]["bound_by"] == all["operators"][index]["bound_by"]);

    const RunResult csv = run_tilescope(
        {"predict", "--arch", kAscend, "--workload", suite, "--op", name, "--format", "csv"});
    REQUIRE(csv.status == 0);
    const auto lines = split_lines(csv.out);
    REQUIRE(lines.size() == 2);
    CHECK(split_csv_simple(lines[1])[0] == name);

    const RunResult table =
        run_tilescope({"predict", "--arch", kAscend, "--workload", suite, "--op", name});
    REQUIRE(table.status == 0);
    int rows = 0;
    for (const std::string& line : split_lines(table.out))
      if (std::count(ops.begin(), ops.end(), first_token(line))) {
        ++rows;
        CHECK(first_token(line) == name);
      }
    CHECK(rows == 1);
  }
}

TEST_CASE("predict --op with an unknown operator names the workload's operators",
          "[cli][predict][errors]") {
  const std::string suite = "samples/workloads/bert-base.yaml";
  const std::vector<std::string> ops = read_operators(suite);
  for (const char* format : {"table", "json", "csv"}) {
    const RunResult r = run_tilescope({"predict", "--arch", kAscend, "--workload", suite, "--op",
                                       "no_such_op", "--format", format});
    INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    REQUIRE(split_lines(r.err).size() == 1);
    CHECK(r.err.back() == '\n');
    CHECK(r.err.find("no_such_op") != std::string::npos);
    for (const std::string& name : ops) {
      INFO("operator " << name);
      CHECK(r.err.find(name) != std::string::npos);
    }
  }
}

TEST_CASE("predict --explain shows the annotated mapping tree", "[cli][predict]") {
  const std::vector<std::string> args{"predict",
                                      "--mapping",
                                      "samples/mappings/bench-ascend-gemm.yaml",
                                      "--workload",
                                      "samples/workloads/vit-b16.yaml",
                                      "--arch",
                                      kAscend,
                                      "--explain"};
  const RunResult r = run_tilescope(args);
  INFO(r.command << "\n" << r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());

  // The tree nodes of the mapping in order, each one level deeper than the one before.
  const std::vector<std::string> tree{"tile HBM", "tile L1", "tile L0A", "op Cube"};
  const std::vector<std::string> lines = split_lines(r.out);
  size_t next = 0;
  size_t previous_indent = 0;
  for (const std::string& line : lines) {
    if (next == tree.size()) break;
    const size_t ind = indent_of(line);
    if (ind == std::string::npos || line.compare(ind, tree[next].size(), tree[next]) != 0) continue;
    INFO("line: " << line);
    if (next > 0) CHECK(ind > previous_indent);
    previous_indent = ind;
    ++next;
  }
  CHECK(next == tree.size());
  CHECK(r.out.find("bound by") != std::string::npos);

  // The mapping names one operator (ffn_up): only its row is printed.
  const std::vector<std::string> ops = read_operators("samples/workloads/vit-b16.yaml");
  int rows = 0;
  for (const std::string& line : lines)
    if (std::count(ops.begin(), ops.end(), first_token(line))) {
      ++rows;
      CHECK(first_token(line) == "ffn_up");
    }
  CHECK(rows == 1);

  // The same tree in JSON, under `explain`.
  std::vector<std::string> json_args(args.begin() + 1, args.end());
  const json doc = predict_json(json_args);
  REQUIRE(doc["operators"].size() == 1);
  const json& op = doc["operators"][0];
  CHECK(op["name"] == "ffn_up");
  check_prediction(op, read_graph(kAscend));
  REQUIRE(op.contains("explain"));
  const std::string explain = op["explain"].get<std::string>();
  for (const std::string& node : tree) {
    INFO(node);
    CHECK(explain.find(node) != std::string::npos);
  }
}

TEST_CASE(
    "predict --explain: a small Ascend GEMM is launch-bound in a short wave, a large one "
    "cube-bound in full waves",
    "[cli][predict][ascend]") {
  const json doc = predict_json({"--arch", "samples/arch/ascend910b3-fitted.yaml", "--workload",
                                 "tests/fixtures/workload/ascend-small-large.yaml", "--explain"});
  REQUIRE(doc["operators"].size() == 2);
  const json& small = doc["operators"][0];
  const json& large = doc["operators"][1];
  REQUIRE(small["name"] == "small");
  REQUIRE(large["name"] == "large");
  const std::string small_tree = small["explain"], large_tree = large["explain"];
  INFO(small_tree << "\n" << large_tree);
  // 256^3 is 33.6 MFLOP (16.8 M multiply-accumulates): at the fitted cube rate (0.84 x 294.9
  // TFLOP/s) about 0.14 us of work, far below the 12.67 us launch floor; and its output blocks do
  // not fill the 20 cube cores evenly, so the tree shows a wave with idle cores.
  CHECK(small["bound_by"] == "launch");
  CHECK(small["latency_us"].get<double>() < small["launch_overhead_us"].get<double>());
  CHECK((small_tree.find("wave, only") != std::string::npos ||
         small_tree.find("the last with") != std::string::npos));
  // 7680 x 7936 x 7936 is 967 GFLOP, about 3.9 ms at the fitted rate: bound by the cube, in
  // full waves, at a utilisation near the fitted peak.
  CHECK(large["bound_by"] == "compute:Cube");
  // Every wave fills all 20 cube cores: no wave with idle cores.
  CHECK(large_tree.find("on 20 instances") != std::string::npos);
  CHECK(large_tree.find("busy") == std::string::npos);
  CHECK(large["utilization"].get<double>() > 0.9);
}
