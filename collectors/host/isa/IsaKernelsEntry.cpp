// One level's table (compiled once per level, like the kernels it lists).
#include "host/isa/LevelKernels.hpp"
#include "host/isa/MicroKernelIsa.hpp"

namespace ts::host::TS_HOST_ISA {

const IsaKernels& level_kernels() {
  static const IsaKernels kernels = [] {
    IsaKernels k;
    k.isa = TS_HOST_ISA_ENUM;
    k.name = kVectorIsa;
    k.display_name = TS_HOST_ISA_DISPLAY;
    k.vector_bytes = kVectorLanes * static_cast<int>(sizeof(float));
    k.vector_registers = kVectorRegisters;
    k.max_accumulators = kMaxAccumulators;
    k.max_vector_columns = kMaxVectorColumns;
    k.max_block_rows = kMaxBlockRows;
    k.register_block_in_table = &register_block_in_table;
    k.micro_kernel = &micro_kernel;
    k.choose_register_block = &choose_register_block;
    k.apply_vector_stage = &apply_vector_stage;
    k.exp_passes = &exp_passes;
    k.div_passes = &div_passes;
    k.sqrt_passes = &sqrt_passes;
    k.kernel_granule_bytes = &bench::kernel_granule_bytes;
    k.vector_fma_per_second = &bench::vector_fma_per_second;
    k.read_bytes_per_second = &bench::read_bytes_per_second;
    k.write_bytes_per_second = &bench::write_bytes_per_second;
    k.parallel_read_bytes_per_second = &bench::parallel_read_bytes_per_second;
    k.parallel_write_bytes_per_second = &bench::parallel_write_bytes_per_second;
    return k;
  }();
  return kernels;
}

}  // namespace ts::host::TS_HOST_ISA
