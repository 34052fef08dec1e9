// What yaml-cpp accepts but an input must not be: a second document, an alias cycle, an alias
// expansion past the node budget, a scalar that is not UTF-8. Each is refused at its place.
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "common/YamlSource.hpp"
#include "common/YamlStructureCheck.hpp"

using namespace ts;
using ts::test::input_error_of;

TEST_CASE("a second YAML document is an error at its ---", "[yaml]") {
  const std::string two = "version: 1\nkind: workload\n---\nversion: 1\n";
  const InputError e = input_error_of([&] { YamlSource::parse(two, "two.yaml"); });
  CHECK(e.where().file == "two.yaml");
  CHECK(e.where().line == 3);
  CHECK(e.where().column == 1);
  CHECK(e.message().find("second YAML document") != std::string::npos);

  // Even when what follows would not parse: the `---` is the fault, not the text after it.
  const InputError broken =
      input_error_of([&] { YamlSource::parse("a: 1\n---\n{unclosed\n", "b.yaml"); });
  CHECK(broken.where().line == 2);

  // One document, with its optional markers, is fine.
  CHECK(YamlSource::parse("---\na: 1\n...\n", "one.yaml").root()["a"].Scalar() == "1");
}

TEST_CASE("an alias inside the node it names is a cycle, refused at the alias", "[yaml]") {
  const std::string text = "a: &list\n  - x\n  - *list\n";
  const InputError e = input_error_of([&] { YamlSource::parse(text, "c.yaml"); });
  CHECK(e.where().line == 3);
  CHECK(e.where().column == 5);  // `*list`
  CHECK(e.message().find("cycle") != std::string::npos);
}

TEST_CASE("aliases count once per use against the node budget", "[yaml]") {
  // Nodes by hand: root map 1, key `a` 1, the list 1 + 3 leaves = 4, key `b` 1, a list of
  // 1 + 2 uses of the 4-node list = 9, total 16. Reused anchors are counted at each use.
  const std::string small = "a: &l [x, y, z]\nb: [*l, *l]\n";
  CHECK_NOTHROW(check_yaml_structure(small, "s.yaml"));

  // Level k is a list of 10 uses of level k-1; level 0 is a list of 10 scalars. Nodes of level
  // k: S0 = 11, Sk = 1 + 10 S(k-1), so S5 = 1,111,111 and S6 = 11,111,111 > 10,000,000.
  // Before level 6's list: root 1 + keys a0..a6 7 + S0..S5 (11 + 111 + ... + 1,111,111 =
  // 1,234,566) + level 6's list 1 = 1,234,575; each use of a5 adds 1,111,111, so the 8th use
  // passes the budget (1,234,575 + 8 x 1,111,111 = 10,123,463; 7 uses make 9,012,352).
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int k = 1; k <= 6; ++k) {
    std::string uses;
    for (int u = 0; u < 10; ++u) uses += (u ? ", *a" : "*a") + std::to_string(k - 1);
    bomb += "a" + std::to_string(k) + ": &a" + std::to_string(k) + " [" + uses + "]\n";
  }
  const InputError e = input_error_of([&] { YamlSource::parse(bomb, "bomb.yaml"); });
  CHECK(e.where().line == 7);
  // `a6: &a6 [` is 9 characters, then each `*a5, ` is 5: the 8th use starts at 9 + 7 x 5 + 1.
  CHECK(e.where().column == 45);
  CHECK(e.message().find("10000000") != std::string::npos);

  // Six levels stay within it: 1,234,566 + 1 + 6 keys = 1,234,573 nodes.
  const std::string five_levels = bomb.substr(0, bomb.find("a6:"));
  CHECK_NOTHROW(check_yaml_structure(five_levels, "ok.yaml"));
}

TEST_CASE("a scalar that is not UTF-8 is an error at its place", "[yaml]") {
  const std::string text = "ops:\n  - {name: \"gemm_\xff_x\", M: 1}\n";
  const InputError e = input_error_of([&] { YamlSource::parse(text, "u.yaml"); });
  CHECK(e.where().line == 2);
  CHECK(e.where().column == 12);  // the opening quote of the scalar
  CHECK(e.message().find("0xFF") != std::string::npos);
  CHECK(e.message().find("UTF-8") != std::string::npos);

  // Truncated, overlong and surrogate forms are invalid; real multi-byte text is fine.
  for (const std::string bad : {"\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80"})
    CHECK_THROWS_AS(YamlSource::parse("a: \"x" + bad + "\"\n", "b.yaml"), InputError);
  CHECK(YamlSource::parse("a: \"gemm_\xc3\xa9_\xe2\x86\x92_\xf0\x9f\x99\x82\"\n", "ok.yaml")
            .root()["a"]
            .Scalar()
            .size() == 5 + 2 + 1 + 3 + 1 + 4);
}

TEST_CASE("read_file reads a file once, for a pipe too", "[yaml]") {
  const InputError e = input_error_of([] { YamlSource::read_file("/no/such/file.yaml"); });
  CHECK(e.message() == "file not found");
  const std::string text = YamlSource::read_file(ts::test::fixture("workload/tiny.yaml"));
  CHECK(kind_of(YamlSource::parse(text, "tiny.yaml")) == "workload");
}
