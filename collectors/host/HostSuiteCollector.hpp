#pragma once
// The host collector as `tilescope measure --collector host` runs it: plans the host suite on a
// calibrated graph, measures it on this CPU (HostCollector.hpp's jobs) and stores measurements
// and predictions in a results database.
#include <memory>

#include "measure/Collector.hpp"

namespace ts::host {

// The graph `tilescope calibrate host` writes by default, and the host collector's default graph.
inline constexpr const char* kHostGraphFile = "out/host.yaml";

std::unique_ptr<Collector> make_host_suite_collector();

}  // namespace ts::host
