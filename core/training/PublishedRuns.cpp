#include "training/PublishedRuns.hpp"

#include "arch/Units.hpp"
#include "common/YamlSource.hpp"

namespace ts {

namespace {

PublishedRuns read_published_runs(const YamlSource& src) {
  const std::string& path = src.file();
  src.check_header("dist-validation");
  const YAML::Node& root = src.root();
  src.check_keys(root, {"version", "kind", "name", "description", "cluster", "runs"},
                 "a dist-validation file");
  PublishedRuns r;
  r.file = path;
  r.name = src.text_or(root, "name", file_stem(path));
  r.cluster_file =
      src.existing_path(src.require(root, "cluster", "a dist-validation file"), "cluster");
  const YAML::Node runs = src.require(root, "runs", "a dist-validation file");
  src.expect_sequence(runs, "`runs`");
  // An error over no runs is no figure: 0.0 % would read as a perfect simulator.
  if (runs.size() == 0)
    src.fail(runs, "an empty list of runs; expected at least one run to check the simulator on");
  for (const auto& run : runs) {
    src.expect_map(run, "a run");
    src.check_keys(run, {"model", "strategy", "iteration_s", "model_state", "activations"},
                   "a run");
    PublishedRun p;
    p.where = src.where(run);
    p.model_file = src.existing_path(src.require(run, "model", "a run"), "model");
    p.strategy_file = src.existing_path(src.require(run, "strategy", "a run"), "strategy");
    p.iteration_s = src.positive_number(src.require(run, "iteration_s", "a run"), "iteration_s");
    auto bytes = [&](const char* key) {
      if (!run[key].IsDefined()) return 0.0;
      const auto b = parse_bytes(src.text(run[key], key));
      if (!b || *b <= 0)
        src.fail(run[key], std::string("expected a size such as `45.56GiB` for `") + key + "`");
      return *b;
    };
    p.model_state_bytes = bytes("model_state");
    p.activation_bytes = bytes("activations");
    r.runs.push_back(std::move(p));
  }
  return r;
}

}  // namespace

PublishedRuns parse_published_runs(const std::string& text, const std::string& file_name) {
  return read_published_runs(YamlSource::parse(text, file_name));
}

PublishedRuns load_published_runs(const std::string& path) {
  return read_published_runs(YamlSource::load(path));
}

}  // namespace ts
