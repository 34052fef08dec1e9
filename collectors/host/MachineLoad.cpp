#include "host/MachineLoad.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace ts::host {
namespace {

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; }

}  // namespace

std::optional<CpuSample> sample_cpu() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq) || cpu != "cpu")
    return std::nullopt;
  if (!(stat >> steal)) steal = 0;  // kernels before 2.6.11 have no steal column
  const long ticks = sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return std::nullopt;
  rusage self{};
  if (getrusage(RUSAGE_SELF, &self) != 0) return std::nullopt;
  CpuSample s;
  s.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  s.machine_busy_s = static_cast<double>(user + nice + system + irq + softirq + steal) /
                     static_cast<double>(ticks);
  s.own_s = seconds(self.ru_utime) + seconds(self.ru_stime);
  return s;
}

std::optional<double> other_cores(const std::optional<CpuSample>& before,
                                  const std::optional<CpuSample>& after) {
  if (!before || !after) return std::nullopt;
  const double wall = after->wall_s - before->wall_s;
  if (!(wall > 0)) return std::nullopt;
  const double others =
      (after->machine_busy_s - before->machine_busy_s) - (after->own_s - before->own_s);
  // /proc/stat counts in clock ticks and getrusage in microseconds: a small negative is rounding.
  return std::max(0.0, others / wall);
}

std::optional<double> other_cores_over(double seconds) {
  const std::optional<CpuSample> before = sample_cpu();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  return other_cores(before, sample_cpu());
}

int online_cpus() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace ts::host
