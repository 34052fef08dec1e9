#include "DeviceError.hpp"

namespace ts::cupti {

void throw_device_error(const char* call, const std::string& reason, const char* file, int line) {
  throw DeviceError(std::string(call) + " failed: " + reason + " (" + file + ":" +
                    std::to_string(line) + ")");
}

}  // namespace ts::cupti
