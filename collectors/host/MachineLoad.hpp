#pragma once
// How much of the machine other processes used while we measured. A timing is disturbed when
// something else takes the cores it runs on; the kernel's own counters say so directly: all
// CPU time spent (/proc/stat, including time a hypervisor stole from this VM) minus this
// process's own (getrusage), over the wall time between two samples. Linux only; elsewhere
// (or when /proc is not mounted) nothing is known and nothing is flagged.
#include <optional>

namespace ts::host {

struct CpuSample {
  double wall_s = 0;
  double machine_busy_s = 0;  // every CPU's non-idle time, summed
  double own_s = 0;           // this process's user + system time, all threads
};

std::optional<CpuSample> sample_cpu();

// Cores' worth of CPU time that other processes (or the hypervisor) used between two samples;
// none when either sample is missing or no time passed.
std::optional<double> other_cores(const std::optional<CpuSample>& before,
                                  const std::optional<CpuSample>& after);

// The same over the next `seconds`, sleeping meanwhile: how busy the machine is before we start.
std::optional<double> other_cores_over(double seconds);

// CPUs this machine has online (what /proc/stat's total covers).
int online_cpus();

}  // namespace ts::host
