// The host kernels' instruction-set levels: what each level's table says about its registers,
// which levels this CPU runs, choosing one, and TILESCOPE_HOST_ISA's parsing.
#include <catch2/catch.hpp>

#include "common/InputError.hpp"
#include "host/HostIsa.hpp"
#include "host/IsaKernels.hpp"
#include "host/MicroKernel.hpp"

using namespace ts;
using namespace ts::host;

TEST_CASE("each level's table has its register file", "[host][isa]") {
  REQUIRE(host_isa_supported(HostIsa::generic));
  for (HostIsa isa : host_isas()) {
    const IsaKernels* k = isa_kernels(isa);
    INFO(host_isa_name(isa));
    if (!host_isa_supported(isa)) {
      CHECK(k == nullptr);
      continue;
    }
    REQUIRE(k != nullptr);
    CHECK(k->isa == isa);
    CHECK(host_isa_name(isa) == k->name);
    // AVX-512: 16 lanes in 32 registers; AVX2 and the baseline: 8 lanes in 16.
    CHECK(k->vector_bytes == (isa == HostIsa::avx512 ? 64 : 32));
    CHECK(k->vector_registers == (isa == HostIsa::avx512 ? 32 : 16));
    CHECK(k->max_accumulators == k->vector_registers * 7 / 8);
    // The largest one-column block is in the table, one more row is not.
    CHECK(k->register_block_in_table(k->max_accumulators, 1));
    CHECK_FALSE(k->register_block_in_table(k->max_accumulators + 1, 1));
    CHECK(k->micro_kernel(1, 1, false) != nullptr);
    CHECK(k->micro_kernel(k->max_accumulators + 1, 1, false) == nullptr);
  }
}

TEST_CASE("the widest level the CPU runs is chosen, and another can be", "[host][isa]") {
  const HostIsa before = host_isa();
  const HostIsa best = best_host_isa();
  CHECK(host_isa_supported(best));
  for (HostIsa isa : host_isas())
    if (static_cast<int>(isa) > static_cast<int>(best)) CHECK_FALSE(host_isa_supported(isa));
  select_host_isa(HostIsa::generic);
  CHECK(host_isa() == HostIsa::generic);
  CHECK(std::string(vector_isa()) == "generic");
  CHECK(vector_lanes() == 8);
  for (HostIsa isa : host_isas())
    if (!host_isa_supported(isa)) CHECK_THROWS_AS(select_host_isa(isa), std::invalid_argument);
  select_host_isa(before);
  CHECK(host_isa() == before);
}

TEST_CASE("TILESCOPE_HOST_ISA names a level", "[host][isa]") {
  CHECK(parse_host_isa("generic") == HostIsa::generic);
  CHECK(parse_host_isa("") == best_host_isa());
  try {
    parse_host_isa("sse9");
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("TILESCOPE_HOST_ISA"));
    CHECK_THAT(what, Catch::Contains("'sse9' is not an instruction-set level"));
    CHECK_THAT(what, Catch::Contains("generic, avx2, avx512f"));
  }
  for (HostIsa isa : host_isas())
    if (!host_isa_supported(isa))
      CHECK_THROWS_WITH(parse_host_isa(host_isa_name(isa)),
                        Catch::Contains("this CPU does not run it"));
}
