// --format json: what run, devices, cache info and show print for scripts, as one JSON document
// on stdout (nlohmann-json), instead of the text a person reads. Each builder takes the same
// facts the text form prints; docs/cli.md ("Output for scripts") lists the fields.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "frontend/printing/graph_text.h"
#include "ops/core/graph.h"
#include "runtime/kernel_cache.h"
#include "runtime/tensor.h"

namespace tgc::cli {

// One output of a call: name ("out0"), expression, dtype, shape, the values (flat, in C order)
// when it has at most kJsonValuesLimit elements, and for numeric outputs the count of finite
// values and their min, max and mean (null when none is finite). NaN and infinities in
// "values" are the strings "nan", "inf", "-inf" (JSON has no such numbers).
inline constexpr int64_t kJsonValuesLimit = 1000;
nlohmann::json output_json(size_t index, const std::string& expression, const Tensor& value);

// tgc run: {"function", "calls", "seconds", "seconds_per_call", "cuda_graphs" (or null),
// "outputs": [...], "saved": [paths]}.
nlohmann::json run_json(const std::string& function, int calls, double seconds, const std::string& cuda_graphs,
                        const std::vector<std::string>& expressions, const std::vector<Tensor>& values,
                        const std::vector<std::string>& saved);

// tgc devices: [{"name", "status", "detail"}] from the lines `tgc devices` prints
// ("cuda:0   available  (NVIDIA H200, ...)").
nlohmann::json devices_json(const std::vector<std::string>& lines);

// tgc cache info: {"directory", "exists", "refused" (or null), "entries", "bytes",
// "max_bytes" (null for none), "backends": {"llvm": 12, ...}}.
nlohmann::json cache_info_json(const KernelCacheInfo& info);

// tgc show --format json: {"function", "stage", "inputs": [{"name", "dtype", "shape"}],
// "nodes": [{"op", "inputs": [names], "outputs": [{"name", "dtype", "shape"}], "host_reason"}],
// "outputs": [{"label", "name", "expression"}]}, nodes in execution order, names as the text
// form prints them, shapes with null for a dim unknown statically, "host_reason" only for a
// node left on the host of a GPU function.
nlohmann::json graph_json(const std::string& function, const std::string& stage, const Graph& graph,
                          const std::vector<printing::OutputLabel>& labels, const printing::HostReasonFn& host_reason);

// The document on stdout, indented, with a final newline.
void print_json(const nlohmann::json& document);

}  // namespace tgc::cli
