// Where a built or installed tilescope finds samples/: $TILESCOPE_DATA, else share/tilescope
// beside or above the binary; never a path compiled in.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "TempDir.hpp"
#include "common/DataDirectory.hpp"
#include "common/InputError.hpp"

using namespace ts;
namespace fs = std::filesystem;

namespace {

fs::path make_data_folder(const fs::path& prefix) {
  fs::path data = prefix / "share" / "tilescope";
  fs::create_directories(data / "samples");
  return data;
}

}  // namespace

TEST_CASE("an installed binary finds <prefix>/share/tilescope", "[data-directory]") {
  test::TempDir dir("data");
  const fs::path prefix = fs::path(dir.path()) / "opt";
  const fs::path data = make_data_folder(prefix);
  CHECK(find_data_directory(prefix / "bin" / "tilescope", nullptr) == data);
  // A build tree: build/app/gui/tilescope-gui is two levels below build/, which holds the links.
  CHECK(find_data_directory(prefix / "app" / "gui" / "tilescope-gui", nullptr) == data);
}

TEST_CASE("a binary with no data folder above it finds nothing", "[data-directory]") {
  test::TempDir dir("data");
  const fs::path prefix = fs::path(dir.path()) / "opt";
  fs::create_directories(prefix / "share" / "tilescope");  // no samples/ inside
  CHECK_FALSE(find_data_directory(prefix / "bin" / "tilescope", nullptr).has_value());
  // Four levels up is past where a binary sits in an install or a build tree.
  make_data_folder(prefix);
  CHECK_FALSE(find_data_directory(prefix / "a" / "b" / "c" / "d" / "tilescope", nullptr));
}

TEST_CASE("TILESCOPE_DATA overrides the binary's place, and a wrong one is not replaced",
          "[data-directory]") {
  test::TempDir dir("data");
  const fs::path installed = make_data_folder(fs::path(dir.path()) / "opt");
  const fs::path chosen = fs::path(dir.path()) / "mine";
  fs::create_directories(chosen / "samples");
  const fs::path binary = fs::path(dir.path()) / "opt" / "bin" / "tilescope";
  CHECK(find_data_directory(binary, chosen.c_str()) == chosen);
  CHECK(find_data_directory(binary, "") == installed);  // empty counts as unset
  const fs::path wrong = fs::path(dir.path()) / "nothing-here";
  CHECK_FALSE(find_data_directory(binary, wrong.c_str()).has_value());
}

TEST_CASE("this test binary finds the build tree's data folder", "[data-directory]") {
  auto data = data_directory();
  REQUIRE(data.has_value());
  CHECK(fs::exists(*data / "samples" / "arch" / "ascend910b3.yaml"));
}

TEST_CASE("a wrong TILESCOPE_DATA is an error before any command runs", "[data-directory]") {
  ts::test::TempDir dir("data-env");
  const char* before = std::getenv("TILESCOPE_DATA");
  const std::string saved = before ? before : "";
  ::setenv("TILESCOPE_DATA", (dir / "nowhere").c_str(), 1);
  CHECK_THROWS_AS(check_data_environment(), InputError);
  make_data_folder(dir.path());
  ::setenv("TILESCOPE_DATA", (fs::path(dir.path()) / "share" / "tilescope").c_str(), 1);
  CHECK_NOTHROW(check_data_environment());
  ::unsetenv("TILESCOPE_DATA");
  CHECK_NOTHROW(check_data_environment());
  if (before) ::setenv("TILESCOPE_DATA", saved.c_str(), 1);
}
