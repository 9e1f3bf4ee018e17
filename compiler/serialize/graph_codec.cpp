// The graph codec (compiler/serialize/graph_codec.h). A graph is written as
//   {"roots": [...], "nodes": [...], "inputs": [...], "outputs": [...]}
// where variables are numbered in order of appearance: the roots first (inputs, constants,
// shared variables, in the order the walk meets them), then each node's outputs in node order.
// Nodes come in execution order, so a node only reads variables numbered before its outputs:
// the reader checks that, and every other index, and says what is wrong with a bad file.
#include "compiler/serialize/graph_codec.h"

#include <fmt/format.h>

#include <unordered_set>

#include "ops/core/node.h"
#include "runtime/error.h"
#include "runtime/npy.h"

namespace tgc {

namespace {

// The nodes computing `outputs`, producers first (depth-first from the outputs, inputs left
// to right, as Graph::toposort orders them), iteratively so any depth is fine.
std::vector<Node*> nodes_in_order(const std::vector<VarPtr>& outputs) {
  std::vector<Node*> order;
  std::unordered_set<const Node*> done, entered;
  std::vector<std::pair<Node*, size_t>> stack;  // (node, next input to visit)
  for (const VarPtr& out : outputs) {
    if (!out || !out->owner() || done.count(out->owner())) continue;
    stack.push_back({out->owner(), 0});
    entered.insert(out->owner());
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->inputs().size()) {
        Node* producer = node->inputs()[next++]->owner();
        if (producer && !done.count(producer) && entered.insert(producer).second) stack.push_back({producer, 0});
        continue;
      }
      done.insert(node);
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

std::string placement_name(DeviceKind kind) { return device_kind_name(kind); }

DeviceKind placement_from(const Json& j) {
  const std::string name = j.get<std::string>();
  for (DeviceKind k : {DeviceKind::Host, DeviceKind::Cuda, DeviceKind::OpenCL})
    if (device_kind_name(k) == name) return k;
  throw IOError("a node's placement '" + name + "' is not a device kind (cpu, cuda, opencl)");
}

}  // namespace

Json GraphWriter::blob(std::string bytes) {
  blobs_.push_back(std::move(bytes));
  return static_cast<int64_t>(blobs_.size() - 1);
}

Json GraphWriter::tensor(const Tensor& value) { return blob(npy_bytes(value)); }

int GraphWriter::shared(const std::shared_ptr<SharedValue>& value) {
  auto [it, inserted] = shared_index_.emplace(value.get(), static_cast<int>(shared_.size()));
  if (inserted) {
    shared_.push_back(value);
    // Its value as it is now, once per file however many graphs read it.
    Json entry{{"name", value->name()}, {"type", type_to_json(value->type())}};
    if (with_values_) entry["value"] = tensor(value->current());
    shared_table_.push_back(std::move(entry));
  }
  return it->second;
}

Json GraphWriter::write(const std::vector<VarPtr>& inputs, const std::vector<VarPtr>& outputs) {
  std::unordered_map<const Variable*, int64_t> number;
  Json roots = Json::array();
  auto root = [&](const Variable* v) {
    if (number.count(v)) return;
    Json entry;
    switch (v->kind()) {
      case Variable::Kind::Input:
        entry = Json{{"kind", "input"}, {"type", type_to_json(v->type())}, {"name", v->name()}};
        break;
      case Variable::Kind::Constant:
        entry = Json{{"kind", "constant"}, {"name", v->name()}, {"value", tensor(v->constant_value())}};
        break;
      case Variable::Kind::Shared:
        entry = Json{{"kind", "shared"}, {"shared", shared(v->storage())}};
        break;
      case Variable::Kind::Result:
        TGC_INTERNAL_CHECK(false, "a result variable written as a root");
    }
    number[v] = static_cast<int64_t>(roots.size());
    roots.push_back(std::move(entry));
  };
  for (const VarPtr& in : inputs) root(in.get());
  const std::vector<Node*> order = nodes_in_order(outputs);
  for (Node* n : order)
    for (const VarPtr& in : n->inputs())
      if (!in->owner()) root(in.get());
  for (const VarPtr& out : outputs)
    if (!out->owner()) root(out.get());

  int64_t next = static_cast<int64_t>(roots.size());
  Json nodes = Json::array();
  for (Node* n : order) {
    Json ins = Json::array();
    for (const VarPtr& in : n->inputs()) ins.push_back(number.at(in.get()));
    Json outs = Json::array();
    for (int i = 0; i < n->num_outputs(); ++i) {
      const Variable* out = n->output_raw(i);
      number[out] = next++;
      outs.push_back(Json{{"type", type_to_json(out->type())}, {"name", out->name()}});
    }
    nodes.push_back(Json{{"op", write_op(n->op(), *this)},
                         {"inputs", std::move(ins)},
                         {"outputs", std::move(outs)},
                         {"placement", placement_name(n->placement())}});
  }
  Json in_numbers = Json::array(), out_numbers = Json::array();
  for (const VarPtr& in : inputs) in_numbers.push_back(number.at(in.get()));
  for (const VarPtr& out : outputs) out_numbers.push_back(number.at(out.get()));
  return Json{{"roots", std::move(roots)}, {"nodes", std::move(nodes)}, {"inputs", std::move(in_numbers)},
              {"outputs", std::move(out_numbers)}};
}

GraphReader::GraphReader(const Json& shared_table, BlobSource blob) : blob_(std::move(blob)) {
  if (!shared_table.is_array()) throw IOError("the table of shared variables is not a list");
  for (size_t i = 0; i < shared_table.size(); ++i) {
    const Json& entry = shared_table[i];
    try {
      const Type type = type_from_json(entry.at("type"));
      Tensor value = tensor(entry.at("value"));
      if (value.dtype() != type.dtype || value.ndim() != type.ndim())
        throw IOError(fmt::format("its value is a {} {}-d tensor, its type {}", dtype_name(value.dtype()), value.ndim(),
                                  type.str()));
      shared_.push_back(std::make_shared<SharedValue>(std::move(value), entry.at("name").get<std::string>(),
                                                      /*borrow=*/true));
    } catch (const Json::exception& e) {
      throw IOError(fmt::format("shared variable {} of the file is malformed ({})", i + 1, e.what()));
    } catch (const IOError& e) {
      throw IOError(fmt::format("shared variable {} of the file: {}", i + 1, e.what()));
    }
  }
}

const std::shared_ptr<SharedValue>& GraphReader::shared(size_t i) const {
  if (i >= shared_.size())
    throw IOError(fmt::format("a graph refers to shared variable {} of a table of {}", i + 1, shared_.size()));
  return shared_[i];
}

void GraphReader::bind(size_t i, std::shared_ptr<SharedValue> value) {
  shared(i);  // the range check
  shared_[i] = std::move(value);
}

Tensor GraphReader::tensor(const Json& ref) {
  if (!ref.is_number_unsigned()) throw IOError("a tensor reference is not a blob number: " + ref.dump());
  const size_t index = ref.get<size_t>();
  return parse_npy(blob_(index), fmt::format("blob {} of the file", index));
}

OpReadContext::Subgraph GraphReader::read(const Json& j) {
  std::vector<VarPtr> vars;
  auto var = [&](const Json& index, const char* what) -> const VarPtr& {
    if (!index.is_number_unsigned() || index.get<size_t>() >= vars.size())
      throw IOError(fmt::format("{} refers to variable {} of {} defined before it", what, index.dump(), vars.size()));
    return vars[index.get<size_t>()];
  };
  // The nodes read so far, kept alive until the outputs hold them.
  std::vector<std::shared_ptr<Node>> nodes;
  try {
    std::unordered_map<size_t, VarPtr> shared_vars;  // one Variable per shared value in a graph
    for (const Json& r : j.at("roots")) {
      const std::string kind = r.at("kind").get<std::string>();
      if (kind == "input") {
        vars.push_back(Variable::input(type_from_json(r.at("type")), r.at("name").get<std::string>()));
      } else if (kind == "constant") {
        vars.push_back(Variable::constant(tensor(r.at("value")), r.at("name").get<std::string>()));
      } else if (kind == "shared") {
        const size_t s = r.at("shared").get<size_t>();
        auto it = shared_vars.find(s);
        if (it == shared_vars.end()) it = shared_vars.emplace(s, Variable::shared(shared(s))).first;
        vars.push_back(it->second);
      } else {
        throw IOError("a root variable of kind '" + kind + "' (input, constant or shared)");
      }
    }
    for (const Json& n : j.at("nodes")) {
      std::vector<VarPtr> inputs;
      for (const Json& i : n.at("inputs")) inputs.push_back(var(i, "a node"));
      std::shared_ptr<const Op> op = read_op(n.at("op"), *this);
      std::vector<Type> types;
      for (const Json& o : n.at("outputs")) types.push_back(type_from_json(o.at("type")));
      if (static_cast<int>(types.size()) != op->num_outputs())
        throw IOError(fmt::format("a node of {} lists {} outputs; the op has {}", op->name(), types.size(), op->num_outputs()));
      // The op's own type rule agrees with the file (a file that does not is damaged, and
      // running it would read memory as the wrong type).
      std::vector<Type> in_types;
      for (const VarPtr& in : inputs) in_types.push_back(in->type());
      const std::vector<Type> inferred = op->infer_types(in_types);
      for (size_t k = 0; k < types.size(); ++k)
        if (!interchangeable(inferred[k], types[k]))
          throw IOError(fmt::format("output {} of a node of {} is a {} in the file; its op makes a {}", k, op->name(),
                                    types[k].str(), inferred[k].str()));
      auto node = Node::create(std::move(op), std::move(inputs), types);
      node->set_placement(placement_from(n.at("placement")));
      for (int k = 0; k < node->num_outputs(); ++k) {
        VarPtr out = node->output(k);
        out->set_name(n.at("outputs")[k].at("name").get<std::string>());
        vars.push_back(std::move(out));
      }
      nodes.push_back(std::move(node));
    }
    Subgraph g;
    for (const Json& i : j.at("inputs")) g.inputs.push_back(var(i, "the graph's inputs"));
    for (const Json& o : j.at("outputs")) g.outputs.push_back(var(o, "the graph's outputs"));
    return g;
  } catch (const Json::exception& e) {
    throw IOError(fmt::format("a graph of the file is malformed ({})", e.what()));
  } catch (const IOError&) {
    throw;
  } catch (const Error& e) {
    // An op's type rule refused its inputs: the file is damaged, not the user's graph.
    throw IOError(fmt::format("a graph of the file does not type-check: {}", e.what()));
  }
}

Graph GraphReader::read_graph(const Json& j) {
  Subgraph g = read(j);
  return Graph::clone_of(g.inputs, g.outputs);
}

}  // namespace tgc
