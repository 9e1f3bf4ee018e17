// Listings and drawings of a compiled function's graph, as `tgc show` prints them: the text
// listing (one line per node in execution order) and Graphviz dot (pydotprint's colours; render
// with `dot -Tpng`). Python's tgc.printing.debugprint and pydotprint use these.
#pragma once

#include <string>

#include <tgc/function.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// Which graph of a function: as built (tgc show --stage raw) or as compiled and run.
enum class GraphStage { Raw, Optimized };

// "inputs: ..., one line per node "t0 = Composite{...}(x, y)   # float32 vector (?,)", then the
// outputs ("out0") and the updates' values ("update 0"). A node of a GPU function that runs on
// the host says why.
std::string graph_text(const Function& f, GraphStage stage = GraphStage::Optimized);
// The same graph as a Graphviz digraph titled with the function's name and stage: ops as
// ellipses, variables as boxes (inputs green, shared yellow, constants grey, outputs blue).
std::string graph_dot(const Function& f, GraphStage stage = GraphStage::Optimized);

TGC_API_END
}  // namespace tgc
