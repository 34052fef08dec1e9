// The one rule for writing outputs: the whole file or nothing, and never a temporary left behind.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
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

TEST_CASE("a write cut short by a full disk fails, names the file and leaves the old one",
          "[atomic_file]") {
  TempDir dir;
  const std::string path = dir / "out.txt";
  { std::ofstream(path) << "old"; }
  // In a child: a file size limit makes every write past 4 KiB fail (EFBIG), as a full disk.
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write_file_atomically(path, std::string(100000, 'x'));
    } catch (const InputError& e) {
      const std::string what = e.what();
      const bool named = e.where().file == path &&
                         what.find("File too large") != std::string::npos &&
                         what.find("4096 of 100000 bytes") != std::string::npos;
      ::_exit(named ? 0 : 2);
    }
    ::_exit(1);  // no error: the truncated file passed as a success
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(contents(path) == "old");
  CHECK(dir.names() == std::vector<std::string>{"out.txt"});
}

TEST_CASE("a set of files appears together or not at all", "[atomic_file]") {
  TempDir dir;
  const std::string a = dir / "a.yaml", b = dir / "no-such-folder/b.yaml";
  CHECK_THROWS_AS(write_files_atomically({{a, "first"}, {b, "second"}}), InputError);
  CHECK(dir.names().empty());
  write_files_atomically({{a, "first"}, {dir / "c.yaml", "third"}});
  CHECK(contents(a) == "first");
  CHECK(dir.names() == std::vector<std::string>{"a.yaml", "c.yaml"});
}

TEST_CASE("a name from a file becomes one safe file name", "[atomic_file]") {
  CHECK(safe_file_name("ascend910b3-bert-base-ffn_down") == "ascend910b3-bert-base-ffn_down");
  CHECK(safe_file_name("../../escaped-bert") == "_.._escaped-bert");
  CHECK(safe_file_name("..") == "_");
  CHECK(safe_file_name("") == "_");
  CHECK(safe_file_name(".hidden") == "hidden");
  CHECK(safe_file_name("a/b\\c d\n\xc3\xa9") == "a_b_c_d___");
}

TEST_CASE("two outputs that are one file are refused before anything is written",
          "[atomic-file][refusals]") {
  // Operators `a/b` and `a_b` both save as `..._a_b.yaml`: the second replaced the first.
  TempDir dir("atomic-duplicate");
  const std::string first = dir / "x-a_b.yaml";
  const std::string same = dir.path().string() + "/sub/../x-a_b.yaml";
  std::filesystem::create_directories(dir / "sub");
  const InputError e = input_error_of([&] {
    write_files_atomically({{dir / "other.yaml", "o"}, {first, "one"}, {same, "two"}});
  });
  CHECK(e.message().find("outputs 2 and 3 of 3") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(first));
  CHECK_FALSE(std::filesystem::exists(dir / "other.yaml"));
}
