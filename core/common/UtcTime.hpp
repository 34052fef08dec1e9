#pragma once
// The current time as ISO 8601 UTC ("2026-11-29T17:30:00Z"): what files and databases record.
#include <string>

namespace ts {

std::string utc_now_iso();

}  // namespace ts
