// <tgc/printing.h>: a Function's graph through tgc show's formats (frontend/printing/).
#include <tgc/printing.h>

#include <fmt/format.h>

#include "frontend/printing/graph_dot.h"
#include "frontend/printing/graph_text.h"

namespace tgc {
namespace {

const Graph& stage_graph(const Function& f, GraphStage stage) {
  return stage == GraphStage::Raw ? f.raw_graph() : f.graph();
}

// "out0", ... for the outputs asked for, "update 0", ... for the updates' values after them.
std::vector<printing::OutputLabel> labels(const Function& f, const Graph& graph) {
  std::vector<printing::OutputLabel> out;
  for (size_t i = 0; i < graph.outputs().size(); ++i)
    out.push_back({i < f.num_outputs() ? fmt::format("out{}", i) : fmt::format("update {}", i - f.num_outputs()), ""});
  return out;
}

printing::HostReasonFn reasons(const Function& f, GraphStage stage) {
  if (stage == GraphStage::Raw) return {};  // placement happens in the optimizer
  return [&f](const Node& n) { return f.host_reason(n); };
}

}  // namespace

std::string graph_text(const Function& f, GraphStage stage) {
  const Graph& graph = stage_graph(f, stage);
  return printing::graph_text(graph, labels(f, graph), reasons(f, stage));
}

std::string graph_dot(const Function& f, GraphStage stage) {
  const Graph& graph = stage_graph(f, stage);
  const std::string title = fmt::format("{}: {} graph", f.name(), stage == GraphStage::Raw ? "raw" : "optimized");
  return printing::graph_dot(graph, title, labels(f, graph), reasons(f, stage));
}

}  // namespace tgc
