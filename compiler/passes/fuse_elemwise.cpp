// fuse_elemwise: the groups come from find_fusion_groups; this file fixes the limits and
// does the graph surgery, replacing each group by its Composite node.
#include "compiler/passes/fuse_elemwise.h"

#include <string>
#include <unordered_set>

#include "compiler/kernel/composite_op.h"
#include "compiler/passes/fusion_groups.h"
#include "compiler/passes/graph_editor.h"
#include "runtime/error.h"

namespace tgc {

namespace {

// The limits of one kernel. 32 inputs: a kernel's arguments (a pointer, shape and strides
// per tensor) stay well inside CUDA's 4 KiB parameter space and OpenCL's minimum of 1 KiB
// of arguments at rank 4, and an LLVM kernel keeps its pointers in registers. 256 values:
// bounds the generated code and the compile time of one kernel (the interpreter keeps one
// block buffer per value). A group that would pass either is split, never refused.
constexpr FusionLimits kLimits{.max_inputs = 32, .max_values = 256};

// The group's inputs and outputs as the graph is now: groups replaced before this one have
// rewired what its nodes read.
FusedGroup with_current_io(const FusedGroup& group, const GraphEditor& editor) {
  FusedGroup g;
  g.nodes = group.nodes;
  std::unordered_set<const Node*> members(g.nodes.begin(), g.nodes.end());
  std::unordered_set<const Variable*> seen;
  for (Node* n : g.nodes)
    for (const VarPtr& v : n->inputs())
      if ((!v->owner() || !members.count(v->owner())) && seen.insert(v.get()).second) g.inputs.push_back(v);
  for (Node* n : g.nodes)
    for (int k = 0; k < n->num_outputs(); ++k) {
      const Variable* o = n->output_raw(k);
      bool outside = editor.is_output(o);
      for (auto& [reader, pos] : editor.clients(o)) outside = outside || !members.count(reader);
      if (outside) g.outputs.push_back(n->output(k));
    }
  return g;
}

std::string describe_group(const FusedGroup& g) {
  std::string s;
  for (Node* n : g.nodes) s += (s.empty() ? "" : "; ") + n->op().name();
  return s;
}

}  // namespace

bool fuse_elemwise(Graph& graph, const PassContext& ctx) {
  std::vector<FusedGroup> groups = find_fusion_groups(graph, kLimits, &ctx.shared_shapes);
  if (groups.empty()) return false;
  GraphEditor editor(graph);
  for (const FusedGroup& found : groups) {
    FusedGroup group = with_current_io(found, editor);
    TGC_INTERNAL_CHECK(!group.outputs.empty(), "fusion found a group nothing reads: " + describe_group(group));
    std::vector<VarPtr> replacements = make_composite(group);
    TGC_INTERNAL_CHECK(replacements.size() == group.outputs.size(),
                       "make_composite returned " + std::to_string(replacements.size()) + " values for " +
                           std::to_string(group.outputs.size()) + " outputs");
    for (size_t i = 0; i < replacements.size(); ++i) editor.replace(group.outputs[i].get(), replacements[i]);
    if (ctx.trace)
      ctx.trace->push_back({"fuse_elemwise", "fuse_elemwise", describe_group(group),
                            replacements.empty() || !replacements[0]->owner()
                                ? std::string()
                                : replacements[0]->owner()->op().name()});
  }
  return true;
}

}  // namespace tgc
