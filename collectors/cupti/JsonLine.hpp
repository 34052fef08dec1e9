#pragma once
// A JSON object written as one line, by hand: the runner may link nothing but the CUDA toolkit
// and the standard library. Keys keep the order they were added in; doubles are written with
// 17 significant digits (they read back exactly); NaN and infinities become null.
#include <cstdint>
#include <string>
#include <string_view>

namespace ts::cupti {

std::string json_escape(std::string_view text);  // the quoted JSON string

class JsonLine {
 public:
  JsonLine& add(std::string_view key, std::string_view value);
  JsonLine& add(std::string_view key, const char* value) {
    return add(key, std::string_view(value));
  }
  JsonLine& add(std::string_view key, double value);
  JsonLine& add(std::string_view key, int64_t value);
  JsonLine& add(std::string_view key, int value) { return add(key, static_cast<int64_t>(value)); }
  JsonLine& add(std::string_view key, bool value);
  JsonLine& add_null(std::string_view key);
  JsonLine& add_object(std::string_view key, const JsonLine& object);

  std::string str() const { return "{" + body_ + "}"; }

 private:
  void key(std::string_view k);
  std::string body_;
};

}  // namespace ts::cupti
