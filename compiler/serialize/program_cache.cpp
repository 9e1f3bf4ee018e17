// The optimized-program cache (compiler/serialize/program_cache.h).
#include "compiler/serialize/program_cache.h"

#include <fmt/format.h>

#include <set>

#include "compiler/serialize/graph_codec.h"
#include "runtime/content_hash.h"
#include "runtime/error.h"
#include "runtime/saved_file.h"

namespace tgc {

bool is_process_setting(const std::string& key) {
  static const std::set<std::string> keys = {"profile",      "profile_trace", "cache_dir",   "cache_max_size",
                                             "log_compiles", "compile_threads", "comm_timeout", "eager_fusion",
                                             "floatX"};
  return keys.count(key) > 0;
}

std::string program_config_text(const Config& config) {
  std::string text;
  for (const std::string& key : Config::keys())
    if (!is_process_setting(key)) text += key + "=" + config.get(key) + "\n";
  return text;
}

std::optional<ProgramCacheEntry> ProgramCacheEntry::of(const ProgramCacheQuery& q) {
  GraphWriter writer(/*with_values=*/false);
  Json graph;
  try {
    graph = writer.write(*q.raw);
  } catch (const ValueError&) {
    return std::nullopt;  // an op a file cannot hold: nothing to key
  }
  Json facts = Json::array(), updates = Json::array();
  for (const auto& [value, shape] : q.facts) {
    int index = -1;
    for (size_t i = 0; i < writer.shared_values().size(); ++i)
      if (writer.shared_values()[i].get() == value) index = static_cast<int>(i);
    if (index < 0) return std::nullopt;  // a fact of a value the graph does not read: not cacheable
    facts.push_back(Json{{"shared", index}, {"shape", shape}});
  }
  // Per output, the variable it updates (numbered as the graph's are; a variable only updated
  // is numbered after the ones read), or -1 for a result: the passes treat the two apart.
  for (size_t o = 0; o < q.update_outputs.size(); ++o) {
    const SharedValue* target = q.update_outputs[o];
    int index = -1;
    for (size_t i = 0; i < writer.shared_values().size() && target; ++i)
      if (writer.shared_values()[i].get() == target) index = static_cast<int>(i);
    if (target && index < 0) index = writer.shared(q.update_targets.at(o - q.num_results));
    updates.push_back(index);
  }
  std::string text = Json{{"graph", graph},
                          {"shared", writer.shared_table()},
                          {"facts", facts},
                          {"updates", updates},
                          {"device_result", q.device_result}}
                         .dump() +
                     "\n" + q.config_text;
  for (const std::string& blob : writer.blobs()) text += fmt::format("\nblob {} {}", blob.size(), hash128_hex(blob));
  ProgramCacheEntry e;
  e.key_ = KernelCacheKey{"program", source_hash(text), "tgc " + q.version, q.device_kind, ""};
  e.shared_ = writer.shared_values();
  return e;
}

std::optional<Graph> ProgramCacheEntry::load(KernelCache& cache, const std::function<bool(const Node&)>& runs_on_device,
                                             std::vector<std::string>* warnings) const {
  auto blob = cache.get(key_);
  if (!blob) return std::nullopt;
  try {
    const std::string bytes((*blob)->begin(), (*blob)->end());
    const SavedFile file = parse_saved_file(bytes, "the program cache's entry", "cached program");
    const Json manifest = Json::parse(file.manifest);
    GraphReader reader(shared_, [&](size_t i) -> std::string_view {
      if (i >= file.blobs.size()) throw IOError("a blob reference out of range");
      return file.blobs[i];
    });
    Graph g = reader.read_graph(manifest.at("graph"));
    for (Node* n : g.toposort())
      if (n->placement() != DeviceKind::Host && runs_on_device && !runs_on_device(*n)) return std::nullopt;
    if (warnings)
      for (const Json& w : manifest.at("warnings")) warnings->push_back(w.get<std::string>());
    return g;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged or foreign entry: optimize as if absent
  }
}

void ProgramCacheEntry::store(KernelCache& cache, const Graph& optimized, const std::vector<std::string>& warnings) const {
  GraphWriter writer(/*with_values=*/false);
  for (const auto& s : shared_) writer.shared(s);  // the key's numbering
  Json graph;
  try {
    graph = writer.write(optimized);
  } catch (const ValueError&) {
    return;  // an op of the optimizer's without a codec: not cached
  }
  const std::string bytes = saved_file_bytes(SavedFile{Json{{"graph", graph}, {"warnings", warnings}}.dump(), writer.blobs()});
  cache.put(key_, KernelBlob(bytes.begin(), bytes.end()));
}

}  // namespace tgc
