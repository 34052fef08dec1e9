#include "dist/PublishedRuns.hpp"

#include <filesystem>

#include "common/YamlSource.hpp"

namespace ts {

namespace {

std::string existing_file(const YamlSource& src, const YAML::Node& node, std::string_view what) {
  const std::string written = src.text(node, what);
  const std::filesystem::path p = std::filesystem::path(src.file()).parent_path() / written;
  if (!std::filesystem::exists(p))
    src.fail(node, std::string(what) + " '" + written + "' not found (looked for " + p.string() +
                       "; paths are relative to this file)");
  return p.string();
}

}  // namespace

PublishedRuns load_published_runs(const std::string& path) {
  const YamlSource src = YamlSource::load(path);
  src.check_header("dist-validation");
  const YAML::Node& root = src.root();
  src.check_keys(root, {"version", "kind", "name", "description", "cluster", "runs"},
                 "a dist-validation file");
  PublishedRuns r;
  r.file = path;
  r.name = src.text_or(root, "name", file_stem(path));
  r.cluster_file =
      existing_file(src, src.require(root, "cluster", "a dist-validation file"), "cluster");
  const YAML::Node runs = src.require(root, "runs", "a dist-validation file");
  src.expect_sequence(runs, "`runs`");
  for (const auto& run : runs) {
    src.expect_map(run, "a run");
    src.check_keys(run, {"model", "strategy", "iteration_s"}, "a run");
    PublishedRun p;
    p.where = src.where(run);
    p.model_file = existing_file(src, src.require(run, "model", "a run"), "model");
    p.strategy_file = existing_file(src, src.require(run, "strategy", "a run"), "strategy");
    p.iteration_s = src.positive_number(src.require(run, "iteration_s", "a run"), "iteration_s");
    r.runs.push_back(std::move(p));
  }
  return r;
}

}  // namespace ts
