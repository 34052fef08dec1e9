// The one rule for writing outputs: the whole file or nothing, and never a temporary left behind.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "common/AtomicFile.hpp"

using namespace ts;
using ts::test::input_error_of;
using ts::test::TempDir;

namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("an atomic write replaces a file whole", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir / "out.txt";
  { std::ofstream(path) << "an older, longer content"; }
  write_file_atomically(path, std::string("new"));
  CHECK(contents(path) == "new");
  write_file_atomically(path, [](std::ostream& out) { out << "streamed " << 42 << '\n'; });
  CHECK(contents(path) == "streamed 42\n");
  CHECK(dir.names() == std::vector<std::string>{"out.txt"});
}

TEST_CASE("a writer that fails leaves the old file and no temporary", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir / "out.txt";
  { std::ofstream(path) << "old"; }
  CHECK_THROWS_AS(write_file_atomically(path,
                                        [](std::ostream& out) {
                                          out << "half of it";
                                          throw std::runtime_error("the writer gave up");
                                        }),
                  std::runtime_error);
  CHECK(contents(path) == "old");
  CHECK(dir.names() == std::vector<std::string>{"out.txt"});
}

TEST_CASE("an unwritable path names the file and leaves nothing", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir / "no-such-folder/out.txt";
  const InputError e = input_error_of([&] { write_file_atomically(path, std::string("x")); });
  CHECK(e.where().file == path);
  CHECK(std::string(e.what()).find("cannot write") != std::string::npos);
  CHECK(dir.names().empty());
}
