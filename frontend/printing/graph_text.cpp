// The text format of tgc show; see graph_text.h.
#include "frontend/printing/graph_text.h"

#include <fmt/format.h>

#include "compiler/passes/placement.h"
#include "frontend/printing/graph_names.h"

namespace tgc::printing {

std::string graph_text(const Graph& graph, const std::vector<OutputLabel>& labels, const HostReasonFn& host_reason) {
  GraphNames names;
  std::string out = "inputs:";
  if (graph.inputs().empty()) out += " (none)";
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const Variable* v = graph.inputs()[i].get();
    out += fmt::format("{} {}: {}", i ? "," : "", names.of(v), v->type().str());
  }
  out += "\n";
  for (Node* n : graph.toposort()) {
    std::string lhs, types;
    for (int i = 0; i < n->num_outputs(); ++i) {
      lhs += (i ? ", " : "") + names.of(n->output_raw(i));
      types += (i ? ", " : "") + n->output_raw(i)->type().str();
    }
    std::string args;
    for (size_t i = 0; i < n->inputs().size(); ++i) args += (i ? ", " : "") + names.of(n->inputs()[i].get());
    const std::string reason = host_reason ? host_reason(*n) : "";
    out += fmt::format("{} = {}({})   # {}{}\n", lhs, placed_op_name(*n), args, types,
                       reason.empty() ? "" : "  # host: " + reason);
  }
  out += "outputs:\n";
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    OutputLabel label = i < labels.size() ? labels[i] : OutputLabel{fmt::format("out{}", i), ""};
    out += fmt::format("  {} = {}", label.name, names.of(graph.outputs()[i].get()));
    out += label.expression.empty() ? "\n" : fmt::format("   # {}\n", label.expression);
  }
  return out;
}

}  // namespace tgc::printing
