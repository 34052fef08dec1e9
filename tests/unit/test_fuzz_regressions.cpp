// Every input the fuzz targets found (tests/fixtures/fuzz/TARGET/), and the committed seed corpus
// each target starts from (tests/fixtures/fuzz-corpus/TARGET/), replayed through the same loader
// as its target (fuzz/LoaderEntry.cpp): the loader must accept it or refuse it with its
// documented error, never throw anything else. A crash or sanitizer report fails the run.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/LoaderEntry.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kFuzzFixtures = fs::path(TILESCOPE_FIXTURES) / "fuzz";
const fs::path kFuzzCorpus = fs::path(TILESCOPE_FIXTURES) / "fuzz-corpus";

// Findings not fixed yet (in loaders owned elsewhere): "TARGET/FILE" -> why. They are replayed
// by the [!mayfail] test below, so that CI stays green while each stays visible.
const std::map<std::string, std::string> kOpenFindings = {
    // None open. The two runner_results findings (nlohmann::json's out_of_range.406 for a
    // number past double's range, hand-made 1e309 and fuzzer-found 4.2e1222...) were fixed by
    // the runner results loader's error wrapping; they are replayed with the others above.
};

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<fs::path> fixture_files(const fs::path& root = kFuzzFixtures) {
  std::vector<fs::path> files;
  if (!fs::exists(root)) return files;
  for (const auto& folder : fs::directory_iterator(root)) {
    if (!folder.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(folder.path()))
      if (file.is_regular_file()) files.push_back(file.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string finding_name(const fs::path& file) {
  return file.parent_path().filename().string() + "/" + file.filename().string();
}

// Fails the current test (naming the file, and going on with the next) unless the loader
// accepts or refuses the input; returns whether it accepted it.
bool replay(const fs::path& file) {
  const std::string target = file.parent_path().filename().string();
  INFO("fixture " << finding_name(file));
  const ts::fuzz::LoaderEntry* entry = nullptr;
  REQUIRE_NOTHROW(entry = &ts::fuzz::loader_entry(target));
  const std::string bytes = read_bytes(file);
  try {
    return ts::fuzz::feed_loader(*entry, bytes) == ts::fuzz::LoaderOutcome::accepted;
  } catch (const std::exception& e) {
    FAIL_CHECK("the " << target
                      << " loader threw neither success nor its input error: " << e.what());
  }
  return false;
}

}  // namespace

TEST_CASE("every fuzz finding is accepted or refused with the loader's input error", "[fuzz]") {
  for (const fs::path& file : fixture_files())
    if (!kOpenFindings.count(finding_name(file))) replay(file);
}

TEST_CASE("every fixture folder of tests/fixtures/fuzz names a fuzz target", "[fuzz]") {
  for (const fs::path& root : {kFuzzFixtures, kFuzzCorpus}) {
    if (!fs::exists(root)) continue;
    for (const auto& folder : fs::directory_iterator(root)) {
      INFO(folder.path().string());
      CHECK(folder.is_directory());
      CHECK_NOTHROW(ts::fuzz::loader_entry(folder.path().filename().string()));
    }
  }
}

// The seeds scripts/fuzz starts each target from, replayed as CI's smoke run of every target: a
// handful of small files a target, each accepted or refused, and at least one accepted (a seed
// that every loader refuses at its first byte would leave the fuzzer outside the format).
TEST_CASE("every fuzz target's seed corpus is accepted or refused, and some of it accepted",
          "[fuzz]") {
  std::map<std::string, size_t> seeds, accepted;
  for (const fs::path& file : fixture_files(kFuzzCorpus)) {
    const std::string target = file.parent_path().filename().string();
    ++seeds[target];
    if (replay(file)) ++accepted[target];
  }
  for (const ts::fuzz::LoaderEntry& entry : ts::fuzz::loader_entries()) {
    INFO("tests/fixtures/fuzz-corpus/" << entry.target);
    CHECK(seeds[entry.target] > 0);
    CHECK(accepted[entry.target] > 0);
  }
}

TEST_CASE("every open fuzz finding is replayed and still listed", "[fuzz][!mayfail]") {
  for (const auto& [name, why] : kOpenFindings) {
    INFO("TODO open finding " << name << ": " << why);
    REQUIRE(fs::exists(kFuzzFixtures / name));
    replay(kFuzzFixtures / name);
  }
}

// The table itself: each target reaches its own loader. An empty file is refused by every
// loader whose format needs a header or a `kind` (YAML: "empty file"; CSV: no header row; plan:
// no `tilescope-plan` line); runner results are records, one a line, and none is required. A
// file of one kind is accepted by its own target (paths in it resolving as they do beside the
// samples) and refused by another kind's (`kind` is checked).
TEST_CASE("the fuzz loader table routes each target to its own loader", "[fuzz]") {
  using ts::fuzz::LoaderOutcome;
  for (const ts::fuzz::LoaderEntry& entry : ts::fuzz::loader_entries()) {
    INFO(entry.target);
    // Runner results are records, one a line, and none is required; a sweep store without rows
    // is a results database without sweeps.
    const LoaderOutcome expected = entry.target == "runner_results" || entry.target == "sweep_store"
                                       ? LoaderOutcome::accepted
                                       : LoaderOutcome::refused;
    CHECK(ts::fuzz::feed_loader(entry, "") == expected);
  }
  const std::string h100 = read_bytes(fs::path(TILESCOPE_SAMPLES) / "arch" / "nvidia-h100.yaml");
  CHECK(ts::fuzz::feed_loader(ts::fuzz::loader_entry("architecture"), h100) ==
        LoaderOutcome::accepted);
  CHECK(ts::fuzz::feed_loader(ts::fuzz::loader_entry("workload"), h100) == LoaderOutcome::refused);
  const std::string table5 =
      read_bytes(fs::path(TILESCOPE_SAMPLES) / "dist" / "validation" / "korthikanti-table5.yaml");
  CHECK(ts::fuzz::feed_loader(ts::fuzz::loader_entry("published_runs"), table5) ==
        LoaderOutcome::accepted);
  const std::string plan = read_bytes(kFuzzFixtures.parent_path() / "cupti" / "one-gemm.plan");
  CHECK(ts::fuzz::feed_loader(ts::fuzz::loader_entry("runner_plan"), plan) ==
        LoaderOutcome::accepted);
}
