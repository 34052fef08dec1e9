// Inputs that yaml-cpp or the CSV reader took in silently, or that broke far from the file:
// nested aliases past the node budget, an alias cycle, a second YAML document, a name that is
// not UTF-8 (each refused in one line at its place, exit 2), a file given as a pipe to
// `validate`, and a CSV with a byte-order mark (read as without it).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

namespace {

using namespace ts::cli_test;
using ts::test::TempDir;

const std::string kSmall = "tests/fixtures/cli/small-suite.yaml";
const std::string kTiny = "tests/fixtures/arch/tiny.yaml";

// Exit 2, nothing on stdout, one line `file:line:col: message` on stderr, naming `words`.
void check_one_line_error(const RunResult& r, const std::string& file, int line, int column,
                          const std::vector<std::string>& words) {
  INFO(r.command << "\nexit " << r.status << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK_FALSE(r.signaled);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  const std::vector<std::string> lines = split_lines(r.err);
  REQUIRE(lines.size() == 1);
  const std::string place = file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  CHECK(lines[0].rfind(place, 0) == 0);
  for (const std::string& word : words) {
    INFO("the message should mention '" << word << "'");
    CHECK(lines[0].find(word) != std::string::npos);
  }
}

// Runs `tilescope validate FIFO` while another thread writes `text` into the FIFO, as
// `validate <(cat file)` does: the file can be read once, and has no size.
RunResult validate_through_pipe(const std::string& text, std::vector<std::string> args = {}) {
  TempDir dir("pipe");
  const std::string fifo = dir / "input.yaml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);  // waits for the reader
    if (fd < 0) return;
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fd);
  });
  args.insert(args.begin(), "validate");
  args.push_back(fifo);
  const RunResult r = run_tilescope(args);
  // A reader that never opened the FIFO would leave the writer waiting: open it once here.
  const int unblock = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  writer.join();
  if (unblock >= 0) ::close(unblock);
  return r;
}

}  // namespace

TEST_CASE("nested YAML aliases past the node budget are refused at the alias, quickly",
          "[cli][errors]") {
  // Fixture line 11 is level 6: a list of 10 uses of level 5. Nodes before it: root 1,
  // `version: 1` and `kind: mapping` 4, keys a0..a5 6, levels 0..5 (S0 = 11, Sk = 1 + 10 S(k-1):
  // 11 + 111 + ... + 1,111,111 = 1,234,566), key a6 1 and its list 1: 1,234,579. Each use adds
  // S5 = 1,111,111: 7 uses reach 9,012,356, the 8th 10,123,467 > 10,000,000. `a6: &a6 [` is 9
  // characters and each `*a5, ` 5: the 8th use starts at column 9 + 7 x 5 + 1 = 45.
  const std::string bomb = "tests/fixtures/yaml/alias-bomb.yaml";
  const auto start = std::chrono::steady_clock::now();
  SECTION("validate") {
    check_one_line_error(run_tilescope({"validate", bomb}, 60), bomb, 11, 45,
                         {"10000000", "alias"});
  }
  SECTION("predict --mapping") {
    check_one_line_error(run_tilescope({"predict", "--arch", kTiny, "--workload", kSmall,
                                        "--mapping", bomb, "--op", "gemm_small"},
                                       60),
                         bomb, 11, 45, {"10000000"});
  }
  // Before the budget the load never finished; now it is one linear pass over 731 bytes.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

TEST_CASE("a YAML alias inside the node it names is refused at the alias", "[cli][errors]") {
  // Line 7 is `  - *ops`: the alias starts at column 5, inside the list anchored `&ops`.
  const std::string cycle = "tests/fixtures/yaml/alias-cycle.yaml";
  SECTION("validate") {
    check_one_line_error(run_tilescope({"validate", cycle}, 60), cycle, 7, 5, {"cycle"});
  }
  SECTION("predict --workload") {
    check_one_line_error(run_tilescope({"predict", "--arch", kTiny, "--workload", cycle}, 60),
                         cycle, 7, 5, {"cycle"});
  }
}

TEST_CASE("a second YAML document is an error at its ---", "[cli][errors]") {
  const std::string two = "tests/fixtures/yaml/second-document.yaml";
  SECTION("validate") {
    check_one_line_error(run_tilescope({"validate", two}), two, 8, 1, {"second YAML document"});
  }
  SECTION("predict --workload") {
    check_one_line_error(run_tilescope({"predict", "--arch", kTiny, "--workload", two}), two, 8, 1,
                         {"second YAML document"});
  }
}

TEST_CASE("a name that is not UTF-8 is an error at its line", "[cli][errors]") {
  // Line 8: `  - {name: "gemm_<0xFF>wide", ...`; the quoted name starts at column 12. Before,
  // `validate` said ok and `predict --format json` died in the JSON writer without a place.
  const std::string bad = "tests/fixtures/yaml/invalid-utf8-name.yaml";
  SECTION("validate") {
    check_one_line_error(run_tilescope({"validate", bad}), bad, 8, 12, {"UTF-8", "0xFF"});
  }
  SECTION("predict --format json") {
    check_one_line_error(
        run_tilescope({"predict", "--arch", kTiny, "--workload", bad, "--format", "json"}), bad, 8,
        12, {"UTF-8"});
  }
}

TEST_CASE("validate reads a pipe like every other command", "[cli][validate]") {
  const std::string text = read_text(root_path(kSmall));
  SECTION("a workload") {
    const RunResult r = validate_through_pipe(text);
    INFO(r.command << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    // small-suite.yaml lists 4 operators.
    CHECK(r.out.find(": ok (workload 'small-suite': 4 operators)") != std::string::npos);
  }
  SECTION("a mapping checked against a graph and a workload") {
    const RunResult r = validate_through_pipe(
        read_text(root_path("tests/fixtures/cli/gemm-ok.yaml")),
        {"--arch", kTiny, "--workload", kSmall, "--op", "gemm_small", "--tree"});
    INFO(r.command << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("maps 'gemm_small' on") != std::string::npos);
    CHECK(split_lines(r.out).size() > 1);  // the tree, read from the same text
  }
  SECTION("an empty pipe is still an empty file") {
    const RunResult r = validate_through_pipe("");
    CHECK(r.status == 2);
    CHECK(r.err.find(":1:1: empty file") != std::string::npos);
  }
}

TEST_CASE("correlate --csv reads a CSV with a UTF-8 byte-order mark as without it",
          "[cli][correlate]") {
  const auto correlate = [](const std::string& csv) {
    return run_tilescope({"correlate", "--csv", csv, "--arch", "samples/arch/ascend910b3.yaml",
                          "--op", "gemm", "--format", "json", "--budget", "5000"});
  };
  const RunResult plain = correlate("tests/fixtures/csv/gemm-small.csv");
  const RunResult bom = correlate("tests/fixtures/csv/gemm-small-bom.csv");
  INFO(bom.command << "\n" << bom.out << bom.err);
  REQUIRE(plain.status == 0);
  CHECK(bom.status == 0);
  CHECK(bom.err == plain.err);
  // The same 24 rows, the same figures; only the file name in the output may differ.
  const std::regex file_name("gemm-small(-bom)?\\.csv");
  CHECK(std::regex_replace(bom.out, file_name, "F") ==
        std::regex_replace(plain.out, file_name, "F"));
}

// ---------------------------------------------------------------------------------------------
// Raw library exceptions that reached the user without a file, and a read-only folder.

namespace {

// A file-size limit below what the command writes, as a full disk does: writes past it fail
// with EFBIG instead of killing the process with SIGXFSZ.
void with_small_file_size_limit() {
  ::signal(SIGXFSZ, SIG_IGN);
  const rlimit limit{4096, 4096};
  ::setrlimit(RLIMIT_FSIZE, &limit);
}

// The command as an ordinary user: root writes into any folder, so a read-only folder can only
// be read-only for someone else.
void as_nobody() {
  if (::geteuid() != 0) return;
  if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(125);
}

}  // namespace

TEST_CASE("runner results with a number past a double exit 2 at the record's line",
          "[cli][cupti]") {
  TempDir dir("import-runner");
  const std::string db = dir / "new.sqlite";
  struct Case {
    std::string file, message;
  };
  // Line 3 of each is a kernel record of small-gpu-results.jsonl with one value changed.
  for (const Case& c : {Case{"tests/fixtures/cupti/number-overflow-results.jsonl",
                             "number overflow parsing '1e309'; expected numbers a double can hold"},
                        Case{"tests/fixtures/cupti/count-out-of-range-results.jsonl",
                             "'plan_line': expected a whole number from 0 to 2147483647"}}) {
    const RunResult r = run_tilescope({"import", "runner", c.file, "--db", db});
    check_one_line_error(r, c.file, 3, 1, {c.message});
    CHECK(dir.names().empty());  // no database appeared
  }
}

TEST_CASE("an output folder that cannot be made is one line naming it, exit 2", "[cli][errors]") {
  TempDir dir("output-folder");
  const std::string blocker = dir / "a-file";
  { std::ofstream(blocker) << "not a folder\n"; }
  const std::string folder = blocker + "/mappings";
  // two-units runs every operator of the small suite, so predict reaches the saving.
  const RunResult r =
      run_tilescope({"predict", "--arch", "tests/fixtures/cli/two-units.yaml", "--workload", kSmall,
                     "--save-mappings", folder, "--format", "csv"});
  INFO(r.command << "\n" << r.out << r.err);
  CHECK(r.status == 2);
  const std::vector<std::string> lines = split_lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == folder + ": cannot create directories: Not a directory");
  CHECK(dir.names() == std::vector<std::string>{"a-file"});
}

TEST_CASE("a write that fails names the real cause, not errno 0 (\"Success\")", "[cli][errors]") {
  // The simulation JSON of GPT-3 on Selene is tens of KiB, past the 4 KiB limit.
  TempDir dir("full");
  const std::string out = dir / "simulation.json";
  const RunResult r =
      run_tilescope({"simulate", "--model", "samples/dist/models/gpt3-175b.yaml", "--strategy",
                     "samples/dist/strategies/gpt3-175b-seq-sel.yaml", "--cluster",
                     "samples/dist/clusters/selene.yaml", "--out", out},
                    120, with_small_file_size_limit);
  INFO(r.command << "\n" << r.out << r.err);
  CHECK(r.status == 2);
  const std::vector<std::string> lines = split_lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::StartsWith(out + ": cannot write (") &&
                           Catch::EndsWith("bytes written): File too large"));
  CHECK(lines[0].find("Success") == std::string::npos);
  CHECK(dir.names().empty());  // neither the output nor its temporary
}

TEST_CASE("a results database in a read-only folder is read, and a write names the file",
          "[cli][db]") {
  TempDir dir("read-only");
  const std::string db = dir / "results.sqlite";
  std::filesystem::copy_file(fixture("db/results-v1.sqlite"), db);
  // Read-only for everyone but root, and root runs the commands as `nobody`.
  std::filesystem::permissions(db, std::filesystem::perms(0444));
  std::filesystem::permissions(dir.path(), std::filesystem::perms(0555));
  struct Writable {  // again at the end, so that TempDir can remove the folder
    const std::filesystem::path& folder;
    ~Writable() {
      std::error_code ignored;
      std::filesystem::permissions(folder, std::filesystem::perms(0755), ignored);
    }
  } writable_again{dir.path()};
  const std::string before = read_text(db);
  const std::vector<std::string> names = dir.names();
  // As root the commands run as `nobody`, which needs every folder above the binary and the
  // source tree to be open to others; a checkout under a private folder (mktemp -d is 0700) is
  // not, and then a read-only folder cannot be tested here at all.
  const RunResult probe = run_tilescope({"--version"}, 60, as_nobody);
  if (probe.status >= 125 && probe.status <= 127) {
    WARN("the binary or the source tree is not reachable as `nobody` (exit "
         << probe.status << "); a read-only folder is not tested on this machine");
    return;
  }

  SECTION("db runs reads it") {
    const RunResult r = run_tilescope({"db", "runs", "--db", db}, 60, as_nobody);
    INFO(r.command << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    CHECK(split_lines(r.out).size() == 4);  // the header and the fixture's 3 runs
  }
  SECTION("db export reads it") {
    const RunResult r = run_tilescope({"db", "export", "--db", db, "--run", "1"}, 60, as_nobody);
    INFO(r.command << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(split_lines(r.out).size() == 5);  // the header and run 1's 4 measurements
  }
  SECTION("an import into it is one line naming the database") {
    const RunResult r = run_tilescope(
        {"import", "runner", "tests/fixtures/cupti/small-gpu-results.jsonl", "--db", db}, 60,
        as_nobody);
    INFO(r.command << "\n" << r.out << r.err);
    CHECK(r.status == 2);
    const std::vector<std::string> lines = split_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].rfind(db + ": ", 0) == 0);
    CHECK(lines[0].find("readonly") != std::string::npos);
  }
  CHECK(read_text(db) == before);
  CHECK(dir.names() == names);  // no -wal, -shm or -journal
}
