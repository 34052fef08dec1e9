#pragma once
// Feeding bytes to each loader the way the CLI does, shared by the libFuzzer targets (fuzz/) and
// the regression test that replays their findings (tests/unit/test_fuzz_regressions.cpp), so
// that what counts as an acceptable outcome is decided in one place. A loader may accept the
// bytes or refuse them with its documented error (ts::InputError; the runner plan's
// ts::cupti::PlanError); anything else it throws escapes `feed_loader` and is a finding.
#include <string>
#include <string_view>
#include <vector>

namespace ts::fuzz {

enum class LoaderOutcome { accepted, refused };

struct LoaderEntry {
  std::string target;  // fuzz target and fixture folder name (tests/fixtures/fuzz/TARGET)
  std::string reads;   // what the loader reads, for `scripts/fuzz --list`
  // Loads `bytes` as a file of this kind; throws the loader's documented error when refused.
  void (*load)(const std::string& bytes);
};

// Every loader that has a fuzz target, in a fixed order.
const std::vector<LoaderEntry>& loader_entries();
// The entry of `target`; throws std::out_of_range when there is none.
const LoaderEntry& loader_entry(std::string_view target);

// Runs the loader on `bytes`: `accepted` or `refused` (its documented error, caught here).
// Any other exception propagates to the caller.
LoaderOutcome feed_loader(const LoaderEntry& entry, const std::string& bytes);

}  // namespace ts::fuzz
