#include <catch2/catch.hpp>

#include "InputErrorCapture.hpp"
#include "common/YamlSource.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

TEST_CASE("peek_kind tells the kind of a file", "[yaml]") {
  CHECK(peek_kind(fixture("arch/tiny.yaml")) == "architecture");
  CHECK(peek_kind(fixture("workload/tiny.yaml")) == "workload");
  CHECK(peek_kind(fixture("mapping/free-template.yaml")) == "mapping");
  CHECK(peek_kind(fixture("arch/wrong-kind.yaml")) == "workload");
  InputError e = input_error_of([] { peek_kind(fixture("arch/malformed.yaml")); });
  CHECK(e.where().line == 7);
}

TEST_CASE("marks are 1-based", "[yaml]") {
  YamlSource src = YamlSource::parse("a: 1\nb:\n  c: [x, y]\n", "s.yaml");
  SourceLocation at = src.where(src.root()["b"]["c"][1]);
  CHECK(at.file == "s.yaml");
  CHECK(at.line == 3);
  CHECK(at.column == 10);
  CHECK(src.where(src.root()["missing"]).line == 0);
}

TEST_CASE("strict keys: unknown and duplicate keys are errors", "[yaml]") {
  YamlSource src = YamlSource::parse("a: 1\nb: 2\na: 3\n", "s.yaml");
  InputError dup = input_error_of([&] { src.check_keys(src.root(), {"a", "b"}, "the map"); });
  CHECK(dup.where().line == 3);
  CHECK(dup.where().column == 1);
  CHECK(dup.message() == "duplicate key 'a' in the map (first at line 1)");

  InputError unknown = input_error_of([&] { src.check_keys(src.root(), {"a"}, "the map"); });
  CHECK(unknown.where().line == 2);
  CHECK(unknown.message() == "unknown key 'b' in the map; expected one of: a");
}

TEST_CASE("scalar readers say what they expected", "[yaml]") {
  YamlSource src =
      YamlSource::parse("i: 12\nf: 1.5\nb: true\nl: [1]\nn:\ns: '7'\nneg: -3\n", "s.yaml");
  const YAML::Node& r = src.root();
  CHECK(src.integer(r["i"], "i") == 12);
  CHECK(src.positive_integer(r["s"], "s") == 7);
  CHECK(src.number(r["f"], "f") == 1.5);
  CHECK(src.boolean(r["b"], "b"));
  CHECK(src.integer(r["neg"], "neg") == -3);
  CHECK(input_error_of([&] { src.integer(r["f"], "f"); }).message() ==
        "expected an integer for `f`, got '1.5'");
  CHECK(input_error_of([&] { src.positive_integer(r["neg"], "neg"); }).message() ==
        "expected a positive integer for `neg`, got '-3'");
  CHECK(input_error_of([&] { src.text(r["l"], "l"); }).message() ==
        "expected a name or text for `l`, got a list");
  InputError empty = input_error_of([&] { src.number(r["n"], "n"); });
  CHECK(empty.message() == "expected a number for `n`, got nothing");
  CHECK(input_error_of([&] { src.boolean(r["i"], "i"); }).message() ==
        "expected true or false for `i`, got '12'");
  InputError missing = input_error_of([&] { src.require(r, "zz", "the root"); });
  CHECK(missing.where().line == 1);
  CHECK(missing.message() == "missing `zz` in the root");
}

TEST_CASE("a bare question mark is free, a tilde is not", "[yaml]") {
  YamlSource src = YamlSource::parse("a: ?\nb: ~\nc: '?'\nd: [?, 3]\n", "s.yaml");
  const YAML::Node& r = src.root();
  CHECK(src.is_free(r["a"]));
  CHECK_FALSE(src.is_free(r["b"]));
  CHECK(src.is_free(r["c"]));
  CHECK(src.is_free(r["d"][0]));
  CHECK_FALSE(src.is_free(r["d"][1]));
  // a `?` that is not a whole value is still a YAML error
  InputError e = input_error_of([] { YamlSource::parse("a: ? b\n", "s.yaml"); });
  CHECK(e.where().line == 1);
  CHECK_THAT(e.message(), Catch::StartsWith("invalid YAML:"));
}
