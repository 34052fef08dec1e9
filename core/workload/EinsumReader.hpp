#pragma once
// The `einsum` operator type: dimensions, tensors and stages written out in the file.
#include <yaml-cpp/yaml.h>

#include <string>

#include "common/YamlSource.hpp"
#include "workload/Operator.hpp"

namespace ts {

// `node` is the operator's map; its keys are checked here. `dtype` is the default of tensors.
Operator read_einsum(const YamlSource& src, const YAML::Node& node, std::string name,
                     DataType dtype);

// A data type by name, or an error at `node` listing the known ones.
DataType data_type_at(const YamlSource& src, const YAML::Node& node);

}  // namespace ts
