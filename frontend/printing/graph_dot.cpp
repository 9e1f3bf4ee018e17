// The Graphviz format of tgc show; see graph_dot.h.
#include "frontend/printing/graph_dot.h"

#include <fmt/format.h>

#include <unordered_map>

#include "compiler/passes/placement.h"
#include "frontend/printing/graph_names.h"

namespace tgc::printing {

std::string dot_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) {
      out += c;
    }
  }
  return out;
}

namespace {

const char* fill_of(const Variable& v, bool is_output) {
  if (is_output) return "lightblue";
  switch (v.kind()) {
    case Variable::Kind::Input: return "palegreen";
    case Variable::Kind::Shared: return "lightyellow";
    case Variable::Kind::Constant: return "lightgrey";
    case Variable::Kind::Result: return "white";
  }
  return "white";
}

// Writes the graph: variables get ids v0, v1, ... in order of first appearance, nodes n0,
// n1, ... in toposort order.
class DotWriter {
 public:
  DotWriter(const Graph& graph, const std::vector<OutputLabel>& labels, const HostReasonFn& host_reason)
      : graph_(graph), host_reason_(host_reason) {
    for (size_t i = 0; i < graph.outputs().size(); ++i) {
      OutputLabel l = i < labels.size() ? labels[i] : OutputLabel{fmt::format("out{}", i), ""};
      output_lines_[graph.outputs()[i].get()] +=
          "\n" + l.name + (l.expression.empty() ? "" : " = " + l.expression);
    }
  }

  std::string write(const std::string& title) {
    out_ = fmt::format("digraph \"{}\" {{\n", dot_escape(title));
    out_ += fmt::format("  label=\"{}\";\n  labelloc=t;\n  fontname=\"Helvetica\";\n", dot_escape(title));
    out_ += "  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontsize=9];\n";
    for (const VarPtr& in : graph_.inputs()) id_of(in.get());
    int n = 0;
    for (Node* node : graph_.toposort()) {
      std::string nid = fmt::format("n{}", n++);
      const std::string reason = host_reason_ ? host_reason_(*node) : "";
      if (reason.empty())
        out_ += fmt::format("  {} [shape=ellipse, label=\"{}\"];\n", nid, dot_escape(placed_op_name(*node)));
      else
        out_ += fmt::format("  {} [shape=ellipse, style=filled, fillcolor=orange, label=\"{}\"];\n", nid,
                            dot_escape(placed_op_name(*node) + "\nhost: " + reason));
      const bool many_in = node->inputs().size() > 1;
      for (size_t i = 0; i < node->inputs().size(); ++i)
        out_ += fmt::format("  {} -> {}{};\n", id_of(node->inputs()[i].get()), nid,
                            many_in ? fmt::format(" [label=\"{}\"]", i) : "");
      const bool many_out = node->num_outputs() > 1;
      for (int i = 0; i < node->num_outputs(); ++i)
        out_ += fmt::format("  {} -> {}{};\n", nid, id_of(node->output_raw(i)),
                            many_out ? fmt::format(" [label=\"{}\"]", i) : "");
    }
    for (const VarPtr& o : graph_.outputs()) id_of(o.get());  // an output that is an input
    out_ += "}\n";
    return out_;
  }

 private:
  // Declares the variable on first use.
  std::string id_of(const Variable* v) {
    if (auto it = ids_.find(v); it != ids_.end()) return it->second;
    std::string id = fmt::format("v{}", ids_.size());
    ids_[v] = id;
    auto line = output_lines_.find(v);
    const bool is_output = line != output_lines_.end();
    std::string label = names_.of(v) + "\n" + v->type().str() + (is_output ? line->second : "");
    out_ += fmt::format("  {} [shape=box, style=filled, fillcolor={}, label=\"{}\"];\n", id,
                        fill_of(*v, is_output), dot_escape(label));
    return id;
  }

  const Graph& graph_;
  const HostReasonFn& host_reason_;
  std::unordered_map<const Variable*, std::string> output_lines_;
  std::unordered_map<const Variable*, std::string> ids_;
  GraphNames names_;
  std::string out_;
};

}  // namespace

std::string graph_dot(const Graph& graph, const std::string& title, const std::vector<OutputLabel>& labels,
                      const HostReasonFn& host_reason) {
  return DotWriter(graph, labels, host_reason).write(title);
}

}  // namespace tgc::printing
