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

TEST_CASE("calibrate host writes a graph that predict and validate read", "[cli][calibrate][host][slow]") {
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
