#include <stdexcept>

#include "host/HostCollector.hpp"

namespace ts::host {

std::string_view to_string(HostKernel kernel) {
  switch (kernel) {
    case HostKernel::tiled:
      return "tiled";
    case HostKernel::openblas:
      return "openblas";
    case HostKernel::vector:
      return "vector";
  }
  return "vector";
}

HostJob host_job(const SuiteEntry& entry) {
  HostJob job;
  job.op = entry.op;
  job.program = entry.program;
  job.mapping = entry.mapping;
  job.suite = entry.key.suite;
  for (HostKernel k : {HostKernel::tiled, HostKernel::openblas, HostKernel::vector})
    if (to_string(k) == entry.implementation) {
      job.kernel = k;
      return job;
    }
  throw std::invalid_argument("the host collector has no kernel '" + entry.implementation + "'");
}

}  // namespace ts::host
