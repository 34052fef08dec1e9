// Mappings written by --save-mappings read back to the same prediction, and the committed ones
// still map their operator on their graph.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "RunTilescope.hpp"

using namespace ts::cli_test;
namespace fs = std::filesystem;

namespace {

nlohmann::json saved_predict_json(const std::vector<std::string>& extra) {
  std::vector<std::string> args{"predict", "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult r = run_tilescope(args);
  INFO(r.command << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("a saved mapping replays to the same prediction", "[cli][mapping][slow]") {
  const fs::path dir =
      fs::temp_directory_path() / ("tilescope-saved-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  for (const std::string arch :
       {"samples/arch/ascend910b3.yaml", "samples/arch/nvidia-h200.yaml"}) {
    const std::vector<std::string> base{"--arch", arch, "--workload",
                                        "samples/workloads/vit-b16.yaml"};
    std::vector<std::string> save = base;
    save.insert(save.end(), {"--save-mappings", dir.string()});
    const auto mapped = saved_predict_json(save);
    for (const auto& op : mapped["operators"]) {
      const std::string name = op["name"];
      const fs::path file =
          dir / (mapped["architecture"].get<std::string>() + "-vit-b16-" + name + ".yaml");
      REQUIRE(fs::exists(file));
      std::vector<std::string> replay = base;
      replay.insert(replay.end(), {"--mapping", file.string()});
      const auto again = saved_predict_json(replay);
      REQUIRE(again["operators"].size() == 1);
      INFO(file);
      CHECK(again["operators"][0]["mapping"] == "file");
      CHECK(again["operators"][0]["latency_us"].get<double>() ==
            Approx(op["latency_us"].get<double>()).epsilon(1e-9));
      CHECK(again["operators"][0]["bound_by"] == op["bound_by"]);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("every committed per-operator mapping maps on its graph", "[cli][mapping]") {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TILESCOPE_ROOT) / "samples/mappings")) {
    const std::string file = entry.path().filename().string();
    const auto at = file.find("-bert-base-");
    if (at == std::string::npos) continue;
    const std::string arch = "samples/arch/" + file.substr(0, at) + ".yaml";
    const auto j =
        saved_predict_json({"--arch", arch, "--workload", "samples/workloads/bert-base.yaml",
                            "--mapping", "samples/mappings/" + file});
    REQUIRE(j["operators"].size() == 1);
    CHECK(j["operators"][0]["latency_us"].get<double>() > 0);
    ++checked;
  }
  CHECK(checked >= 12);  // a GEMM and a fused vector mapping for each of the six graphs
}
