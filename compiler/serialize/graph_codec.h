// The graph codec: graphs written to JSON and read back, for saved functions (docs/save.md).
// A graph is its variables (inputs, constants, shared variables, results) and its nodes in
// execution order, each node's op through its codec (ops/core/op_codec.h) with its output
// types, names and placement. Everything a file's graphs share is kept once per file by the
// writer: the shared variables (a table the graphs refer to by number) and the tensor blobs
// (.npy bytes: constants, shared values, tensors ops hold). A loop's step graph is written the
// same way, inside its op's fields.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/core/graph.h"
#include "ops/core/op_codec.h"

namespace tgc {

class GraphWriter final : public OpWriteContext {
 public:
  // `with_values` false: the table names and types the shared variables without their values
  // (a graph's structure alone: the program cache's key and entries).
  explicit GraphWriter(bool with_values = true) : with_values_(with_values) {}
  // A graph between `inputs` and `outputs`: every node on a path from the inputs, constants
  // and shared variables to the outputs. Throws ValueError for an op that has no codec.
  Json write(const std::vector<VarPtr>& inputs, const std::vector<VarPtr>& outputs);
  Json write(const Graph& graph) { return write(graph.inputs(), graph.outputs()); }

  // The number of `value` in the file's table of shared variables (added on first use).
  int shared(const std::shared_ptr<SharedValue>& value);
  // The table: per shared variable, {"name", "type", "value": blob} (its value when written).
  const Json& shared_table() const { return shared_table_; }
  // The shared variables in the table's order.
  const std::vector<std::shared_ptr<SharedValue>>& shared_values() const { return shared_; }
  // The blobs, in order: a blob reference is its index.
  const std::vector<std::string>& blobs() const { return blobs_; }
  // Stores `bytes` as a blob; returns its reference.
  Json blob(std::string bytes);

  Json tensor(const Tensor& value) override;
  Json graph(const std::vector<VarPtr>& inputs, const std::vector<VarPtr>& outputs) override { return write(inputs, outputs); }

 private:
  std::vector<std::shared_ptr<SharedValue>> shared_;
  std::unordered_map<const SharedValue*, int> shared_index_;
  bool with_values_;
  Json shared_table_ = Json::array();
  std::vector<std::string> blobs_;
};

class GraphReader final : public OpReadContext {
 public:
  using BlobSource = std::function<std::string_view(size_t index)>;
  // `shared_table` as GraphWriter::shared_table wrote it; `blob` gives blob i's bytes (throws
  // IOError for a bad index). The shared variables are made at once, with their values.
  GraphReader(const Json& shared_table, BlobSource blob);
  // Over shared variables of this process, in the order of the table the graphs were written with.
  GraphReader(std::vector<std::shared_ptr<SharedValue>> shared, BlobSource blob)
      : blob_(std::move(blob)), shared_(std::move(shared)) {}

  // The graph `j` describes: its inputs and outputs, over new nodes. Malformed JSON (a
  // missing field, an index out of range, an op of unknown tag) throws IOError saying what.
  Subgraph read(const Json& j);
  // read(), as a Graph (Graph::clone_of of the inputs and outputs).
  Graph read_graph(const Json& j);
  // Makes graphs read later read `value` wherever they read shared variable i of the table
  // (a variable of the loading process standing in for the file's; the caller checked its type).
  void bind(size_t i, std::shared_ptr<SharedValue> value);
  // Shared variable i of the table.
  const std::shared_ptr<SharedValue>& shared(size_t i) const;
  size_t num_shared() const { return shared_.size(); }

  Tensor tensor(const Json& ref) override;
  Subgraph graph(const Json& ref) override { return read(ref); }

 private:
  BlobSource blob_;
  std::vector<std::shared_ptr<SharedValue>> shared_;
};

}  // namespace tgc
