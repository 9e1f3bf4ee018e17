// Concrete values computed at once: an operator, an indexing or a builtin that builds a tensor
// expression, applied to concrete tensors only (numbers allowed, no symbolic variable), runs
// now through the eager API (<tgc/eager.h>) on the operands' device and gives a concrete
// tensor. The code that builds the symbolic expression builds the eager one too: it runs on
// the leaves eager() hands its callback in place of the concrete tensors, so every operation
// of the language has its eager form, with the graph's broadcasting and dtype rules.
#pragma once

#include <functional>
#include <vector>

#include "frontend/lang/context.h"
#include "frontend/lang/value.h"

namespace tgc::lang {

// What a builtin does when every tensor among its arguments is a concrete value (at least one,
// no symbolic variable): computed now, or called as it is, its concrete tensors becoming
// constants. A column of the builtin table, decided per family (a row may override);
// docs/language.md, "Concrete values are computed at once".
enum class OnConcrete {
  Family,          // the family's choice (table rows only)
  Graph,           // makes a graph object, reads values as data or has an effect: called as is
  Compute,         // builds one tensor expression: computed now, a concrete tensor
  ComputeIndexed,  // as Compute, with operands indexed from concrete tensors rebuilt as that
                   // indexing of their base (set_subtensor(a[0], 5) writes into a copy of a)
  ComputeList,     // builds a list of tensor expressions (split): computed now in one call
};

// One operand of an operation and where it is written (device errors point at it).
struct OperandAt {
  const Value* value;
  Pos pos;
};

// Whether the operands (and the lists and tuples in them) hold at least one concrete tensor
// and no symbolic one: then the operation is computed now.
bool all_concrete(const std::vector<OperandAt>& operands);

// Computes an operation now (`how` is Compute, ComputeIndexed or ComputeList). Every concrete
// tensor in `operands` (also inside lists) becomes a leaf of an eager graph, `build` runs on
// the values so substituted and must give a tensor expression (ComputeList: a list of them),
// and the result is its concrete value, on the operands' device: pending while it is an
// elementwise chain (lazy fusion, docs/eager.md). Operands on two devices are an error at the
// first one off the first one's device, naming both; an error of the computation is one at `pos`.
Value compute_now(Context& ctx, Pos pos, const std::vector<OperandAt>& operands, OnConcrete how,
                  const std::function<Value(const std::vector<Value>&)>& build);

// The device a device= argument names ("cpu", "cuda", "cuda:1", "opencl", ...), or null for
// None (the host); an unknown or unavailable device is an error at `pos` saying why.
Device* device_of_name(const Value& v, Context& ctx, Pos pos, std::string_view what);

}  // namespace tgc::lang
