#include "measure/OperatorIdentity.hpp"

#include "analysis/MappingWriter.hpp"
#include "common/Fnv1a.hpp"
#include "workload/OperatorSpec.hpp"

namespace ts {

OperatorKey operator_key(const Operator& op, std::string_view suite) {
  OperatorKey key;
  key.suite = std::string(suite);
  key.name = op.name;
  key.type = std::string(to_string(op.type));
  key.dims = op.shape_text();
  for (const TensorSpec& t : op.tensors)
    key.dtypes += (key.dtypes.empty() ? "" : ",") + std::string(to_string(t.dtype));
  key.op_class = std::string(to_string(op.primary_class()));
  key.flops = op.total_flops();
  key.spec = operator_spec(op);
  return key;
}

MappingRecord mapping_record(const MappingProgram& program, std::string_view name) {
  MappingRecord r;
  r.name = std::string(name);
  r.yaml = mapping_yaml(program, r.name, "");
  // The written file is the canonical form of a resolved program: stable order, no comments.
  r.hash = hash_text(fnv1a(r.yaml.substr(r.yaml.find("tree:"))));
  return r;
}

}  // namespace ts
