#pragma once
// The version of the runner's results format (docs/formats.md, "Runner results"). tilescope
// refuses records of a newer version than it knows.
namespace ts::cupti {
constexpr int kRunnerVersion = 1;
}
