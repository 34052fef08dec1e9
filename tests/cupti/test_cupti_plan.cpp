// The runner's plan reader: a valid plan, and every error naming file:line and what was expected.
#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>

#include "RunnerPlan.hpp"

using namespace ts::cupti;

namespace {

Plan parse(const std::string& text) {
  std::istringstream in(text);
  return parse_plan(in, "test.plan");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const PlanError& e) {
    return e.what();
  }
  return "";
}

const std::string kHeader = "# made by a test\ntilescope-plan 1\n";

}  // namespace

TEST_CASE("a plan with every kind of job parses", "[cupti][plan]") {
  const Plan p =
      parse(kHeader +
            "job suite=bert op=qkv type=gemm shape=M:4096,N:2304,K:768 dtype=fp16 "
            "impl=tilescope block=128x128x32 warp=64x64 stages=2 mapping=0123456789abcdef "
            "mapping_name=qkv-mapper reps=25 l2=cold\n"
            "\n  # a comment\n"
            "job suite=bert op=qkv type=gemm shape=M:4096,N:2304,K:768 dtype=bf16 "
            "impl=cublaslt l2=warm\r\n"
            "job op=score type=batched_gemm shape=B:96,M:512,N:512,K:64 dtype=fp32 "
            "impl=cublas\n"
            "job op=aln type=fused steps=add,layernorm shape=rows:4096,cols:768 "
            "dtype=fp16 impl=vector reps=10\n");
  REQUIRE(p.jobs.size() == 4);
  CHECK(p.version == 1);
  const PlanJob& g = p.jobs[0];
  CHECK(g.line == 3);
  CHECK(g.suite == "bert");
  CHECK(g.impl == Implementation::tilescope);
  CHECK(g.dim("M") == 4096);
  CHECK(g.dim("B", 1) == 1);
  CHECK(g.block_m == 128);
  CHECK(g.block_k == 32);
  CHECK(g.warp_n == 64);
  CHECK(g.stages == 2);
  CHECK(p.jobs[1].stages == 1);
  CHECK(g.mapping_hash == "0123456789abcdef");
  CHECK(g.repetitions == 25);
  CHECK(g.cold_l2);
  CHECK(p.jobs[1].line == 6);
  CHECK_FALSE(p.jobs[1].cold_l2);
  CHECK(p.jobs[1].impl == Implementation::cublaslt);
  CHECK(p.jobs[2].dim("B") == 96);
  CHECK(p.jobs[3].steps == std::vector<std::string>{"add", "layernorm"});
  CHECK(p.jobs[3].repetitions == 10);
}

TEST_CASE("plan errors name the file, the line and what was expected", "[cupti][plan]") {
  CHECK(error_of("") == "test.plan:1: empty plan: expected the header 'tilescope-plan 1'");
  CHECK(error_of("job op=x\n") == "test.plan:1: expected the header 'tilescope-plan 1'");
  CHECK(error_of("tilescope-plan 2\n") ==
        "test.plan:1: plan version 2 is newer than this runner's (1): rebuild the runner");
  CHECK(error_of(kHeader + "gemm\n") ==
        "test.plan:3: expected a line 'job key=value ...' or a comment");
  CHECK(error_of(kHeader + "job op=x type=conv shape=M:1 dtype=fp16 impl=cublas\n") ==
        "test.plan:3: type 'conv': expected gemm, batched_gemm, fused, a vector step (add, mul, "
        "bias, scale, mask, relu, gelu, softmax, layernorm), an LLM row kernel (rmsnorm, "
        "silu_mul, rope) or decode_attention");
  CHECK(error_of(kHeader + "job op=x type=decode_attention shape=B:32,H:1,S:4,D:128 dtype=fp16 "
                           "impl=vector\n") ==
        "test.plan:3: a decode_attention shape needs B, H, S, L and D");
  CHECK(error_of(kHeader + "job op=x type=rope shape=T:4,H:8,D:127 dtype=fp16 impl=vector\n") ==
        "test.plan:3: a rope shape needs T, H and an even D");
  CHECK(error_of(kHeader + "job op=x type=rope shape=rows:4,cols:8 dtype=fp16 impl=vector\n") ==
        "test.plan:3: a rope shape needs T, H and an even D");
  CHECK(error_of(kHeader + "job op=x type=gemm shape=M:0,N:1,K:1 dtype=fp16 impl=cublas\n") ==
        "test.plan:3: 'shape=0': expected an integer >= 1");
  CHECK(error_of(kHeader + "job op=x type=gemm shape=M:8,N:8,K:8 dtype=fp64 impl=cublas\n") ==
        "test.plan:3: dtype 'fp64': expected fp16, bf16 or fp32");
  CHECK(error_of(kHeader + "job op=x type=gemm shape=M:8,N:8,K:8 dtype=fp16\n") ==
        "test.plan:3: job without 'impl='");
  CHECK(error_of(kHeader + "job op=x type=gemm shape=M:8,N:8 dtype=fp16 impl=cublas\n") ==
        "test.plan:3: a GEMM shape needs M, N and K");
  CHECK(error_of(kHeader + "job op=x type=gelu shape=rows:8,cols:8 dtype=fp16 impl=cublas\n") ==
        "test.plan:3: a vector operator needs impl=vector");
  CHECK(error_of(kHeader + "job op=x type=gemm shape=M:8,N:8,K:8 dtype=fp16 impl=tilescope\n") ==
        "test.plan:3: a tilescope GEMM needs block=MxNxK");
  CHECK(error_of(kHeader +
                 "job op=x type=gemm shape=M:8,N:8,K:8 dtype=fp16 impl=tilescope block=128x96x32 "
                 "warp=64x64\n")
            .find("test.plan:3: block and warp tiles") == 0);
  CHECK(error_of(kHeader + "job op=x colour=red\n") ==
        "test.plan:3: unknown key 'colour': expected suite, op, type, steps, shape, dtype, impl, "
        "block, warp, stages, mapping, mapping_name, spec, mapping_yaml, reps or l2");
  CHECK(error_of(kHeader + "job op=x stages=3\n") == "test.plan:3: stages '3': expected 1 or 2");
  CHECK(error_of(kHeader + "job op=x type=fused steps=scale,dropout,softmax\n") ==
        "test.plan:3: step 'dropout': expected add, mul, bias, scale, mask, relu, gelu, softmax or "
        "layernorm");
  CHECK(error_of(kHeader + "job op=x mapping=XYZ\n") ==
        "test.plan:3: mapping 'XYZ': expected 16 lower-case hex digits");
  CHECK(error_of(kHeader + "job op=x reps=2\n") ==
        "test.plan:3: 'reps=2': expected an integer >= 3");
  CHECK(error_of(kHeader + "job op=x block=12x4\n") ==
        "test.plan:3: 'block=12x4': expected 3 sizes joined by 'x'");
}

TEST_CASE("the LLM row kernels are jobs of their own types", "[cupti][plan]") {
  const Plan p = parse(kHeader +
                       "job op=norm type=rmsnorm shape=rows:4,cols:4096 dtype=fp16 impl=vector\n"
                       "job op=act type=silu_mul shape=rows:4,cols:11008 dtype=bf16 impl=vector\n"
                       "job op=rope type=rope shape=T:4,H:64,D:128 dtype=fp16 impl=vector\n"
                       "job op=attn type=decode_attention shape=B:32,H:1,S:4,L:1024,D:128 "
                       "dtype=fp16 impl=vector\n");
  REQUIRE(p.jobs.size() == 4);
  CHECK(p.jobs[3].dim("L") == 1024);
  CHECK(p.jobs[0].type == "rmsnorm");
  CHECK(p.jobs[1].dim("cols") == 11008);
  CHECK(p.jobs[2].dim("H") == 64);
  CHECK(is_llm_row_type("rope"));
  CHECK_FALSE(is_llm_row_type("layernorm"));
}

TEST_CASE("opaque values are percent-encoded", "[cupti][plan]") {
  const Plan p = parse(kHeader +
                       "job op=x type=add shape=rows:2,cols:2 dtype=fp32 impl=vector "
                       "spec={name:%20x,%20type:%20add}%0A mapping_yaml=a%3db%25\n");
  CHECK(p.jobs[0].spec == "{name: x, type: add}\n");
  CHECK(p.jobs[0].mapping_yaml == "a=b%");
  CHECK(error_of(kHeader + "job op=x spec=a%2\n") ==
        "test.plan:3: '%' at byte 2: expected two hex digits");
  CHECK(error_of(kHeader + "job op=x spec=%zz\n") ==
        "test.plan:3: '%' at byte 1: expected two hex digits");
}

TEST_CASE("a missing plan file is an error at line 0", "[cupti][plan]") {
  CHECK_THROWS_WITH(read_plan("/no/such/file.plan"), "/no/such/file.plan:0: cannot open the plan");
}

TEST_CASE("the committed GPU plans parse as the runner reads them", "[cupti][plan]") {
  // samples/gpu/*.plan are written by `tilescope measure --collector cupti --plan`; a job type or
  // step the runner does not know would stop scripts/gpu-check on the GPU machine.
  const std::string dir = std::string(TILESCOPE_SAMPLES) + "/gpu/";
  for (const char* name : {"h200-bert-base.plan", "h200-t5-base.plan", "h200-vit-b16.plan"}) {
    INFO(name);
    const Plan p = read_plan(dir + name);
    CHECK(p.jobs.size() >= 40);
  }
  // The decode suites at batch 1: cuBLAS and cuBLASLt GEMVs, vLLM's row kernels (two RMSNorms
  // and a final one, the rotary embedding, SiLU-and-multiply), two residual adds and the split-KV
  // attention.
  for (const char* name : {"h200-llama2-7b-decode.plan", "h200-llama3-8b-decode.plan"}) {
    INFO(name);
    const Plan p = read_plan(dir + name);
    int row_kernels = 0;
    for (const PlanJob& j : p.jobs) row_kernels += is_llm_row_type(j.type) ? 1 : 0;
    CHECK(p.jobs.size() == 18);
    CHECK(row_kernels == 5);
    CHECK(std::count_if(p.jobs.begin(), p.jobs.end(),
                        [](const PlanJob& j) { return j.type == "decode_attention"; }) == 1);
  }
}
