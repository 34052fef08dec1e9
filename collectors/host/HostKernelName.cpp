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

}  // namespace ts::host
