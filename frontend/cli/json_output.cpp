// The JSON documents of --format json (json_output.h).
#include "frontend/cli/json_output.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/passes/placement.h"
#include "frontend/printing/graph_names.h"

namespace tgc::cli {

namespace {

// A double as JSON: a number, or "nan", "inf", "-inf".
nlohmann::json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace

nlohmann::json output_json(size_t index, const std::string& expression, const Tensor& value) {
  nlohmann::json out = {{"name", "out" + std::to_string(index)},
                        {"expression", expression},
                        {"dtype", std::string(dtype_name(value.dtype()))},
                        {"shape", value.shape()}};
  const bool is_bool = value.dtype() == DType::Bool, is_int = is_integer(value.dtype());
  const std::vector<double> as_double = value.to_vector<double>();  // C order, from any device
  if (value.numel() <= kJsonValuesLimit) {
    if (is_bool) out["values"] = value.to_vector<bool>();
    else if (is_int) out["values"] = value.to_vector<int64_t>();  // exact past 2^53
    else {
      nlohmann::json values = nlohmann::json::array();
      for (double v : as_double) values.push_back(number(v));
      out["values"] = std::move(values);
    }
  }
  if (!is_bool) {
    int64_t finite = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
    for (double v : as_double) {
      if (!std::isfinite(v)) continue;
      ++finite;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    out["finite"] = finite;
    out["min"] = finite ? nlohmann::json(lo) : nlohmann::json(nullptr);
    out["max"] = finite ? nlohmann::json(hi) : nlohmann::json(nullptr);
    out["mean"] = finite ? nlohmann::json(sum / static_cast<double>(finite)) : nlohmann::json(nullptr);
  }
  return out;
}

nlohmann::json run_json(const std::string& function, int calls, double seconds, const std::string& cuda_graphs,
                        const std::vector<std::string>& expressions, const std::vector<Tensor>& values,
                        const std::vector<std::string>& saved) {
  nlohmann::json outputs = nlohmann::json::array();
  for (size_t i = 0; i < values.size(); ++i)
    outputs.push_back(output_json(i, i < expressions.size() ? expressions[i] : "?", values[i]));
  return {{"function", function},
          {"calls", calls},
          {"seconds", seconds},
          {"seconds_per_call", seconds / calls},
          {"cuda_graphs", cuda_graphs.empty() ? nlohmann::json(nullptr) : nlohmann::json(cuda_graphs)},
          {"outputs", std::move(outputs)},
          {"saved", saved}};
}

nlohmann::json devices_json(const std::vector<std::string>& lines) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& block : lines) {
    // An entry may hold several lines (one per CUDA or OpenCL device).
    size_t start = 0;
    while (start < block.size()) {
      size_t end = block.find('\n', start);
      if (end == std::string::npos) end = block.size();
      const std::string line = block.substr(start, end - start);
      start = end + 1;
      if (line.empty()) continue;
      // "<name> <spaces><status>  (<detail>)"
      const size_t name_end = line.find(' ');
      const size_t status_start = line.find_first_not_of(' ', name_end);
      const size_t paren = line.find("  (", status_start);
      nlohmann::json entry = {{"name", line.substr(0, name_end)}};
      if (status_start == std::string::npos || paren == std::string::npos || line.back() != ')') {
        entry["status"] = nullptr;
        entry["detail"] = line;  // not in the usual form: kept whole rather than lost
      } else {
        entry["status"] = line.substr(status_start, paren - status_start);
        entry["detail"] = line.substr(paren + 3, line.size() - paren - 4);
      }
      out.push_back(std::move(entry));
    }
  }
  return out;
}

nlohmann::json cache_info_json(const KernelCacheInfo& info) {
  return {{"directory", info.dir},
          {"exists", info.exists},
          {"refused", info.refused.empty() ? nlohmann::json(nullptr) : nlohmann::json(info.refused)},
          {"entries", info.entries},
          {"bytes", info.bytes},
          {"max_bytes", info.max_bytes == 0 ? nlohmann::json(nullptr) : nlohmann::json(info.max_bytes)},
          {"backends", info.backends}};
}

namespace {

nlohmann::json typed(const std::string& name, const Type& type) {
  nlohmann::json shape = nlohmann::json::array();
  for (int64_t d : type.shape) shape.push_back(d == kUnknownDim ? nlohmann::json(nullptr) : nlohmann::json(d));
  return {{"name", name}, {"dtype", std::string(dtype_name(type.dtype))}, {"shape", std::move(shape)}};
}

}  // namespace

nlohmann::json graph_json(const std::string& function, const std::string& stage, const Graph& graph,
                          const std::vector<printing::OutputLabel>& labels, const printing::HostReasonFn& host_reason) {
  printing::GraphNames names;
  nlohmann::json inputs = nlohmann::json::array(), nodes = nlohmann::json::array(),
                 outputs = nlohmann::json::array();
  for (const VarPtr& v : graph.inputs()) inputs.push_back(typed(names.of(v.get()), v->type()));
  for (Node* n : graph.toposort()) {
    nlohmann::json node = {{"op", placed_op_name(*n)}};
    nlohmann::json args = nlohmann::json::array(), results = nlohmann::json::array();
    for (const VarPtr& in : n->inputs()) args.push_back(names.of(in.get()));
    for (int i = 0; i < n->num_outputs(); ++i) results.push_back(typed(names.of(n->output_raw(i)), n->output_raw(i)->type()));
    node["inputs"] = std::move(args);
    node["outputs"] = std::move(results);
    if (const std::string reason = host_reason ? host_reason(*n) : ""; !reason.empty()) node["host_reason"] = reason;
    nodes.push_back(std::move(node));
  }
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    const printing::OutputLabel label =
        i < labels.size() ? labels[i] : printing::OutputLabel{fmt::format("out{}", i), ""};
    outputs.push_back({{"label", label.name},
                       {"name", names.of(graph.outputs()[i].get())},
                       {"expression", label.expression}});
  }
  return {{"function", function}, {"stage", stage}, {"inputs", std::move(inputs)}, {"nodes", std::move(nodes)},
          {"outputs", std::move(outputs)}};
}

void print_json(const nlohmann::json& document) {
  // Invalid UTF-8 in a name or path is replaced, never an exception after the work was done.
  fmt::print("{}\n", document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace tgc::cli
