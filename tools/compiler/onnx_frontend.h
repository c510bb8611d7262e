// ONNX front end: reads an int8 power-of-two QDQ model (as written by tools/model_prep) and
// returns the fused application graph in topological order, with integer weights, biases,
// exponents and requantisation shifts. Accepted forms: docs/compiler.md.
#pragma once

#include <string>

#include "tools/compiler/graph.h"

namespace nmsim::compiler {

// Reads and imports `path`. Throws CompileError; every message starts with `path` and names the
// ONNX node (name and op type) or tensor at fault.
Graph load_onnx(const std::string& path);

// Imports a serialised ModelProto; `source` names it in messages.
Graph parse_onnx(const std::string& bytes, const std::string& source);

}  // namespace nmsim::compiler
