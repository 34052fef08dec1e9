// A stage runs at its unit's operation of its own data type: a unit without one is an error at
// the operator, unless the graph says what the unit runs that type as (`runs_as:`).
#include <catch2/catch.hpp>
#include <fstream>

#include "../TempDir.hpp"
#include "InputErrorCapture.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

namespace {

Prediction predict_first(const std::string& arch, const std::string& workload) {
  const ArchitectureGraph g = load_architecture(fixture(arch));
  const Workload w = load_workload(fixture(workload));
  OperatorPredictionOptions o;
  o.mapper.budget = 3000;
  return predict_operator(w.operators.front(), g, o);
}

}  // namespace

TEST_CASE("an int16 operator on a unit of fp16 operations is an error naming the unit", "[dtype]") {
  const InputError e =
      input_error_of([] { predict_first("arch/tiny.yaml", "workload/int16-gemm.yaml"); });
  // At the operator, not at the template or the graph: the workload asked for what it lacks.
  CHECK(e.where().file.find("int16-gemm.yaml") != std::string::npos);
  CHECK(e.where().line == 7);
  const std::string m = e.what();
  CHECK(m.find("'gemm_int16'") != std::string::npos);
  CHECK(m.find("is int16") != std::string::npos);
  CHECK(m.find("'PE'") != std::string::npos);
  CHECK(m.find("matmul types: fp16") != std::string::npos);
  CHECK(m.find("runs_as: {int16: fp16}") != std::string::npos);
}

TEST_CASE("runs_as runs a type at another's operations, and only where the graph says so",
          "[dtype]") {
  // int16 and fp16 elements are both 2 bytes: the same GEMM at the fp16 rate is the same time.
  const Prediction as_fp16 =
      predict_first("arch/tiny-runs-int16-as-fp16.yaml", "workload/int16-gemm.yaml");
  const Prediction fp16 = predict_first("arch/tiny.yaml", "workload/fp16-gemm.yaml");
  REQUIRE(fp16.device_us > 0);
  CHECK(as_fp16.device_us == Approx(fp16.device_us).epsilon(1e-9));
  CHECK(as_fp16.cycles == fp16.cycles);
}

TEST_CASE("runs_as is checked, written back and part of the graph's hash", "[dtype][arch]") {
  const InputError missing =
      input_error_of([] { load_architecture(fixture("arch/runs-as-missing-type.yaml")); });
  CHECK(missing.where().line == 27);
  CHECK(std::string(missing.what()).find("'PE' has no operation of") != std::string::npos);
  CHECK(std::string(missing.what()).find("types: fp16") != std::string::npos);

  const std::string tiny =
      "version: 1\nkind: architecture\nname: t\nclock: 1GHz\nnodes:\n"
      "  - {name: M, type: memory, capacity: 1MiB}\n"
      "  - name: U\n    type: compute\n    operations: [{class: matmul, "
      "dtype: fp16, ops_per_cycle: 8, granule: [1, 1, 1]}]\n";
  auto refused = [&](const std::string& runs_as) {
    return std::string(input_error_of([&] {
                         parse_architecture(tiny + "    runs_as: " + runs_as + "\n", "x.yaml");
                       }).what());
  };
  CHECK(refused("{fp16: fp16}").find("as itself") != std::string::npos);
  const std::string twice = refused("{int16: fp16, int16: fp16}");
  CHECK((twice.find("twice") != std::string::npos || twice.find("duplicate") != std::string::npos));
  CHECK(refused("{int17: fp16}").find("unknown dtype") != std::string::npos);
  CHECK(refused("[int16, fp16]").find("runs_as") != std::string::npos);
  CHECK(std::string(input_error_of([&] {
                      parse_architecture(
                          "version: 1\nkind: architecture\nname: t\nclock: 1GHz\nnodes:\n"
                          "  - {name: M, type: memory, capacity: 1MiB, runs_as: {int16: fp16}}\n",
                          "x.yaml");
                    }).what())
            .find("compute nodes only") != std::string::npos);

  const ArchitectureGraph with = load_architecture(fixture("arch/tiny-runs-int16-as-fp16.yaml"));
  const ArchitectureGraph without = load_architecture(fixture("arch/tiny.yaml"));
  CHECK(with.content_hash() != without.content_hash());
  test::TempDir dir("runs-as");
  const std::string copy = (dir.path() / "copy.yaml").string();
  write_architecture(with, "", copy);
  const ArchitectureGraph reread = load_architecture(copy);
  CHECK(reread.content_hash() == with.content_hash());
  const ArchNode& pe = reread.node(*reread.find_node("PE"));
  REQUIRE(pe.runs_as.size() == 1);
  CHECK(pe.runs_as.front() == std::pair{DataType::int16, DataType::fp16});
}
