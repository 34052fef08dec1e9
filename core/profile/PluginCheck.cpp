#include "profile/PluginCheck.hpp"

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>

#include "common/AtomicFile.hpp"
#include "profile/PluginAbi.h"
#include "profile/PluginCall.hpp"

namespace ts {
namespace fs = std::filesystem;

namespace {

// --- Fields: `key length\nvalue\n`, what the child sends and what the cache file holds. --------

void put_field(std::string& out, std::string_view key, std::string_view value) {
  out.append(key).append(" ").append(std::to_string(value.size())).append("\n");
  out.append(value).append("\n");
}

struct Field {
  std::string key, value;
};

// The next field at `pos`; false at the end or at anything malformed (a child cut off mid-way).
bool next_field(std::string_view text, size_t& pos, Field& field) {
  const size_t space = text.find(' ', pos);
  const size_t eol = text.find('\n', pos);
  if (space == std::string_view::npos || eol == std::string_view::npos || space > eol) return false;
  const std::string_view length_text = text.substr(space + 1, eol - space - 1);
  if (length_text.empty() || length_text.size() > 12 ||
      length_text.find_first_not_of("0123456789") != std::string_view::npos)
    return false;
  const size_t length = std::stoull(std::string(length_text));
  if (eol + 1 + length + 1 > text.size() || text[eol + 1 + length] != '\n') return false;
  field.key = std::string(text.substr(pos, space - pos));
  field.value = std::string(text.substr(eol + 1, length));
  pos = eol + 1 + length + 1;
  return true;
}

void put_answer(std::string& out, const PluginAnswer& a) {
  put_field(out, "abi", std::to_string(a.abi_version));
  put_field(out, "name", a.name);
  put_field(out, "version", a.version);
  put_field(out, "description", a.description);
  if (a.default_variant) put_field(out, "default", *a.default_variant);
  for (const PluginAnswer::Variant& v : a.variants) {
    put_field(out, "variant", v.name);
    put_field(out, "arch", v.arch_file);
    put_field(out, "fitted", v.fitted ? "1" : "0");
    put_field(out, "provenance", v.provenance);
  }
  for (const PluginAnswer::Hook& h : a.cost_hooks) put_field(out, "hook", h.name);
}

// One field of an answer; false for a key that is not one.
bool take_answer_field(const Field& f, PluginAnswer& a) {
  if (f.key == "abi") {
    a.abi_version = static_cast<uint32_t>(std::strtoul(f.value.c_str(), nullptr, 10));
  } else if (f.key == "name") {
    a.name = f.value;
  } else if (f.key == "version") {
    a.version = f.value;
  } else if (f.key == "description") {
    a.description = f.value;
  } else if (f.key == "default") {
    a.default_variant = f.value;
  } else if (f.key == "variant") {
    a.variants.push_back({f.value, "", false, ""});
  } else if (f.key == "arch" || f.key == "fitted" || f.key == "provenance") {
    if (a.variants.empty()) return false;
    PluginAnswer::Variant& v = a.variants.back();
    if (f.key == "arch") v.arch_file = f.value;
    if (f.key == "fitted") v.fitted = f.value == "1";
    if (f.key == "provenance") v.provenance = f.value;
  } else if (f.key == "hook") {
    a.cost_hooks.push_back({f.value, nullptr, nullptr});
  } else {
    return false;
  }
  return true;
}

// --- The child. ----------------------------------------------------------------------------

// The status of a child whose library called exit(): an atexit handler registered after the
// parent's own (so run before them: none of the parent's destructors or stdio flushes runs in
// the child) leaves at once with it.
constexpr int kCalledExitStatus = 113;

extern "C" void leave_child_on_exit() { _exit(kCalledExitStatus); }

void send_text(int fd, const std::string& text) {
  const char* data = text.data();
  size_t size = text.size();
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void send_field(int fd, std::string_view key, std::string_view value) {
  std::string out;
  put_field(out, key, value);
  send_text(fd, out);
}

[[noreturn]] void finish_child(int fd, const std::string& fields) {
  std::string out = fields;
  put_field(out, "end", "");
  send_text(fd, out);
  _exit(0);
}

// What the child of a check does, after fork: no exception, no return.
[[noreturn]] void run_check_child(const std::string& path, int fd, pid_t parent) {
  // The library's faults must show as what they are: default dispositions, nothing blocked
  // (the parent's handlers, a sanitizer's or PluginCall's, would report them otherwise).
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGINT, SIGTERM,
                  SIGHUP, SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ, SIGALRM, SIGCHLD})
    ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a hung child never outlives tilescope
  if (::getppid() != parent) _exit(1);
#else
  (void)parent;
#endif
  // What the library prints must not mix into tilescope's output (a CSV, a listing): stdout and
  // stdin are /dev/null; its stderr stays, for a message of its own before a fault.
  if (const int null = ::open("/dev/null", O_RDWR); null >= 0) {
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    if (null > STDERR_FILENO) ::close(null);
  }
  std::atexit(leave_child_on_exit);
  send_field(fd, "stage", "open");
  void* handle = nullptr;
  std::string problem = open_plugin_library(path, &handle);
  std::string fields;
  if (!problem.empty()) {
    // Not kept: a library that does not load may load once what it needs is installed.
    put_field(fields, "refused", problem);
    put_field(fields, "keep", "0");
    finish_child(fd, fields);
  }
  std::atexit(leave_child_on_exit);  // again: before the handlers its constructors added
  send_field(fd, "stage", "entry");
  const void* raw = nullptr;
  uint32_t abi_version = 0;
  problem = call_plugin_entry_point(path, handle, &raw, &abi_version);
  if (problem.empty()) {
    send_field(fd, "stage", "read");
    PluginAnswer answer;
    problem = read_plugin_answer(raw, abi_version, &answer);
    if (problem.empty()) {
      put_field(fields, "usable", "");
      put_answer(fields, answer);
      finish_child(fd, fields);
    }
  }
  put_field(fields, "refused", problem);
  put_field(fields, "keep", "1");
  finish_child(fd, fields);
}

// --- The parent. ---------------------------------------------------------------------------

struct Child {
  std::string path;
  pid_t pid = -1;
  int fd = -1;
  std::string received;
  bool reaped = false;
  bool status_known = false;
  int status = 0;
  bool killed = false;  // by the timeout
  PluginVerdict verdict;
  bool keep = false;  // the verdict belongs in the cache
};

// More than any answer needs: past it, what the child sends is not read (a pipe that a
// grandchild keeps filling would never end).
constexpr size_t kMaxAnswerBytes = 16u << 20;

void drain(Child& c) {
  if (c.fd < 0) return;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(c.fd, buffer, sizeof buffer);
    if (n > 0 && c.received.size() < kMaxAnswerBytes) {
      c.received.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n > 0) {  // too much: the answer is cut, and judged incomplete
      ::close(c.fd);
      c.fd = -1;
      return;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || errno != EAGAIN) {
      ::close(c.fd);
      c.fd = -1;
    }
    return;
  }
}

void reap(Child& c, bool wait) {
  if (c.reaped) return;
  int status = 0;
  const pid_t got = ::waitpid(c.pid, &status, wait ? 0 : WNOHANG);
  if (got == c.pid) {
    c.reaped = c.status_known = true;
    c.status = status;
  } else if (got < 0 && errno != EINTR) {
    c.reaped = true;  // ECHILD: reaped by someone else (SIGCHLD ignored); status unknown
  }
}

std::string where_it_was(const std::string& stage) {
  if (stage == "entry") return "in its entry point";
  if (stage == "read") return "reading the profile its entry point returned (a bad pointer in it)";
  return "while being loaded (in its static constructors)";
}

void judge_child(Child& c, double timeout_s) {
  std::string stage;
  bool complete = false;
  PluginVerdict report;
  bool report_keep = false;
  size_t pos = 0;
  Field f;
  while (next_field(c.received, pos, f)) {
    if (f.key == "stage") {
      stage = f.value;
    } else if (f.key == "usable") {
      report.kind = PluginVerdict::Kind::usable;
      report_keep = true;
    } else if (f.key == "refused") {
      report.kind = PluginVerdict::Kind::refused;
      report.problem = f.value;
    } else if (f.key == "keep") {
      report_keep = f.value == "1";
    } else if (f.key == "end") {
      complete = true;
      break;
    } else if (!take_answer_field(f, report.answer)) {
      break;
    }
  }
  const std::string where = where_it_was(stage);
  PluginVerdict& v = c.verdict;
  v.kind = PluginVerdict::Kind::faulty;
  c.keep = true;
  if (c.killed) {
    v.problem = fmt::format("hung {} (no answer within {:g} s; stopped)", where, timeout_s);
  } else if (c.status_known && WIFSIGNALED(c.status)) {
    const int sig = WTERMSIG(c.status);
    const bool from_outside =
        sig == SIGKILL || sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
    // Killed from outside (the out-of-memory killer, a Ctrl-C): not the library's own verdict.
    c.keep = !from_outside;
    v.problem =
        fmt::format("{} ({}) {}", from_outside ? "was killed" : "crashed", signal_name(sig), where);
  } else if (complete && (!c.status_known || (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0))) {
    v = std::move(report);
    c.keep = report_keep;
  } else if (c.status_known && WIFEXITED(c.status)) {
    const int code = WEXITSTATUS(c.status);
    v.problem = code == kCalledExitStatus
                    ? "called exit() " + where
                    : fmt::format("exited with status {} {}, without answering", code, where);
  } else {
    v.problem = "could not be checked (its check process vanished) " + where;
    c.keep = false;
  }
}

std::vector<PluginVerdict> check_in_children(const std::vector<std::string>& paths,
                                             double timeout_s, std::vector<bool>* keep) {
  using Clock = std::chrono::steady_clock;
  std::vector<Child> children(paths.size());
  // Nothing buffered in this process is written twice by a child that flushes it.
  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t parent = ::getpid();
  for (size_t i = 0; i < paths.size(); ++i) {
    Child& c = children[i];
    c.path = paths[i];
    if (plugin_trace_enabled())
      std::cerr << "tilescope: checking plugin " << c.path << " in a child process" << std::endl;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      c.reaped = true;
      c.verdict = {PluginVerdict::Kind::refused,
                   std::string("could not be checked (pipe: ") + ::strerror(errno) + ")",
                   {},
                   false};
      continue;
    }
    c.pid = ::fork();
    if (c.pid == 0) {
      ::close(fds[0]);
      run_check_child(c.path, fds[1], parent);
    }
    ::close(fds[1]);
    if (c.pid < 0) {
      ::close(fds[0]);
      c.reaped = true;
      c.verdict = {PluginVerdict::Kind::refused,
                   std::string("could not be checked (fork: ") + ::strerror(errno) + ")",
                   {},
                   false};
      continue;
    }
    c.fd = fds[0];
    ::fcntl(c.fd, F_SETFL, ::fcntl(c.fd, F_GETFL) | O_NONBLOCK);
  }

  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_s));
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Child*> polled;
    bool running = false;
    for (Child& c : children) {
      if (c.pid < 0) continue;
      reap(c, false);
      if (c.reaped) drain(c);       // what it wrote before it ended; then its pipe is done with
      if (c.reaped && c.fd >= 0) {  // a grandchild holds the pipe open: what is there is all
        ::close(c.fd);
        c.fd = -1;
      }
      if (!c.reaped) running = true;
      if (c.fd >= 0) {
        fds.push_back({c.fd, POLLIN, 0});
        polled.push_back(&c);
      }
    }
    if (!running) break;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      for (Child& c : children) {
        if (c.pid < 0 || c.reaped) continue;
        ::kill(c.pid, SIGKILL);
        c.killed = true;
        while (!c.reaped) reap(c, true);
        drain(c);
        if (c.fd >= 0) ::close(c.fd);
        c.fd = -1;
      }
      break;
    }
    // Short waits: a child that ended is noticed even when its pipe stays open.
    const int wait_ms = static_cast<int>(std::min<long long>(left.count(), 20));
    if (fds.empty()) {
      ::usleep(static_cast<useconds_t>(wait_ms) * 1000);
      continue;
    }
    if (::poll(fds.data(), fds.size(), wait_ms) > 0)
      for (size_t i = 0; i < fds.size(); ++i)
        if (fds[i].revents != 0) drain(*polled[i]);
  }

  std::vector<PluginVerdict> verdicts;
  keep->clear();
  for (Child& c : children) {
    if (c.pid >= 0) judge_child(c, timeout_s);
    verdicts.push_back(std::move(c.verdict));
    keep->push_back(c.pid >= 0 && c.keep);
  }
  return verdicts;
}

// The library's size and modification time, as the cache compares them; false when it cannot
// be read.
bool file_identity(const std::string& path, std::string& size, std::string& mtime) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  size = std::to_string(static_cast<long long>(st.st_size));
  mtime = fmt::format("{}.{:09}", static_cast<long long>(st.st_mtim.tv_sec),
                      static_cast<long>(st.st_mtim.tv_nsec));
  return true;
}

std::string cache_key(const fs::path& library) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(library, ec);
  return (ec ? library : absolute).lexically_normal().string();
}

// The first line of the cache file: its format, and the ABI versions this tilescope reads (a
// verdict on a version depends on them).
std::string cache_header() {
  return fmt::format("tilescope plugin checks 1, plugin ABI {} to {}\n",
                     TILESCOPE_PROFILE_OLDEST_ABI_VERSION, TILESCOPE_PROFILE_ABI_VERSION);
}

std::string_view kind_name(PluginVerdict::Kind kind) {
  switch (kind) {
    case PluginVerdict::Kind::usable:
      return "usable";
    case PluginVerdict::Kind::refused:
      return "refused";
    case PluginVerdict::Kind::faulty:
      return "faulty";
  }
  return "refused";
}

using CacheEntries = std::map<std::string, PluginChecker::CacheEntry>;

std::string cache_text(const CacheEntries& entries) {
  std::string out = cache_header();
  for (const auto& [path, e] : entries) {
    put_field(out, "library", path);
    put_field(out, "size", e.size);
    put_field(out, "mtime", e.mtime);
    put_field(out, "verdict", kind_name(e.verdict.kind));
    put_field(out, "problem", e.verdict.problem);
    if (e.verdict.kind == PluginVerdict::Kind::usable) put_answer(out, e.verdict.answer);
    put_field(out, "end", "");
  }
  return out;
}

// The entries of a cache file; none when it is missing, of another format, or damaged.
CacheEntries read_cache(const std::optional<fs::path>& file) {
  CacheEntries entries;
  if (!file) return entries;
  std::ifstream in(*file, std::ios::binary);
  if (!in) return entries;
  std::ostringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  const std::string header = cache_header();
  if (text.compare(0, header.size(), header) != 0) return entries;
  size_t pos = header.size();
  Field f;
  std::string path;
  PluginChecker::CacheEntry entry;
  while (pos < text.size()) {
    if (!next_field(text, pos, f)) return {};
    if (f.key == "library") {
      path = f.value;
      entry = {};
    } else if (f.key == "size") {
      entry.size = f.value;
    } else if (f.key == "mtime") {
      entry.mtime = f.value;
    } else if (f.key == "verdict") {
      entry.verdict.kind = f.value == "usable"   ? PluginVerdict::Kind::usable
                           : f.value == "faulty" ? PluginVerdict::Kind::faulty
                                                 : PluginVerdict::Kind::refused;
    } else if (f.key == "problem") {
      entry.verdict.problem = f.value;
    } else if (f.key == "end") {
      if (path.empty()) return {};
      entry.verdict.from_cache = true;
      entries[path] = std::move(entry);
      path.clear();
      entry = {};
    } else if (!take_answer_field(f, entry.verdict.answer)) {
      return {};
    }
  }
  return entries;
}

}  // namespace

std::optional<fs::path> plugin_check_cache_file(const char* xdg_cache_home, const char* home) {
  if (xdg_cache_home != nullptr && *xdg_cache_home != '\0' &&
      fs::path(xdg_cache_home).is_absolute())
    return fs::path(xdg_cache_home) / "tilescope" / "plugin-checks";
  if (home != nullptr && *home != '\0')
    return fs::path(home) / ".cache" / "tilescope" / "plugin-checks";
  return std::nullopt;
}

PluginCheckOptions plugin_check_options() {
  PluginCheckOptions o;
  o.cache_file = plugin_check_cache_file(std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  if (const char* t = std::getenv("TILESCOPE_PLUGIN_CHECK_TIMEOUT_S"); t != nullptr && *t) {
    char* end = nullptr;
    const double seconds = std::strtod(t, &end);
    if (end != t && *end == '\0' && std::isfinite(seconds) && seconds > 0) o.timeout_s = seconds;
  }
  return o;
}

PluginVerdict check_plugin_in_child(const fs::path& library, double timeout_s) {
  std::vector<bool> keep;
  return check_in_children({library.string()}, timeout_s, &keep).front();
}

PluginChecker::PluginChecker(PluginCheckOptions options)
    : options_(std::move(options)), cache_(read_cache(options_.cache_file)) {}

void PluginChecker::check_all(const std::vector<fs::path>& libraries) {
  std::vector<std::string> to_check;
  for (const fs::path& library : libraries) {
    const std::string path = library.string();
    if (checked_.count(path) || std::find(to_check.begin(), to_check.end(), path) != to_check.end())
      continue;
    std::string size, mtime;
    if (file_identity(path, size, mtime)) {
      const auto known = cache_.find(cache_key(library));
      if (known != cache_.end() && known->second.size == size && known->second.mtime == mtime) {
        checked_[path] = known->second.verdict;
        checked_[path].from_cache = true;
        continue;
      }
    }
    to_check.push_back(path);
  }
  if (to_check.empty()) return;
  std::vector<bool> keep;
  std::vector<PluginVerdict> verdicts = check_in_children(to_check, options_.timeout_s, &keep);
  for (size_t i = 0; i < to_check.size(); ++i) {
    CacheEntry entry;
    if (keep[i] && file_identity(to_check[i], entry.size, entry.mtime)) {
      entry.verdict = verdicts[i];
      cache_[cache_key(to_check[i])] = std::move(entry);
      changed_ = true;
    }
    checked_[to_check[i]] = std::move(verdicts[i]);
  }
}

const PluginVerdict& PluginChecker::verdict(const fs::path& library) {
  if (!checked_.count(library.string())) check_all({library});
  return checked_.at(library.string());
}

void PluginChecker::save() {
  if (!changed_ || !options_.cache_file) return;
  changed_ = false;
  // Another process may have written verdicts since this one read the file: keep them, and
  // drop those of libraries that are gone or changed.
  CacheEntries entries = read_cache(options_.cache_file);
  for (auto& [path, entry] : cache_) entries[path] = entry;
  for (auto it = entries.begin(); it != entries.end();) {
    std::string size, mtime;
    const bool current = file_identity(it->first, size, mtime) && size == it->second.size &&
                         mtime == it->second.mtime;
    it = current ? std::next(it) : entries.erase(it);
  }
  try {
    std::error_code ec;
    fs::create_directories(options_.cache_file->parent_path(), ec);
    write_file_atomically(options_.cache_file->string(), cache_text(entries));
  } catch (const std::exception&) {
    // No cache: the next process checks again.
  }
}

}  // namespace ts
