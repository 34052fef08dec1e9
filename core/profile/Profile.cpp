#include "profile/Profile.hpp"

#include <algorithm>

namespace ts {

std::string_view to_string(ProfileKind kind) { return kind == ProfileKind::data ? "data" : "code"; }

const ProfileVariant* Profile::variant(std::string_view variant_name) const {
  auto it = std::find_if(variants.begin(), variants.end(),
                         [&](const ProfileVariant& v) { return v.name == variant_name; });
  return it == variants.end() ? nullptr : &*it;
}

bool is_profile_name(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

}  // namespace ts
