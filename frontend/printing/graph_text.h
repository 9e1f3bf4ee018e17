// tgc show's text format: a graph as Theano's toposort lists it, one line per node in
// execution order, "t0, t1 = Composite{add(i0,i1), sub(i0,i1)}(x, y)   # float32 vector (?,) ...",
// framed by the inputs and the outputs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ops/core/graph.h"

namespace tgc::printing {

// What tgc show says of graph output i: a name ("out0", "update 1") and, for outputs, the
// expression as written in the file.
struct OutputLabel {
  std::string name;
  std::string expression;
};

// Why a node of a GPU function runs on the host ("" for the others): Function::host_reason.
using HostReasonFn = std::function<std::string(const Node&)>;

// `labels[i]` describes graph output i; missing ones print as "out<i>". A node with a host
// reason ends its line with "  # host: <reason>".
std::string graph_text(const Graph& graph, const std::vector<OutputLabel>& labels,
                       const HostReasonFn& host_reason = {});

}  // namespace tgc::printing
