// core/profile: data-profile manifests and their errors, code plugins through the C ABI, the
// search path's order, the registry's failures (one line each, the others still load) and
// `profile:NAME[/VARIANT]` references. Fixtures: tests/fixtures/profiles/ (data profiles, a text
// file named .so) and the plugins tests/CMakeLists.txt builds into TILESCOPE_TEST_PLUGIN_DIR.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "profile/ArchitectureReference.hpp"
#include "profile/CodePlugin.hpp"
#include "profile/PluginCheck.hpp"
#include "profile/ProfileManifest.hpp"
#include "profile/ProfileManifestWriter.hpp"
#include "profile/ProfileRegistry.hpp"
#include "profile/ProfileSearchPath.hpp"
#include "training/Cluster.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;
namespace fs = std::filesystem;

namespace {

std::string normal_faulty_dir() {
  return fs::path(std::string(TILESCOPE_TEST_PLUGIN_DIR) + "/../faulty-plugins")
      .lexically_normal()
      .string();
}

const std::string kPluginDir = TILESCOPE_TEST_PLUGIN_DIR;
// Beside it (tests/CMakeLists.txt): plugins that crash, hang and exit in their entry point, and
// libbad-hooks.so.
const std::string kFaultyDir = normal_faulty_dir();

std::string normal(const std::string& path) { return fs::path(path).lexically_normal().string(); }

// Manifest text parsed as if it were fixtures/profiles/data-toy/profile.yaml, so that its
// relative paths find the fixture graphs.
Profile parse_toy(const std::string& text) {
  return parse_profile_manifest(text, fixture("profiles/data-toy/profile.yaml"));
}

const std::string kHeader = "version: 1\nkind: profile\nname: toy\nprofile_version: 1.0.0\n";

// No cache: every library is checked in a child process, whatever the user's cache holds.
ProfileRegistry fixture_registry() {
  return ProfileRegistry::discover(
      {{fixture("profiles"), "TILESCOPE_PLUGIN_PATH"}, {kPluginDir, "TILESCOPE_PLUGIN_PATH"}},
      PluginCheckOptions{});
}

// A short timeout for the plugin that hangs.
PluginCheckOptions quick_checks(const std::optional<fs::path>& cache = std::nullopt) {
  PluginCheckOptions o;
  o.cache_file = cache;
  o.timeout_s = 1;
  return o;
}

// Whether this process has the library open (dlopen with RTLD_NOLOAD opens nothing new).
bool open_here(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

const ProfileFailure* failure_at(const ProfileRegistry& r, const std::string& file_name) {
  for (const ProfileFailure& f : r.failures())
    if (fs::path(f.path).filename() == file_name) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("a data profile's manifest names its variants relative to its folder", "[profile]") {
  const Profile p = load_profile_manifest(fixture("profiles/data-toy/profile.yaml"));
  CHECK(p.name == "toy-data");
  CHECK(p.profile_version == "2.1.0");
  CHECK(p.kind == ProfileKind::data);
  REQUIRE(p.variants.size() == 2);
  CHECK(p.variants[0].name == "a");  // the order written
  CHECK_FALSE(p.variants[0].fitted);
  CHECK(p.variants[1].fitted);
  CHECK(p.default_variant == "b");  // `default_variant:`, not the first
  CHECK(normal(p.variants[0].arch_file) == normal(fixture("arch/tiny.yaml")));
  REQUIRE(p.mapping_templates.size() == 1);
  CHECK(normal(p.mapping_templates[0]) == normal(fixture("mapping/tiny-gemm-template.yaml")));
  CHECK(p.microbenchmarks.empty());
}

TEST_CASE("without default_variant the first variant is the default", "[profile]") {
  const Profile p = parse_toy(kHeader +
                              "variants:\n"
                              "  z: {arch: ../../arch/tiny.yaml}\n"
                              "  a: {arch: ../../arch/tiny.yaml}\n");
  CHECK(p.default_variant == "z");
}

TEST_CASE("profile manifest errors point at the key at fault", "[profile]") {
  struct Case {
    std::string body;
    int line, column;
    std::string expected;
  };
  // Lines count the 4 header lines (kHeader) first.
  const std::vector<Case> cases = {
      {"", 1, 1, "missing `variants`"},
      {"variants: {}\n", 5, 11, "`variants` is empty"},
      {"variants:\n  a: {arch: ../../arch/no-such.yaml}\n", 6, 13,
       "architecture graph '../../arch/no-such.yaml' not found"},
      {"variants:\n  a/b: {arch: ../../arch/tiny.yaml}\n", 6, 3,
       "variant name 'a/b' may hold only letters"},
      {"variants:\n  a: {arch: ../../arch/tiny.yaml, fitted: true}\n", 6, 6,
       "names no `provenance:`"},
      {"variants:\n  a: {arch: ../../arch/tiny.yaml}\ndefault_variant: c\n", 7, 18,
       "`default_variant` 'c' is not one of the variants (a)"},
      {"variants:\n  a: {arch: ../../arch/tiny.yaml}\nkernel_rule: x.yaml\n", 7, 1, "kernel_rule"},
      {"variants:\n  a: {arch: ../../arch/tiny.yaml}\n  a: {arch: ../../arch/tiny.yaml}\n", 7, 3,
       "appears twice"},
  };
  for (const Case& c : cases) {
    INFO(c.body);
    const InputError e = input_error_of([&] { parse_toy(kHeader + c.body); });
    CHECK(e.where().line == c.line);
    CHECK(e.where().column == c.column);
    CHECK_THAT(e.message(), Catch::Contains(c.expected));
  }
  const InputError wrong_kind =
      input_error_of([] { parse_toy("version: 1\nkind: architecture\nname: x\n"); });
  CHECK_THAT(wrong_kind.message(), Catch::Contains("expected `kind: profile`"));
}

TEST_CASE("the search path: TILESCOPE_PLUGIN_PATH, then the user's folder, then the bundled",
          "[profile]") {
  const auto path = profile_search_path("/a::/b:", "/xdg", "/home/u", fs::path("/data"));
  REQUIRE(path.size() == 4);  // the empty entries of "/a::/b:" are dropped
  CHECK(path[0].path == "/a");
  CHECK(path[1].path == "/b");
  CHECK(path[2].path == "/xdg/tilescope/plugins");
  CHECK(path[2].source == "user data folder");
  CHECK(path[3].path == "/data/plugins");
  CHECK(path[3].source == "bundled");
  // XDG_DATA_HOME unset or empty: the XDG default under HOME.
  const auto home = profile_search_path(nullptr, "", "/home/u", std::nullopt);
  REQUIRE(home.size() == 1);
  CHECK(home[0].path == "/home/u/.local/share/tilescope/plugins");
  CHECK(profile_search_path(nullptr, nullptr, nullptr, std::nullopt).empty());
}

TEST_CASE("a code plugin is read through its entry point, graphs beside the library", "[profile]") {
  const Profile p = load_code_plugin(kPluginDir + "/libtoy-code.so");
  CHECK(p.name == "toy-code");
  CHECK(p.kind == ProfileKind::code);
  CHECK(p.profile_version == "0.1.0");
  REQUIRE(p.variants.size() == 2);
  CHECK(p.default_variant == "v1");
  CHECK(p.variants[1].fitted);
  CHECK(normal(p.variants[0].arch_file) == normal(kPluginDir + "/toy-code-chip.yaml"));
}

TEST_CASE("a plugin of another ABI is refused by its version alone", "[profile]") {
  const std::string path = kPluginDir + "/libwrong-abi.so";
  try {
    load_code_plugin(path);
    FAIL("the ABI 99 plugin loaded");
  } catch (const ProfileLoadError& e) {
    CHECK(e.path() == path);
    CHECK_THAT(e.problem(),
               Catch::Contains("ABI version 99") && Catch::Contains("versions 1 to 2"));
  }
}

TEST_CASE("every plugin that fails is one line with its path, and the others still load",
          "[profile]") {
  ProfileRegistry r = fixture_registry();
  // fixtures/profiles: broken-graph (its manifest is fine), code/libnotes.so (text),
  // data-toy; the plugin folder: libno-entry.so, libtoy-code.so, libwrong-abi.so.
  CHECK(r.find("toy-data"));
  CHECK(r.find("toy-code"));
  CHECK(r.find("broken-graph"));
  CHECK(r.failures().size() == 3);
  const ProfileFailure* notes = failure_at(r, "libnotes.so");
  const ProfileFailure* no_entry = failure_at(r, "libno-entry.so");
  const ProfileFailure* wrong_abi = failure_at(r, "libwrong-abi.so");
  REQUIRE(notes);
  REQUIRE(no_entry);
  REQUIRE(wrong_abi);
  CHECK_THAT(notes->line(), Catch::StartsWith(fixture("profiles/code/libnotes.so") +
                                              ": not a loadable shared library"));
  CHECK_THAT(no_entry->line(), Catch::Contains("exports no `tilescope_profile` entry point"));
  CHECK_THAT(wrong_abi->line(), Catch::Contains("built for plugin ABI version 99"));
  for (const ProfileFailure& f : r.failures()) CHECK(f.line().find('\n') == std::string::npos);

  // Checking the graphs moves the profile with a broken one to the failures, with the graph's
  // own file:line:col (bad-unit.yaml line 8: `capacity: 64Gb`, bits where bytes are expected).
  r.check_graphs();
  CHECK_FALSE(r.find("broken-graph"));
  CHECK(r.find("toy-data"));
  REQUIRE(r.failures().size() == 4);
  const ProfileFailure& broken = r.failures().back();
  CHECK(broken.path == fixture("profiles/broken-graph/profile.yaml"));
  CHECK_THAT(broken.line(), Catch::Contains("variant only: ") &&
                                Catch::Contains(normal(fixture("arch/bad-unit.yaml")) + ":8:"));
}

TEST_CASE("the first profile of a name on the search path wins", "[profile]") {
  // The folder itself as an entry (it holds a profile.yaml), then its parent, which holds it
  // again: the second toy-data is shadowed, not a second entry.
  const ProfileRegistry r = ProfileRegistry::discover(
      {{fixture("profiles/data-toy"), "TILESCOPE_PLUGIN_PATH"}, {fixture("profiles"), "bundled"}});
  const LoadedProfile* toy = r.find("toy-data");
  REQUIRE(toy);
  CHECK(toy->source == "TILESCOPE_PLUGIN_PATH");
  REQUIRE(r.shadowed().size() == 1);
  CHECK_THAT(r.shadowed()[0], Catch::Contains("profile toy-data is shadowed"));
  // A named folder that is not there is reported; a missing default place is not.
  const ProfileRegistry missing = ProfileRegistry::discover(
      {{"/no/such/tilescope-folder", "TILESCOPE_PLUGIN_PATH"}, {"/no/such/either", "bundled"}});
  REQUIRE(missing.failures().size() == 1);
  CHECK_THAT(missing.failures()[0].line(),
             Catch::Equals("/no/such/tilescope-folder: no such folder (named in "
                           "TILESCOPE_PLUGIN_PATH)"));
}

TEST_CASE("profile:NAME[/VARIANT] resolves to the variant's graph file", "[profile]") {
  const ProfileRegistry r = fixture_registry();
  const SourceLocation where{"--arch", 0, 0};
  const std::string tiny = normal(fixture("arch/tiny.yaml"));
  CHECK(normal(resolve_architecture_file("profile:toy-data/a", r, where)) == tiny);
  CHECK(normal(resolve_architecture_file("profile:toy-data", r, where)) == tiny);  // default b
  CHECK(normal(resolve_architecture_file("profile:toy-code/v1", r, where)) ==
        normal(kPluginDir + "/toy-code-chip.yaml"));
  // Anything else is a file name, returned as written.
  CHECK(resolve_architecture_file("samples/arch/x.yaml", r, where) == "samples/arch/x.yaml");

  const InputError unknown =
      input_error_of([&] { resolve_architecture_file("profile:nope", r, where); });
  CHECK(unknown.where().file == "--arch");
  CHECK_THAT(unknown.message(), Catch::Contains("unknown profile 'nope'") &&
                                    Catch::Contains("known profiles: broken-graph, toy-data, "
                                                    "toy-hooked, toy-code") &&
                                    Catch::Contains("3 failed to load"));
  const InputError variant =
      input_error_of([&] { resolve_architecture_file("profile:toy-data/c", r, where); });
  CHECK_THAT(variant.message(),
             Catch::Contains("has no variant 'c'") && Catch::Contains("its variants: a, b"));
  // The name of a plugin that failed gets its failure, not "unknown".
  const InputError failed =
      input_error_of([&] { resolve_architecture_file("profile:wrong-abi", r, where); });
  CHECK_THAT(failed.message(), Catch::Contains("profile 'wrong-abi' did not load: " + kPluginDir +
                                               "/libwrong-abi.so: built for plugin ABI"));
}

TEST_CASE("a cluster's device may be a profile variant", "[profile][dist]") {
  // The bundled nvidia profile (found through the build tree's data folder) names
  // samples/arch/nvidia-h100.yaml as its h100 variant.
  const Cluster c = parse_cluster(
      "version: 1\nkind: cluster\nnodes: 2\ndevices_per_node: 8\ndevice: profile:nvidia/h100\n"
      "intra_node: {bandwidth: 450GB/s}\ninter_node: {bandwidth: 50GB/s}\n",
      "inline-cluster.yaml");
  CHECK(c.device.name == "nvidia-h100");
  CHECK(fs::path(c.device_file).filename() == "nvidia-h100.yaml");
  const InputError e = input_error_of([] {
    parse_cluster(
        "version: 1\nkind: cluster\nnodes: 2\ndevices_per_node: 8\ndevice: profile:nvidia/h300\n"
        "intra_node: {bandwidth: 450GB/s}\ninter_node: {bandwidth: 50GB/s}\n",
        "inline-cluster.yaml");
  });
  CHECK(e.where().line == 5);
  CHECK(e.where().column == 9);
  CHECK_THAT(e.message(), Catch::Contains("no variant 'h300'") &&
                              Catch::Contains("a100, a100-fitted, h100, h200"));
}

TEST_CASE("a written profile manifest reads back to the same profile", "[profile]") {
  ts::test::TempDir dir("manifest");
  const Profile original = load_profile_manifest(fixture("profiles/data-toy/profile.yaml"));
  // Beside the fixture's graphs' folder: its variants lie outside the new folder (absolute paths).
  const std::string written = (dir / "mine/profile.yaml");
  fs::create_directories(dir / "mine");
  Profile p = original;
  p.description = "a: description with: colons";  // quoted by the writer
  write_profile_manifest(p, written);
  const Profile back = load_profile_manifest(written);
  CHECK(back.name == p.name);
  CHECK(back.profile_version == p.profile_version);
  CHECK(back.description == p.description);
  CHECK(back.default_variant == p.default_variant);
  REQUIRE(back.variants.size() == p.variants.size());
  for (size_t i = 0; i < p.variants.size(); ++i) {
    CHECK(back.variants[i].name == p.variants[i].name);
    CHECK(normal(fs::absolute(back.variants[i].arch_file)) ==
          normal(fs::absolute(p.variants[i].arch_file)));
    CHECK(back.variants[i].fitted == p.variants[i].fitted);
    CHECK(back.variants[i].provenance == p.variants[i].provenance);
  }
  CHECK(back.mapping_templates.size() == p.mapping_templates.size());
  // A graph inside the profile's folder is written relative to it, so the folder can move.
  fs::copy_file(p.variants[0].arch_file, dir / "mine/inside.yaml");
  p.variants[0].arch_file = dir / "mine/inside.yaml";
  CHECK_THAT(profile_manifest_yaml(p, written), Catch::Contains("arch: inside.yaml"));
}

TEST_CASE("a plugin that crashes, hangs or exits in its entry point is named and skipped",
          "[profile][plugin-check]") {
  // Checked in child processes, all at once: this process survives the crash and the exit(0),
  // waits one timeout (1 s) for the hang, and the good plugins beside them still load.
  const auto start = std::chrono::steady_clock::now();
  const ProfileRegistry r = ProfileRegistry::discover(
      {{kFaultyDir, "TILESCOPE_PLUGIN_PATH"}, {kPluginDir, "TILESCOPE_PLUGIN_PATH"}},
      quick_checks());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(8));
  CHECK(r.find("toy-code"));
  CHECK(r.find("toy-hooked"));
  CHECK(r.find("bad-hooks"));  // it loads: only its answers are wrong
  struct Expected {
    std::string library, problem;
  };
  for (const Expected& e :
       {Expected{"libcrash-entry.so", "crashed (SIGSEGV) in its entry point"},
        Expected{"libhang-entry.so", "hung in its entry point (no answer within 1 s; stopped)"},
        Expected{"libexit-entry.so", "called exit() in its entry point"}}) {
    INFO(e.library);
    const ProfileFailure* f = failure_at(r, e.library);
    REQUIRE(f);
    CHECK(f->faulty);
    CHECK(f->line() == kFaultyDir + "/" + e.library + ": " + e.problem);
    CHECK(f->likely_name == e.library.substr(3, e.library.size() - 6));
    CHECK_FALSE(open_here(f->path));  // never opened in this process
  }
  const ProfileFailure* abi = failure_at(r, "libwrong-abi.so");
  REQUIRE(abi);
  CHECK_FALSE(abi->faulty);  // refused, not faulty: it answered
  CHECK_THAT(r.skipped_plugin_lines(),
             Catch::Equals(std::vector<std::string>{
                 "tilescope: plugin " + kFaultyDir +
                     "/libcrash-entry.so crashed (SIGSEGV) in its entry point; skipped",
                 "tilescope: plugin " + kFaultyDir +
                     "/libexit-entry.so called exit() in its "
                     "entry point; skipped",
                 "tilescope: plugin " + kFaultyDir +
                     "/libhang-entry.so hung in its entry point "
                     "(no answer within 1 s; stopped); skipped"}));
  // Discovering runs none of the good plugins' code here either: what they describe came from
  // their checks, and a library opens here when one of its hooks is first called. (Copies, which
  // no other test opens.)
  ts::test::TempDir copies("plugin-copies");
  fs::copy_file(kPluginDir + "/libtoy-code.so", copies.path() / "libtoy-code.so");
  fs::copy_file(kPluginDir + "/toy-code-chip.yaml", copies.path() / "toy-code-chip.yaml");
  const ProfileRegistry copied =
      ProfileRegistry::discover({{copies.path(), "TILESCOPE_PLUGIN_PATH"}}, quick_checks());
  REQUIRE(copied.find("toy-code"));
  CHECK(copied.find("toy-code")->profile.variants.size() == 2);
  CHECK_FALSE(open_here(copies.file("libtoy-code.so")));
  // Naming a faulty one says what happened to it.
  const InputError named = input_error_of([&] {
    resolve_architecture_file("profile:crash-entry", r, SourceLocation{"--arch", 0, 0});
  });
  CHECK_THAT(named.message(), Catch::Contains("profile 'crash-entry' did not load: " + kFaultyDir +
                                              "/libcrash-entry.so: crashed (SIGSEGV)"));
}

TEST_CASE("a check in a child process sends back what the entry point answered",
          "[profile][plugin-check]") {
  const PluginVerdict good = check_plugin_in_child(kPluginDir + "/libhooked.so", 10);
  REQUIRE(good.kind == PluginVerdict::Kind::usable);
  CHECK(good.answer.abi_version == 2);
  CHECK(good.answer.name == "toy-hooked");
  CHECK(good.answer.version == "0.2.0");
  CHECK(good.answer.default_variant == "v1");
  REQUIRE(good.answer.variants.size() == 1);
  CHECK(good.answer.variants[0].arch_file == "toy-hooked-chip.yaml");
  REQUIRE(good.answer.cost_hooks.size() == 1);
  CHECK(good.answer.cost_hooks[0].name == "toy-hooked.fill");
  CHECK(good.answer.cost_hooks[0].seconds == nullptr);  // a function of the child's
  const Profile p = profile_from_answer(kPluginDir + "/libhooked.so", good.answer);
  CHECK(p.name == "toy-hooked");
  CHECK(normal(p.variants[0].arch_file) == normal(kPluginDir + "/toy-hooked-chip.yaml"));

  const PluginVerdict abi = check_plugin_in_child(kPluginDir + "/libwrong-abi.so", 10);
  CHECK(abi.kind == PluginVerdict::Kind::refused);
  CHECK_THAT(abi.problem, Catch::StartsWith("built for plugin ABI version 99"));
  const PluginVerdict text = check_plugin_in_child(fixture("profiles/code/libnotes.so"), 10);
  CHECK(text.kind == PluginVerdict::Kind::refused);
  CHECK_THAT(text.problem, Catch::StartsWith("not a loadable shared library"));
}

TEST_CASE("a plugin's verdict is kept by path, size and modification time",
          "[profile][plugin-check]") {
  ts::test::TempDir dir("plugin-checks");
  const fs::path cache = dir.path() / "cache" / "plugin-checks";  // its folder is made
  // Copies, so that one can be changed.
  const fs::path crash = dir.path() / "libcrash-entry.so";
  const fs::path hang = dir.path() / "libhang-entry.so";
  const fs::path good = dir.path() / "libtoy-code.so";
  const fs::path notes = dir.path() / "libnotes.so";
  fs::copy_file(kFaultyDir + "/libcrash-entry.so", crash);
  fs::copy_file(kFaultyDir + "/libhang-entry.so", hang);
  fs::copy_file(kPluginDir + "/libtoy-code.so", good);
  fs::copy_file(fixture("profiles/code/libnotes.so"), notes);
  {
    PluginChecker first(quick_checks(cache));
    first.check_all({crash, hang, good, notes});
    CHECK_FALSE(first.verdict(crash).from_cache);
    CHECK(first.verdict(hang).kind == PluginVerdict::Kind::faulty);
    first.save();
  }
  REQUIRE(fs::is_regular_file(cache));
  {
    PluginChecker second(quick_checks(cache));
    const auto start = std::chrono::steady_clock::now();
    second.check_all({crash, hang, good, notes});
    // The hang is known: no second wait for it.
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(900));
    for (const fs::path& kept : {crash, hang, good}) {
      INFO(kept);
      CHECK(second.verdict(kept).from_cache);
    }
    CHECK(second.verdict(crash).problem == "crashed (SIGSEGV) in its entry point");
    CHECK(second.verdict(good).kind == PluginVerdict::Kind::usable);
    CHECK(second.verdict(good).answer.name == "toy-code");
    CHECK(second.verdict(good).answer.variants.size() == 2);
    // A library that does not load may once its dependencies are installed: checked each time.
    CHECK_FALSE(second.verdict(notes).from_cache);
  }
  // A library that changed is checked again: here the good plugin, copied over the crashing one.
  fs::copy_file(good, crash, fs::copy_options::overwrite_existing);
  fs::last_write_time(crash, fs::last_write_time(crash) + std::chrono::seconds(5));
  {
    PluginChecker third(quick_checks(cache));
    const PluginVerdict& now = third.verdict(crash);
    CHECK_FALSE(now.from_cache);
    CHECK(now.kind == PluginVerdict::Kind::usable);
  }
  // A damaged cache is no cache.
  std::ofstream(cache, std::ios::trunc)
      << "tilescope plugin checks 1, plugin ABI 1 to 2\nlibrary x";
  CHECK_FALSE(PluginChecker(quick_checks(cache)).verdict(good).from_cache);
  // A cache that cannot be written: every process checks again, and nothing fails.
  PluginChecker unwritable(quick_checks(fs::path("/proc/no-such-folder/plugin-checks")));
  CHECK(unwritable.verdict(good).kind == PluginVerdict::Kind::usable);
  CHECK_NOTHROW(unwritable.save());
}

TEST_CASE("the cache file of the checks is under the user's cache folder", "[profile]") {
  CHECK(plugin_check_cache_file("/xdg-cache", "/home/u") ==
        fs::path("/xdg-cache/tilescope/plugin-checks"));
  CHECK(plugin_check_cache_file("", "/home/u") ==
        fs::path("/home/u/.cache/tilescope/plugin-checks"));
  CHECK(plugin_check_cache_file("relative", "/home/u") ==
        fs::path("/home/u/.cache/tilescope/plugin-checks"));  // XDG: relative paths are ignored
  CHECK_FALSE(plugin_check_cache_file(nullptr, nullptr));
}
