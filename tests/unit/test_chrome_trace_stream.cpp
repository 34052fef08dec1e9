// The streaming Chrome-trace reader (trace/ChromeTraceStream): events cut anywhere by the 8 MiB
// read buffer, strings with escaped quotes and backslashes, an event larger than the buffer, the
// bare array form, root keys on either side of traceEvents, and JSON broken in the structure the
// scanner checks (where it breaks, by byte offset and line).
#include <zlib.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "trace/ChromeTraceStream.hpp"
#include "trace/KinetoTrace.hpp"

using namespace ts;
using ts::test::input_error_of;

namespace {

namespace od = simdjson::ondemand;

// Keeps each event's `name` (unescaped) and the root values asked for, as text.
class NameCollector final : public ChromeTraceVisitor {
 public:
  void event(od::value value, uint64_t offset) override {
    offsets.push_back(offset);
    if (value.type() != od::json_type::object) {
      names.push_back("<not an object>");
      return;
    }
    std::string name = "<no name>";
    for (auto field : value.get_object())
      if (field.key().value().unsafe_is_equal("name"))
        name = std::string(std::string_view(field.value().get_string()));
    names.push_back(name);
  }
  bool wants(std::string_view key) const override { return key == "device"; }
  void root_value(std::string_view key, od::value value) override {
    root.push_back(std::string(key) + "=" + std::string(std::string_view(value.get_string())));
  }
  std::vector<std::string> names;
  std::vector<uint64_t> offsets;
  std::vector<std::string> root;
};

std::string write(const ts::test::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

NameCollector read_names(const std::string& path) {
  NameCollector names;
  ChromeTraceStream(path).read(names);
  return names;
}

}  // namespace

TEST_CASE("events read whole wherever the read buffer cuts them", "[trace][stream]") {
  ts::test::TempDir dir("chrome-stream");
  // ~24 MB of events of varied sizes, names with escaped quotes and backslashes (a run of two
  // backslashes before a quote ends the string; one escapes it), so that the 8 MiB buffer ends
  // inside strings, escapes, numbers and between events over and over.
  std::string text = "{\"device\": \"A100\", \"traceEvents\": [\n";
  std::vector<std::string> expected;
  for (int i = 0; text.size() < 24'000'000; ++i) {
    std::string name = "k" + std::to_string(i) + std::string(static_cast<size_t>(i % 97), 'x');
    std::string escaped = name;
    if (i % 3 == 0) {
      name += "\"q\\";
      escaped += "\\\"q\\\\";
    }
    if (i % 5 == 0) {
      name += "{[";
      escaped += "{[";
    }
    expected.push_back(name);
    text += (i ? ",\n" : "") + std::string("  {\"ph\": \"X\", \"name\": \"") + escaped +
            "\", \"args\": {\"Input Dims\": [[" + std::to_string(i) +
            ", 2], []]}, \"ts\": " + std::to_string(i) + ".5}";
  }
  text += "\n], \"after\": {\"x\": [1, 2, {\"y\": \"]\"}]}}\n";
  const NameCollector names = read_names(write(dir, "big.json", text));
  CHECK(names.names == expected);
  CHECK(names.root == std::vector<std::string>{"device=A100"});
  // each offset is where its event's `{` is
  for (size_t i = 0; i < names.offsets.size(); i += 9973) CHECK(text[names.offsets[i]] == '{');

  // the same through gzip
  const std::string gz = dir / "big.json.gz";
  gzFile out = gzopen(gz.c_str(), "wb6");
  REQUIRE(out);
  REQUIRE(gzwrite(out, text.data(), static_cast<unsigned>(text.size())) ==
          static_cast<int>(text.size()));
  gzclose(out);
  CHECK(read_names(gz).names == expected);
}

TEST_CASE("an event larger than the read buffer grows it", "[trace][stream]") {
  ts::test::TempDir dir("chrome-stream-large");
  const std::string huge(20'000'000, 'n');
  const std::string text =
      "{\"traceEvents\": [{\"name\": \"a\"}, {\"name\": \"" + huge + "\"}, {\"name\": \"b\"}]}";
  const NameCollector names = read_names(write(dir, "huge.json", text));
  REQUIRE(names.names.size() == 3);
  CHECK(names.names[1] == huge);
  CHECK(names.names[2] == "b");
}

TEST_CASE("the array form, root keys after the events and non-object events", "[trace][stream]") {
  ts::test::TempDir dir("chrome-stream-forms");
  CHECK(read_names(write(dir, "array.json", "[{\"name\": \"a\"}, {\"name\": \"b\"}]")).names ==
        std::vector<std::string>{"a", "b"});
  CHECK(read_names(write(dir, "array-open.json", "  [ ]\n")).names.empty());
  const NameCollector after = read_names(write(dir, "after.json",
                                               "{\"traceEvents\": [5, {\"name\": \"a\"}, \"s\"], "
                                               "\"device\": \"H100\"}"));
  CHECK(after.names == std::vector<std::string>{"<not an object>", "a", "<not an object>"});
  CHECK(after.root == std::vector<std::string>{"device=H100"});
  CHECK(read_names(write(dir, "empty.json", "{}")).names.empty());
}

TEST_CASE("broken structure is refused where it breaks", "[trace][stream]") {
  ts::test::TempDir dir("chrome-stream-broken");
  struct Case {
    std::string text;
    std::string says;
    int line;
  };
  const std::vector<Case> cases{
      {"", "the file is empty", 1},
      {"\"traceEvents\"", "it does not start with '{' or '['", 1},
      {"{\"traceEvents\": [{\"name\": \"a\"} {\"name\": \"b\"}]}",
       "byte offset 31 ('{'); expected ',' or ']' after an event", 1},
      {"{\"traceEvents\": [,{}]}", "byte offset 17 (','); expected an event", 1},
      {"{\"traceEvents\": []}\n{}", "byte offset 20 (text follows the end", 2},
      {"{\"traceEvents\": [{\"name\": \"a\"}]\n\"x\": 1}",
       "byte offset 32 ('\"'); expected ',' or '}' after a value", 2},
      {"{\"traceEvents\": [{\"name\": \"a\\\"}]}\n", "byte offset 34 (the file ends inside", 2},
      {"{\"traceEvents\": [{\"name\": tru}]}", "the JSON breaks in the event at byte offset 17", 1},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const std::string path = write(dir, "broken.json", c.text);
    const InputError e = input_error_of([&] { read_names(path); });
    CHECK(e.where().file == path);
    CHECK(e.message().find(c.says) != std::string::npos);
    CHECK(e.where().line == c.line);
    CHECK(e.message().find('\n') == std::string::npos);
  }
}

TEST_CASE("a Kineto trace in the array form imports like the object form", "[trace][kineto]") {
  ts::test::TempDir dir("kineto-array-form");
  const std::string text =
      R"([{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 20,)"
      R"( "args": {"Input Dims": [[64, 32], [32, 16]], "Input type": ["float", "float"]}},)"
      R"( {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,)"
      R"( "ts": 12, "dur": 3, "args": {"correlation": 7}},)"
      R"( {"ph": "X", "cat": "kernel", "name": "sgemm \"64x32\"", "pid": 0, "tid": 7, "ts": 40,)"
      R"( "dur": 5.5, "args": {"correlation": 7, "stream": 7, "grid": [4, 2, 1]}}])";
  const TraceEvents e = read_kineto_trace(write(dir, "array.json", text));
  REQUIRE(e.kernels.size() == 1);
  CHECK(kernel_name(e, e.kernels[0]) == "sgemm \"64x32\"");
  CHECK(e.kernels[0].start_ns == Approx(30000));
  CHECK(e.kernels[0].duration_ns == Approx(5500));
  CHECK(e.kernels[0].launch_ns == Approx(2000));
  CHECK(e.kernels[0].grid == std::array<int64_t, 3>{4, 2, 1});
  REQUIRE(e.kernels[0].op);
  CHECK(e.operators[*e.kernels[0].op].input_shapes ==
        std::vector<std::vector<int64_t>>{{64, 32}, {32, 16}});
  CHECK(e.operators[*e.kernels[0].op].input_dtypes == std::vector<std::string>{"float", "float"});
}
