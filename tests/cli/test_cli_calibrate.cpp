// `tilescope calibrate host`: measures this machine, writes a graph and its templates that the
// other commands read as they are.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using ts::test::TempDir;

using namespace ts::cli_test;
namespace fs = std::filesystem;

namespace {}  // namespace

TEST_CASE("calibrate host writes a graph that predict and validate read",
          "[cli][calibrate][host][slow]") {
  TempDir dir;
  const std::string out = dir / "cal/host.yaml";  // the folder does not exist yet
  const RunResult r =
      run_tilescope({"calibrate", "host", "--out", out, "--runs", "2", "--seconds", "0.002"});
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  // Progress on stderr, the table on stdout.
  CHECK(r.err.find("measuring") != std::string::npos);
  CHECK(r.out.find("median") != std::string::npos);
  CHECK(r.out.find("clock") != std::string::npos);
  CHECK(r.out.find("DRAM read per core") != std::string::npos);
  CHECK(r.out.find("repeated runs agree within") != std::string::npos);
  REQUIRE(fs::exists(out));
  CHECK(fs::exists(dir / "cal/host-gemm-template.yaml"));
  CHECK(fs::exists(dir / "cal/host-vector-template.yaml"));
  CHECK_FALSE(fs::exists(out + ".tmp"));

  const std::string text = read_text(out);
  CHECK(text.rfind("# ", 0) == 0);  // the header comes first
  CHECK(text.find("command: tilescope calibrate host") != std::string::npos);
  CHECK(text.find("EFFECTIVE") != std::string::npos);
  CHECK(text.find("matmul: host-gemm-template.yaml") != std::string::npos);

  const RunResult v = run_tilescope({"validate", out});
  INFO(v.command << "\nstdout: " << v.out << "\nstderr: " << v.err);
  CHECK(v.status == 0);

  const RunResult t =
      run_tilescope({"validate", "--arch", out, "--workload", fixture("host/gemm-fp32.yaml"),
                     "--op", "gemm", dir / "cal/host-gemm-template.yaml"});
  INFO(t.command << "\nstdout: " << t.out << "\nstderr: " << t.err);
  CHECK(t.status == 0);
  CHECK(t.out.find("template fits") != std::string::npos);

  const RunResult p =
      run_tilescope({"predict", "--arch", out, "--workload", fixture("host/gemm-fp32.yaml"),
                     "--budget", "3000", "--format", "csv"});
  INFO(p.command << "\nstdout: " << p.out << "\nstderr: " << p.err);
  CHECK(p.status == 0);
  const auto lines = split_lines(p.out);
  REQUIRE(lines.size() == 4);  // header and three operators
  CHECK(lines[1].rfind("gemm,gemm,", 0) == 0);
}

TEST_CASE("calibrate needs a device and a writable place", "[cli][calibrate]") {
  const RunResult none = run_tilescope({"calibrate"});
  CHECK(none.status == 2);

  // The output folder is checked before anything is measured: this fails at once.
  TempDir dir;
  { std::ofstream(dir / "file") << "x"; }
  const RunResult bad = run_tilescope({"calibrate", "host", "--out", dir / "file/host.yaml"});
  INFO(bad.command << "\nstdout: " << bad.out << "\nstderr: " << bad.err);
  CHECK(bad.status == 2);
  CHECK(bad.err.find(dir / "file") != std::string::npos);
  CHECK(bad.err.find("measuring") == std::string::npos);

  const RunResult runs = run_tilescope({"calibrate", "host", "--runs", "0"});
  CHECK(runs.status == 2);
}

TEST_CASE("calibrate host --register makes profile:host this machine, the reference beside it",
          "[cli][calibrate][host][profile][slow]") {
  TempDir dir;
  // The user's profile folder is the test's: the person running the tests keeps theirs.
  ::setenv("XDG_DATA_HOME", (dir / "xdg").c_str(), 1);
  ::unsetenv("TILESCOPE_PLUGIN_PATH");
  const RunResult before = run_tilescope({"profiles", "show", "host"});
  INFO(before.command << "\nstdout: " << before.out << "\nstderr: " << before.err);
  CHECK(before.status == 0);
  CHECK(before.out.find("reference (default)") != std::string::npos);  // bundled: the reference
  CHECK(before.out.find("this-machine") == std::string::npos);

  const RunResult r = run_tilescope({"calibrate", "host", "--out", dir / "out/host.yaml", "--runs",
                                     "1", "--seconds", "0.002", "--register"});
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  const fs::path folder = dir / "xdg/tilescope/plugins/host";
  CHECK(fs::exists(folder / "profile.yaml"));
  CHECK(fs::exists(folder / "this-machine.yaml"));
  CHECK(fs::exists(folder / "this-machine-gemm-template.yaml"));
  CHECK(r.out.find("registered as profile:host/this-machine") != std::string::npos);

  const RunResult after = run_tilescope({"profiles", "show", "host"});
  INFO(after.out << after.err);
  CHECK(after.status == 0);
  CHECK(after.out.find("this-machine (default) (fitted)") != std::string::npos);
  CHECK(after.out.find("  reference") != std::string::npos);  // still reachable
  CHECK(after.out.find("user data folder") != std::string::npos);

  // profile:host is now the graph just written, and predicts what that file predicts.
  auto predict = [&](const std::string& arch) {
    return run_tilescope({"predict", "--arch", arch, "--workload", fixture("host/gemm-fp32.yaml"),
                          "--op", "gemm", "--budget", "2000", "--format", "csv"});
  };
  const RunResult by_profile = predict("profile:host");
  const RunResult by_file = predict((folder / "this-machine.yaml").string());
  INFO(by_profile.err);
  REQUIRE(by_profile.status == 0);
  CHECK(by_profile.out == by_file.out);
  CHECK(predict("profile:host/reference").status == 0);
  ::unsetenv("XDG_DATA_HOME");
}
