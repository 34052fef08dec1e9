#pragma once
// What the text of an NVTX range says about the operator it marks. PyTorch's
// `torch.autograd.profiler.emit_nvtx(record_shapes=True)` names each range
// `aten::addmm, seq = 12, op_id = 3, sizes = [[768], [32, 768], [768, 3072]], input_op_ids = [...]`
// (older releases: without `op_id` and `input_op_ids`); any other range text (a user's
// `nvtx.range_push("attention")`) is the operator's name as it stands.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

struct NvtxOperatorText {
  std::string name;  // the text before the first `, key = ` field
  // `sizes`, in argument order; a scalar or a list of tensors has an empty shape
  std::vector<std::vector<int64_t>> input_shapes;
  bool has_shapes = false;  // a `sizes` field was there and read
};

// Never throws: a `sizes` field that does not read as a list of lists of integers leaves the
// operator without shapes (has_shapes false), as a range that recorded none.
NvtxOperatorText parse_nvtx_operator_text(std::string_view text);

}  // namespace ts
