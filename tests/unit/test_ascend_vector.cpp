// Vector and fused-vector operators on the Ascend 910B3's 40 vector cores (UB), through the
// bundled graph and its vector template, as the mapper maps them. Each expected number is derived
// in the comments from the graph's figures: HBM at 1.6 TB/s for reads and writes together, fp16.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "arch/ArchitectureLoader.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;

namespace {

const char* kSuite = R"(version: 1
kind: workload
name: ascend-vector
dtype: fp16
operators:
  - {name: add, type: add, rows: 4096, cols: 768}
  - {name: add_twice, type: add, rows: 8192, cols: 768}
  - {name: layernorm, type: layernorm, rows: 4096, cols: 768}
  - {name: add_layernorm, type: fused, steps: [add, layernorm], rows: 4096, cols: 768}
  - {name: layernorm_rows_fit, type: layernorm, rows: 128, cols: 8192}
  - {name: layernorm_rows_split, type: layernorm, rows: 4, cols: 262144}
)";

struct Predicted {
  Prediction p;
  double hbm_read = 0, hbm_write = 0;
  double seconds() const { return p.device_us * 1e-6; }
};

class AscendVector {
 public:
  AscendVector()
      : graph_(load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/ascend910b3.yaml")),
        suite_(parse_workload(kSuite, "ascend-vector.yaml")) {}

  Predicted predict(const std::string& name) const {
    for (const Operator& op : suite_.operators) {
      if (op.name != name) continue;
      Predicted r{predict_operator(op, graph_, OperatorPredictionOptions{})};
      for (const EdgeTraffic& t : r.p.traffic) {
        if (t.edge == "HBM->L2") r.hbm_read = t.bytes;
        if (t.edge == "L2->HBM") r.hbm_write = t.bytes;
      }
      return r;
    }
    FAIL("no operator " << name);
    return {};
  }

 private:
  ArchitectureGraph graph_;
  Workload suite_;
};

constexpr double kHbm = 1.6e12;  // bytes/s, reads and writes together

}  // namespace

TEST_CASE("Ascend: a bandwidth-bound vector operator costs its bytes over HBM",
          "[ascend][vector]") {
  AscendVector ascend;
  const Predicted add = ascend.predict("add"), twice = ascend.predict("add_twice");
  // add reads X and Z and writes Y, each 4096 x 768 x 2 B = 6 MiB: 18 MiB cross HBM once.
  const double tensor = 4096.0 * 768 * 2;
  CHECK(add.hbm_read == Approx(2 * tensor));
  CHECK(add.hbm_write == Approx(tensor));
  // At 1.6 TB/s for reads and writes together: 3 x 6 MiB / 1.6 TB/s = 11.8 us, within the few
  // percent that filling and draining the pipeline adds.
  CHECK(add.seconds() == Approx(3 * tensor / kHbm).epsilon(0.03));
  // Twice the rows move twice the bytes and take twice the time.
  CHECK(twice.hbm_read + twice.hbm_write == Approx(2 * (add.hbm_read + add.hbm_write)));
  CHECK(twice.seconds() / add.seconds() == Approx(2.0).epsilon(0.03));
  CHECK(twice.p.bound_by == "edge:HBM->L2");
}

TEST_CASE("Ascend: a fused chain saves the HBM round trip of its intermediate",
          "[ascend][vector]") {
  AscendVector ascend;
  const Predicted add = ascend.predict("add"), norm = ascend.predict("layernorm");
  const Predicted fused = ascend.predict("add_layernorm");
  const double tensor = 4096.0 * 768 * 2;  // one 4096 x 768 fp16 tensor: 6 MiB
  // Unfused, the sum T = X + Z goes out to HBM (add writes it) and comes back (layernorm reads
  // it): 5 tensors cross HBM, plus layernorm's scale and shift (2 x 768 x 2 B per pass). Fused,
  // T stays in UB: X and Z in, Y out, 3 tensors plus the same small parameters.
  const double unfused_bytes = add.hbm_read + add.hbm_write + norm.hbm_read + norm.hbm_write;
  const double fused_bytes = fused.hbm_read + fused.hbm_write;
  CHECK(unfused_bytes - fused_bytes == Approx(2 * tensor).epsilon(0.01));
  CHECK(fused.hbm_write == Approx(tensor));
  // The time saved is about those 2 tensors at the HBM rate: 12 MiB / 1.6 TB/s = 7.9 us.
  const double saved = add.seconds() + norm.seconds() - fused.seconds();
  CHECK(saved == Approx(2 * tensor / kHbm).epsilon(0.10));
}

TEST_CASE("Ascend: a row that does not fit in UB is split and read twice", "[ascend][vector]") {
  AscendVector ascend;
  const Predicted fits = ascend.predict("layernorm_rows_fit");
  const Predicted split = ascend.predict("layernorm_rows_split");
  // Both inputs are 2 MiB (128 x 8192 and 4 x 262144 fp16). An 8192-element row is 16 KiB; with
  // its output row and the scale and shift (16 KiB each), double-buffered, it takes 128 KiB of
  // the 192 KiB UB: one pass, the input is read once.
  const double input = 128.0 * 8192 * 2;
  // Besides the input, each vector core reads the scale and shift once (2 x 16 KiB, at most 40
  // cores).
  CHECK(fits.hbm_read >= input);
  CHECK(fits.hbm_read <= input + 40 * 2 * 8192 * 2);
  // A 262144-element row is 512 KiB: UB holds only part of it, so the mean and variance need a
  // first pass over the whole row and normalising a second: the input crosses HBM twice.
  CHECK(split.hbm_read >= 2 * input);
  CHECK(split.hbm_write == Approx(fits.hbm_write));
  // And it pays for it in time: at least the extra 2 MiB at the HBM rate.
  CHECK(split.seconds() - fits.seconds() >= 0.9 * input / kHbm);
}
