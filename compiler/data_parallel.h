// Data parallelism as a compiler decision: the graph one rank runs when the function's
// split inputs (the batch) are divided among the ranks of a group and everything else is
// replicated. Each value of the graph is, on a rank, either replicated (the same on every
// rank), split along an axis (the rank's part of the whole), or partial (the whole is the
// sum over ranks: a reduction over the split axis, such as a parameter's gradient). Rules
// per op carry these through the graph; where a value is needed whole, a collective makes
// it so: all_reduce(sum) of a partial value, all_gather of a split one. Every op without a
// rule gets whole inputs, so any graph distributes correctly, and the common ones (elementwise,
// reductions, products, transposes, softmax rows, the gradient helpers) keep the work split.
// The result equals the single-process function on the whole batch (up to the order of
// sums), and replicated values are bit-identical on every rank. See docs/distributed.md.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/core/graph.h"
#include "runtime/comm/world.h"

namespace tgc {

struct DataParallelSpec {
  std::shared_ptr<CommGroup> group;
  // Graph inputs split among the ranks, with their axis (canonical); also shared variables,
  // whose value on each rank is its own part.
  std::unordered_map<const Variable*, int> split;
  // Results split along an axis come back as the rank's part instead of gathered.
  bool local_results = false;
  // Graph outputs from this index on are new values of shared variables: always whole.
  size_t first_update = 0;
};

// The rank's graph: the same outputs, new input variables for the split inputs (their type
// with the split dim divided by the group's size, or unknown), and the collectives that make
// partial and split values whole where needed. `notes` (when given) gets one line per value
// gathered because no rule kept it split: what it costs the user, and why.
Graph distribute(const Graph& graph, const DataParallelSpec& spec, std::vector<std::string>* notes = nullptr);

}  // namespace tgc
