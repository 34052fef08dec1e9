#pragma once
// Runs the real `tilescope` binary for the CLI integration tests: stdout and stderr are captured
// apart (each into a temporary file), the child runs in the source root so that paths such as
// `samples/arch/ascend910b3.yaml` work as in the README.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts::cli_test {

struct RunResult {
  int status = -1;  // exit status; 128 + signal number when the binary was killed by a signal
  bool signaled = false;
  std::string out;
  std::string err;
  std::string command;  // for messages
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A temporary file that is removed when it goes out of scope.
class TempFile {
 public:
  TempFile() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tilescope-cli-test-XXXXXX").string();
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    fd_ = ::mkstemp(buf.data());
    if (fd_ < 0) throw std::runtime_error("mkstemp failed");
    path_ = buf.data();
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// Runs TILESCOPE_BINARY with `args` in TILESCOPE_ROOT. A command still running after
// `alarm_s` seconds dies of SIGALRM, so that a hang fails the test instead of stalling the run;
// long commands (a whole fit on a loaded 2-core machine) give more. `in_child`, when given, runs
// in the child just before exec (async-signal-safe calls only): a lower file-size limit, another
// user.
inline RunResult run_tilescope(const std::vector<std::string>& args, unsigned alarm_s = 120,
                               void (*in_child)() = nullptr) {
  RunResult r;
  r.command = "tilescope";
  for (const auto& a : args) r.command += " " + a;

  TempFile out, err;
  std::vector<std::string> owned{TILESCOPE_BINARY};
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : owned) argv.push_back(s.data());
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // Child: only async-signal-safe calls from here on.
    if (::chdir(TILESCOPE_ROOT) != 0) ::_exit(126);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::dup2(out.fd(), STDOUT_FILENO);
    ::dup2(err.fd(), STDERR_FILENO);
    ::alarm(alarm_s);
    if (in_child) in_child();
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  if (WIFEXITED(wstatus)) {
    r.status = WEXITSTATUS(wstatus);
  } else if (WIFSIGNALED(wstatus)) {
    r.signaled = true;
    r.status = 128 + WTERMSIG(wstatus);
  }
  r.out = read_text(out.path());
  r.err = read_text(err.path());
  return r;
}

// A `tilescope` started in the background (TILESCOPE_ROOT as working folder, output to files),
// for tests that interrupt or kill it while it works.
class BackgroundRun {
 public:
  explicit BackgroundRun(const std::vector<std::string>& args) {
    std::vector<std::string> owned{TILESCOPE_BINARY};
    owned.insert(owned.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : owned) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      if (::chdir(TILESCOPE_ROOT) != 0) ::_exit(126);
      const int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
      ::dup2(out_.fd(), STDOUT_FILENO);
      ::dup2(err_.fd(), STDERR_FILENO);
      ::alarm(300);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~BackgroundRun() {
    if (pid_ > 0 && !waited_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  BackgroundRun(const BackgroundRun&) = delete;
  BackgroundRun& operator=(const BackgroundRun&) = delete;

  void signal(int sig) const { ::kill(pid_, sig); }
  bool running() const { return !waited_ && ::waitpid(pid_, nullptr, WNOHANG) == 0; }
  // Waits for the exit; the status as in RunResult.
  RunResult wait() {
    RunResult r;
    int wstatus = 0;
    while (::waitpid(pid_, &wstatus, 0) < 0) {
      if (errno != EINTR) throw std::runtime_error("waitpid failed");
    }
    waited_ = true;
    if (WIFEXITED(wstatus)) {
      r.status = WEXITSTATUS(wstatus);
    } else if (WIFSIGNALED(wstatus)) {
      r.signaled = true;
      r.status = 128 + WTERMSIG(wstatus);
    }
    r.out = read_text(out_.path());
    r.err = read_text(err_.path());
    return r;
  }

 private:
  TempFile out_, err_;
  pid_t pid_ = -1;
  bool waited_ = false;
};

// Lines of a text without their newlines; a final newline does not make an empty last line.
inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Absolute path of a file under the source root.
inline std::string root_path(const std::string& relative) {
  return std::string(TILESCOPE_ROOT) + "/" + relative;
}

// Absolute path of a test fixture (tests/fixtures/...).
inline std::string fixture(const std::string& relative) {
  return std::string(TILESCOPE_FIXTURES) + "/" + relative;
}

// The regular files with extension `ext` in a folder under the source root, as root-relative
// paths, sorted.
inline std::vector<std::string> files_in(const std::string& relative_dir,
                                         const std::string& ext = ".yaml") {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(root_path(relative_dir)))
    if (e.is_regular_file() && e.path().extension() == ext)
      files.push_back(relative_dir + "/" + e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace ts::cli_test
