#pragma once
// The tables of measured kernels of the NeuSight study (Lee, Phanishayee, Mahajan, "Forecasting
// GPU Performance for Deep Learning Training and Inference", ASPLOS 2025; the training GPUs in
// ../shared/validation/gpus/, held-out GPUs judged later in the same format), read as they are:
//
//   op,device,B,M,N,K,latency_us,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z   (GEMMs)
//   op,device,B,H,latency_us,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z       (vector)
//
// Each row is one PyTorch call timed between two CUDA events (the launch inside it: host_call),
// in fp32 with TF32 off; `kernel`, grid and block are what the profiler saw the library run. The
// table's dimensions follow PyTorch's arguments, not tilescope's, and are mapped here:
//
//   bmm      torch.bmm(A[B,M,N], X[B,N,K]), N reduced    batched_gemm B=B, M=M, N=K, K=N
//   linear   nn.Linear(N, K) on B x M x N, N reduced     linear M=B*M, N=K, K=N
//   add, mul two B x H inputs                            add, mul R=B, C=H
//   gelu, relu                                           gelu, relu R=B, C=H
//   ln       LayerNorm over H                            layernorm R=B, C=H
//   softmax  softmax over H                              softmax R=B, C=H
#include <string>
#include <vector>

#include "trace/CsvMeasurements.hpp"

namespace ts {

// A NeuSight table's header: it has the columns op, device and latency_us, the shape columns of
// GEMMs (B, M, N, K) or of vector kernels (B, H) or both, and no measured_us (which would make it
// a table of tilescope's own format).
bool is_neusight_header(const std::vector<std::string>& header);

// NeuSight's operator names (bmm, linear, add, mul, gelu, relu, ln, softmax), for messages.
std::vector<std::string> neusight_operators();

// Every row built as its tilescope operator in fp32, named `<type>@<line>`, with op_type the
// tilescope type, scope host_call and the row's device, kernel and launch. The kernel columns
// (kernel, grid_*, block_*) may be absent, or a row's six launch fields all empty (no launch
// recorded). InputError at line 1 for a missing column (op, device, latency_us, the shape columns
// of a row's operator), at the field for an unknown operator, a size that is not a positive
// integer, a linear whose B x M overflows, a latency that is not a positive number, an empty
// device, or a grid or block that is not a positive integer.
std::vector<CsvShapeMeasurement> neusight_measurements(const CsvTable& table);

}  // namespace ts
