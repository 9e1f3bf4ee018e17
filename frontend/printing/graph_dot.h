// tgc show's Graphviz format: a digraph that `dot -Tpng` renders, in pydotprint's colours —
// ops as ellipses; variables as boxes labelled with name, dtype and shape: inputs green,
// shared variables yellow, constants grey, outputs blue.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/printing/graph_text.h"
#include "ops/core/graph.h"

namespace tgc::printing {

// `title` labels the drawing; `labels[i]` describes graph output i. A node with a host
// reason is drawn orange with "host: <reason>" under its op.
std::string graph_dot(const Graph& graph, const std::string& title, const std::vector<OutputLabel>& labels,
                      const HostReasonFn& host_reason = {});

// `text` as the inside of a double-quoted dot string: quotes and backslashes escaped,
// newlines as \n, other control characters dropped.
std::string dot_escape(std::string_view text);

}  // namespace tgc::printing
