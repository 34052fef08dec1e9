// Cost hooks of compute units (arch/ComputeCostHook.h, ABI 2 code plugins): a graph's compute
// node names one with `cost_hook:`, the analysis asks it for every call of the unit and takes the
// larger of its answer and the graph's own figure. Expected times are worked by hand in the
// comments (tiny_arch, 1 GHz: cycles = ns).
#include <catch2/catch.hpp>
#include <filesystem>
#include <limits>

#include "AnalysisFixtures.hpp"
#include "InputErrorCapture.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "arch/CostHooks.hpp"
#include "profile/CodePlugin.hpp"
#include "profile/ProfileCostHooks.hpp"

using namespace ts;
using namespace ts::test;

namespace {

// The last call a hook saw, and a fixed answer: what the tests below compare with.
TilescopeComputeTile g_last_call{};
int g_calls = 0;

double one_microsecond(const TilescopeComputeTile* tile, const void*) {
  g_last_call = *tile;
  ++g_calls;
  return 1e-6;
}

double no_time(const TilescopeComputeTile*, const void*) { return 0; }

void register_test_hooks() {
  register_cost_hook({"test.one-us", one_microsecond, nullptr, "test_cost_hooks.cpp"});
  register_cost_hook({"test.no-time", no_time, nullptr, "test_cost_hooks.cpp"});
}

// tiny_arch with the PE's cost hook named.
std::string hooked_arch(const std::string& hook) {
  return replace_once(tiny_arch(),
                      "      - {class: reduction, dtype: fp16, ops_per_cycle: 64, granule: [32]}\n",
                      "      - {class: reduction, dtype: fp16, ops_per_cycle: 64, granule: [32]}\n"
                      "    cost_hook: " +
                          hook + "\n");
}

}  // namespace

TEST_CASE("a cost hook is asked for every call and may only add time", "[arch][cost-hook]") {
  register_test_hooks();
  // mm64 with gemm_tiles' defaults: one SRAM tile of 64 x 64 x 64 that loops 8 x 8 x 16 = 1024
  // times over PE calls of 8 x 8 x 4 = 256 MACs, 1 cycle each at 256 MACs/cycle: 1024 ns of
  // compute, on one PE (no spatial loop).
  Case plain;
  run_case(plain, tiny_arch(), "mm64", gemm_tiles());
  REQUIRE(plain.eval.valid());

  // A hook of 1 us a call: the 1024 calls take 1024 us, and the few hundred ns of loading A and B
  // (8 KiB each at 64 B/cycle: 256 ns) and storing C (128 ns) add less than 1 us.
  g_calls = 0;
  Case hooked;
  run_case(hooked, hooked_arch("test.one-us"), "mm64", gemm_tiles());
  REQUIRE(hooked.eval.valid());
  CHECK(hooked.eval.device_s >= 1024e-6);
  CHECK(hooked.eval.device_s <= 1025e-6);
  CHECK(g_calls > 0);  // memoised per tile shape: asked at least once, not necessarily 1024 times
  // What it was asked: one PE call as the graph counts it.
  CHECK(g_last_call.op_class == TILESCOPE_OP_MATMUL);
  CHECK(g_last_call.dtype == TILESCOPE_DTYPE_FP16);
  CHECK(g_last_call.m == 8);
  CHECK(g_last_call.n == 8);
  CHECK(g_last_call.k == 4);
  CHECK(g_last_call.elements == 1);
  CHECK(g_last_call.batch == 1);
  CHECK(g_last_call.ops == 256);
  CHECK(g_last_call.ops_per_cycle == 256);
  CHECK(g_last_call.clock_hz == 1e9);

  // A hook that answers less than the graph's figure changes nothing: the mapper's compute floor
  // (the graph's figure) stays a lower bound.
  Case faster;
  run_case(faster, hooked_arch("test.no-time"), "mm64", gemm_tiles());
  CHECK(faster.eval.device_s == plain.eval.device_s);
}

TEST_CASE("a cost hook enters the hash and is written back", "[arch][cost-hook]") {
  register_test_hooks();
  const ArchitectureGraph plain = parse_architecture(tiny_arch(), "tiny.yaml");
  const ArchitectureGraph hooked = parse_architecture(hooked_arch("test.one-us"), "hooked.yaml");
  CHECK(hooked.nodes[2].cost_hook == "test.one-us");
  CHECK(hooked.nodes[2].cost_hook_seconds == &one_microsecond);
  CHECK(hooked.content_hash() != plain.content_hash());
  CHECK(parse_architecture(hooked_arch("test.no-time"), "h.yaml").content_hash() !=
        hooked.content_hash());
  const ArchitectureGraph again =
      parse_architecture(architecture_yaml(hooked, "", "written.yaml"), "written.yaml");
  CHECK(again.nodes[2].cost_hook == "test.one-us");
  CHECK(again.content_hash() == hooked.content_hash());
}

TEST_CASE("a cost hook that no plugin provides is refused where the graph names it",
          "[arch][cost-hook]") {
  register_test_hooks();
  const InputError unknown =
      input_error_of([] { parse_architecture(hooked_arch("nobody.hook"), "h.yaml"); });
  CHECK(unknown.where().file == "h.yaml");
  CHECK(unknown.where().line == 16);  // the cost_hook line, after PE's three operations
  CHECK_THAT(unknown.what(), Catch::Contains("cost hook 'nobody.hook' of 'PE' is provided by no "
                                             "loaded plugin") &&
                                 Catch::Contains("test.one-us"));
  const InputError on_memory = input_error_of([] {
    parse_architecture(replace_once(tiny_arch(), "{name: DRAM, type: memory, capacity: 1GiB}",
                                    "{name: DRAM, type: memory, capacity: 1GiB, cost_hook: x}"),
                       "m.yaml");
  });
  CHECK_THAT(on_memory.what(), Catch::Contains("`cost_hook` applies to compute nodes only"));
}

TEST_CASE("a graph naming an unknown hook asks the provider once before it is refused",
          "[arch][cost-hook]") {
  static int provided = 0;
  set_cost_hook_provider([] {
    ++provided;
    register_cost_hook({"test.provided", no_time, nullptr, "the provider"});
  });
  const ArchitectureGraph g = parse_architecture(hooked_arch("test.provided"), "p.yaml");
  CHECK(g.nodes[2].cost_hook_seconds == &no_time);
  CHECK(provided == 1);
  CHECK_THROWS_AS(parse_architecture(hooked_arch("test.still-unknown"), "p.yaml"), InputError);
  CHECK(provided == 1);  // once per process, not once per lookup
  set_cost_hook_provider(nullptr);
}

TEST_CASE("a hook's name is one provider's", "[arch][cost-hook]") {
  register_test_hooks();
  register_test_hooks();  // the same provider again: nothing changes
  CHECK_THROWS_AS(register_cost_hook({"test.one-us", no_time, nullptr, "another plugin"}),
                  std::invalid_argument);
  CHECK(find_registered_cost_hook("test.one-us")->seconds == &one_microsecond);
}

TEST_CASE("an ABI 2 plugin registers its cost hooks; its graph uses them", "[profile][cost-hook]") {
  const std::string path = std::string(TILESCOPE_TEST_PLUGIN_DIR) + "/libhooked.so";
  const Profile p = load_code_plugin(path);
  CHECK(p.name == "toy-hooked");
  REQUIRE(p.cost_hooks == std::vector<std::string>{"toy-hooked.fill"});
  const auto hook = find_registered_cost_hook("toy-hooked.fill");
  REQUIRE(hook);
  CHECK(hook->provider == path);
  load_code_plugin(path);  // loading it again is not a second provider
  const ArchitectureGraph g = load_architecture(p.variants[0].arch_file);
  const ArchNode& pe = g.nodes[2];
  REQUIRE(pe.cost_hook_seconds != nullptr);
  // The plugin's systolic fill: steady 256 MACs / 256 per cycle = 1 cycle, plus m + n - 2 = 14
  // cycles to fill the array along its diagonal: 15 ns at 1 GHz.
  const TilescopeComputeTile call{
      TILESCOPE_OP_MATMUL, TILESCOPE_DTYPE_FP16, 8, 8, 4, 1, 1, 256, 256, 1e9};
  CHECK(pe.cost_hook_seconds(&call, pe.cost_hook_user) == Approx(15e-9));
  // A vector call: the steady rate alone (64 elements at 64 a cycle: 1 ns).
  const TilescopeComputeTile vector{
      TILESCOPE_OP_ELEMENTWISE, TILESCOPE_DTYPE_FP16, 1, 1, 1, 64, 1, 64, 64, 1e9};
  CHECK(pe.cost_hook_seconds(&vector, pe.cost_hook_user) == Approx(1e-9));
}

TEST_CASE("a hook's answer must be a finite time of at least 0", "[profile][cost-hook]") {
  // Infinity used to read as a memory overflow (an invalid mapping), and NaN or a negative time
  // lost to the larger-of rule without a word: each is an InputError naming library and hook.
  CHECK(checked_cost_hook_answer(0, "/x/libchip.so", "chip.mm") == 0);
  CHECK(checked_cost_hook_answer(1.5e-6, "/x/libchip.so", "chip.mm") == 1.5e-6);
  struct Case {
    double seconds;
    std::string said;
  };
  for (const Case& c : {Case{std::numeric_limits<double>::infinity(), "answered infinity"},
                        Case{-std::numeric_limits<double>::infinity(), "answered -infinity"},
                        Case{std::numeric_limits<double>::quiet_NaN(), "answered NaN"},
                        Case{-2e-9, "answered -2e-09 (negative)"}}) {
    INFO(c.said);
    const InputError e =
        input_error_of([&] { checked_cost_hook_answer(c.seconds, "/x/libchip.so", "chip.mm"); });
    CHECK(e.where().file == "/x/libchip.so");
    CHECK_THAT(e.what(), Catch::StartsWith("/x/libchip.so: cost hook chip.mm of this plugin " +
                                           c.said + " seconds"));
  }
}

TEST_CASE("a plugin's hook that answers infinity, NaN or a negative time stops the analysis",
          "[profile][cost-hook]") {
  // faulty-plugins/libbad-hooks.so (BadHookPlugin.c) loads, and its three hooks answer what no
  // time is: calling one through what the graphs hold is an InputError naming both.
  const std::string path =
      std::filesystem::path(std::string(TILESCOPE_TEST_PLUGIN_DIR) +
                            "/../faulty-plugins/libbad-hooks.so")
          .lexically_normal()
          .string();  // as the registry names it (test_profiles.cpp discovers that folder)
  const Profile p = load_code_plugin(path);
  REQUIRE(p.cost_hooks ==
          std::vector<std::string>{"bad-hooks.inf", "bad-hooks.nan", "bad-hooks.negative"});
  const TilescopeComputeTile call{
      TILESCOPE_OP_MATMUL, TILESCOPE_DTYPE_FP16, 8, 8, 4, 1, 1, 256, 256, 1e9};
  for (const std::string& name : p.cost_hooks) {
    INFO(name);
    const auto hook = find_registered_cost_hook(name);
    REQUIRE(hook);
    CHECK(hook->provider == path);
    const InputError e = input_error_of([&] { hook->seconds(&call, hook->user); });
    CHECK(e.where().file == path);
    CHECK_THAT(e.message(), Catch::Contains("cost hook " + name + " of this plugin answered") &&
                                Catch::Contains("for a matmul call of 8 x 8 x 4"));
  }
  // In the analysis: the error, not an invalid mapping (an overflow) or the graph's own figure.
  Case hooked;
  const InputError in_analysis =
      input_error_of([&] { run_case(hooked, hooked_arch("bad-hooks.inf"), "mm64", gemm_tiles()); });
  CHECK_THAT(
      in_analysis.what(),
      Catch::StartsWith(path + ": cost hook bad-hooks.inf of this plugin answered infinity"));
  Case negative;
  CHECK_THROWS_AS(run_case(negative, hooked_arch("bad-hooks.negative"), "mm64", gemm_tiles()),
                  InputError);
}
