// save / load_function / save_shared / load_shared (<tgc/save.h>, docs/save.md): functions
// taken apart (FunctionAccess), their graphs through the graph codec, their shared values and
// kernels as blobs, all in one saved file (runtime/saved_file.h). The manifest:
//   {"kind": "functions", "tgc": version, "shared": [table], "kernels": [...],
//    "functions": [{"name", "config", "borrow_outputs", "device_result", "num_outputs",
//                   "updates": [shared numbers], "raw": graph, "optimized": graph,
//                   "facts": [{"shared", "shape"}]}]}
// or, for a checkpoint, {"kind": "shared", "tgc": version, "shared": [table]}.
#include <tgc/save.h>
#include <tgc/tgc.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "compiler/serialize/graph_codec.h"
#include "compiler/serialize/program_cache.h"
#include "frontend/api/function_access.h"
#include "frontend/api/shared_locks.h"
#include "runtime/error.h"
#include "runtime/kernel_cache.h"
#include "runtime/log.h"
#include "runtime/saved_file.h"

namespace tgc {

namespace {

constexpr const char* kFunctionsWhat = "saved function";
constexpr const char* kSharedWhat = "checkpoint";

Json config_json(const Config& config) {
  Json j = Json::object();
  for (const std::string& key : Config::keys())
    if (!is_process_setting(key)) j[key] = config.get(key);
  return j;
}

// "cuda:1" and "cuda" run the same program: the device's kind decides the placement.
std::string device_kind_of(const std::string& device) { return device.substr(0, device.find(':')); }

Json kernel_key_json(const KernelCacheKey& key) {
  return Json{{"backend", key.backend}, {"kernel", key.kernel}, {"compiler", key.compiler}, {"target", key.target},
              {"flags", key.flags}};
}

KernelCacheKey kernel_key_from(const Json& j) {
  return KernelCacheKey{j.at("backend").get<std::string>(), j.at("kernel").get<std::string>(),
                        j.at("compiler").get<std::string>(), j.at("target").get<std::string>(),
                        j.at("flags").get<std::string>()};
}

std::string with_tgc_version(const Json& manifest) {
  return manifest.contains("tgc") && manifest["tgc"].is_string() ? manifest["tgc"].get<std::string>() : "unknown";
}

// The manifest of a file of `kind`, parsed; IOError naming the file otherwise.
Json parse_manifest(const SavedFile& file, const std::string& path, const char* kind, const char* what) {
  Json manifest;
  try {
    manifest = Json::parse(file.manifest);
  } catch (const Json::exception& e) {
    throw IOError(fmt::format("cannot read {} '{}': its manifest is not JSON ({})", what, path, e.what()), "",
                  "the file is damaged; save it again");
  }
  if (!manifest.is_object() || !manifest.contains("kind") || manifest["kind"] != kind) {
    const std::string found = manifest.is_object() && manifest.contains("kind") ? manifest["kind"].dump() : "nothing";
    throw IOError(fmt::format("'{}' is not a {}: it holds {}", path, what, found), "",
                  std::string(kind) == "functions" ? "a checkpoint of shared values loads with load_shared"
                                                   : "a saved function loads with load_function");
  }
  return manifest;
}

GraphReader::BlobSource blobs_of(const SavedFile& file) {
  return [&file](size_t i) -> std::string_view {
    if (i >= file.blobs.size()) throw IOError(fmt::format("a reference to blob {} of {}", i, file.blobs.size()));
    return file.blobs[i];
  };
}

void check_named_once(const std::vector<Shared>& vars, const char* where) {
  std::set<std::string> names;
  for (size_t i = 0; i < vars.size(); ++i) {
    const VarPtr& v = checked_ptr(vars[i]);
    if (v->kind() != Variable::Kind::Shared)
      throw InputError(fmt::format("entry {} ('{}') is not a shared variable", i + 1, v->label()), where,
                       "give variables made by shared()");
    if (v->storage()->name().empty())
      throw InputError(fmt::format("shared variable {} has no name", i + 1), where,
                       "name it: shared(value, \"w\"); files find variables by name");
    if (!names.insert(v->storage()->name()).second)
      throw InputError(fmt::format("two shared variables are named '{}'", v->storage()->name()), where,
                       "give each variable its own name");
  }
}

// The functions of a file, made over one set of shared variables.
std::vector<Function> load_from(const std::string& path, const std::string& only, const LoadOptions& options) {
  const SavedFile file = read_saved_file(path, kFunctionsWhat);
  const Json manifest = parse_manifest(file, path, "functions", kFunctionsWhat);
  const std::string written_by = with_tgc_version(manifest);
  auto damaged = [&](const std::string& why) {
    return IOError(fmt::format("cannot read {} '{}' (written by tgc {}): {}", kFunctionsWhat, path, written_by, why), "",
                   written_by == version() ? "the file is damaged; save it again"
                                           : std::string("save it again with this tgc (") + version() + ")");
  };
  std::vector<Function> out;
  try {
    GraphReader reader(manifest.at("shared"), blobs_of(file));
    // The caller's variables in place of the file's of the same name.
    check_named_once(options.shared, "load_function");
    std::vector<std::shared_ptr<SharedValue>> table;
    for (size_t i = 0; i < reader.num_shared(); ++i) table.push_back(reader.shared(i));
    for (const Shared& mine : options.shared) {
      const std::shared_ptr<SharedValue>& value = mine.ptr()->storage();
      auto it = std::find_if(table.begin(), table.end(), [&](const auto& s) { return s->name() == value->name(); });
      if (it == table.end()) continue;  // not read by these functions: nothing to bind
      if ((*it)->type().dtype != value->type().dtype || (*it)->type().ndim() != value->type().ndim())
        throw TypeError(fmt::format("shared variable '{}' is a {} in '{}' and a {} here", value->name(),
                                    (*it)->type().str(), path, value->type().str()),
                        "load_function", "bind a variable of the saved dtype and rank");
      reader.bind(static_cast<size_t>(it - table.begin()), value);
    }

    // Kernels first: linking then finds them in the cache instead of compiling.
    std::vector<std::pair<KernelCacheKey, size_t>> kernels;
    for (const Json& k : manifest.at("kernels")) kernels.push_back({kernel_key_from(k.at("key")), k.at("blob").get<size_t>()});

    const Json& functions = manifest.at("functions");
    bool found = only.empty();
    for (const Json& fj : functions) {
      const std::string name = fj.at("name").get<std::string>();
      if (!only.empty() && name != only) continue;
      found = true;
      FunctionParts parts;
      parts.name = name;
      parts.config = global_config();
      const Json& saved_config = fj.at("config");
      for (auto it = saved_config.begin(); it != saved_config.end(); ++it)
        if (!is_process_setting(it.key())) parts.config.set(it.key(), it.value().get<std::string>(), path);
      for (const auto& [key, value] : options.config) parts.config.set(key, value, "load options of " + name);
      bool same_program = true;
      for (auto it = saved_config.begin(); it != saved_config.end(); ++it) {
        if (is_process_setting(it.key())) continue;
        const std::string now = parts.config.get(it.key()), then = it.value().get<std::string>();
        if (it.key() == "device" ? device_kind_of(now) != device_kind_of(then) : now != then) {
          log_message(LogKind::Note, fmt::format("{}: {}={} here, {} when saved: its graph is optimized again", name,
                                                 it.key(), now, then));
          same_program = false;
        }
      }
      parts.borrow_outputs = fj.at("borrow_outputs").get<bool>();
      parts.device_result = fj.at("device_result").get<bool>();
      parts.num_outputs = fj.at("num_outputs").get<size_t>();
      for (const Json& u : fj.at("updates")) parts.update_targets.push_back(reader.shared(u.get<size_t>()));
      parts.raw_graph = reader.read_graph(fj.at("raw"));
      if (parts.raw_graph.outputs().size() != parts.num_outputs + parts.update_targets.size())
        throw damaged(fmt::format("function '{}' has {} graph outputs for {} results and {} updates", name,
                                  parts.raw_graph.outputs().size(), parts.num_outputs, parts.update_targets.size()));
      for (size_t u = 0; u < parts.update_targets.size(); ++u) {
        const Type& t = parts.raw_graph.outputs()[parts.num_outputs + u]->type();
        const Type& target = parts.update_targets[u]->type();
        if (t.dtype != target.dtype || t.ndim() != target.ndim())
          throw damaged(fmt::format("the update of '{}' in function '{}' is a {} for a {}", parts.update_targets[u]->name(),
                                    name, t.str(), target.str()));
      }
      if (same_program && !fj.at("optimized").is_null()) {
        parts.optimized = reader.read_graph(fj.at("optimized"));
        for (const Json& fact : fj.at("facts"))
          parts.facts.push_back({reader.shared(fact.at("shared").get<size_t>()).get(),
                                 fact.at("shape").get<std::vector<int64_t>>()});
      }
      // The file's kernels, into the cache this function compiles with.
      KernelCache& cache = kernel_cache_for(parts.config.cache_dir);
      for (const auto& [key, blob] : kernels) {
        if (blob >= file.blobs.size()) throw damaged(fmt::format("a kernel refers to blob {} of {}", blob, file.blobs.size()));
        if (!cache.get(key)) cache.put(key, KernelBlob(file.blobs[blob].begin(), file.blobs[blob].end()));
      }
      out.push_back(FunctionAccess::make(std::move(parts)));
    }
    if (!found) {
      std::string names;
      for (const Json& fj : functions) names += (names.empty() ? "" : ", ") + fj.at("name").get<std::string>();
      throw InputError(fmt::format("'{}' holds no function named '{}'", path, only), "load_function",
                       "it holds: " + (names.empty() ? std::string("none") : names));
    }
  } catch (const Json::exception& e) {
    throw damaged(std::string("its manifest is malformed (") + e.what() + ")");
  } catch (const IOError& e) {
    // The graph codec's messages say what is wrong, not where: add the file.
    const std::string what = e.what();
    if (what.find(path) != std::string::npos) throw;
    throw damaged(what);
  }
  return out;
}

}  // namespace

void save(const std::vector<const Function*>& functions, const std::string& path) {
  if (functions.empty()) throw InputError("no function to save", "save", "give at least one function");
  // The values are read as a call reads them: under the variables' locks (docs/api.md#threads).
  std::vector<const SharedValue*> values;
  for (const Function* fp : functions)
    if (fp)
      for (const Shared& s : fp->shared_variables()) values.push_back(s.ptr()->storage().get());
  const LockPlan plan = make_lock_plan(values, {});
  SharedLocks locks(plan);
  GraphWriter writer;
  Json fns = Json::array();
  std::map<std::string, std::pair<KernelCacheKey, KernelCache*>> uses;  // by key text: each kernel once
  std::set<std::string> names;
  for (const Function* fp : functions) {
    if (!fp) throw InputError("a null function pointer", "save", "pass the address of a Function");
    FunctionParts parts = FunctionAccess::parts(*fp);
    if (!names.insert(parts.name).second)
      throw InputError(fmt::format("two functions are named '{}'", parts.name), "save",
                       "name them apart (FunctionOptions::name); a file finds functions by name");
    Json updates = Json::array();
    for (const auto& target : parts.update_targets) updates.push_back(writer.shared(target));
    Json facts = Json::array();
    Json raw = writer.write(parts.raw_graph);
    Json optimized = parts.optimized ? writer.write(*parts.optimized) : Json();
    // The facts name values of the raw graph's roots: the writer numbered each of them above.
    for (const auto& [value, shape] : parts.facts) {
      std::shared_ptr<SharedValue> owner;
      for (Variable* root : parts.raw_graph.roots())
        if (root->kind() == Variable::Kind::Shared && root->storage().get() == value) owner = root->storage();
      TGC_INTERNAL_CHECK(owner != nullptr, "a shape fact of a shared value the function does not read");
      facts.push_back(Json{{"shared", writer.shared(owner)}, {"shape", shape}});
    }
    fns.push_back(Json{{"name", parts.name},
                       {"config", config_json(parts.config)},
                       {"borrow_outputs", parts.borrow_outputs},
                       {"device_result", parts.device_result},
                       {"num_outputs", parts.num_outputs},
                       {"updates", std::move(updates)},
                       {"raw", std::move(raw)},
                       {"optimized", std::move(optimized)},
                       {"facts", std::move(facts)}});
    for (const KernelUses::Use& u : parts.kernels) uses.try_emplace(u.key.text(), u.key, u.cache);
  }
  Json kernels = Json::array();
  size_t lost = 0;
  for (const auto& [text, use] : uses) {
    const auto& [key, cache] = use;
    if (auto blob = cache->get(key)) {
      kernels.push_back(Json{{"key", kernel_key_json(key)}, {"blob", writer.blob(std::string((*blob)->begin(), (*blob)->end()))}});
    } else {
      ++lost;
    }
  }
  if (lost > 0)
    log_message(LogKind::Warning,
                fmt::format("save: {} of the {} kernels the function{} used are no longer in the kernel cache (cache_dir "
                            "empty, or evicted) and are not in '{}': loading it compiles them",
                            lost, uses.size(), functions.size() == 1 ? "" : "s", path));
  Json manifest{{"kind", "functions"},
                {"tgc", version()},
                {"shared", writer.shared_table()},
                {"kernels", std::move(kernels)},
                {"functions", std::move(fns)}};
  SavedFile file{manifest.dump(), writer.blobs()};
  write_saved_file(path, file);
}

void save(const Function& fn, const std::string& path) { save(std::vector<const Function*>{&fn}, path); }

Function load_function(const std::string& path, const std::string& name, const LoadOptions& options) {
  if (name.empty()) {
    const std::vector<std::string> names = saved_function_names(path);
    if (names.size() != 1) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      throw InputError(fmt::format("'{}' holds {} functions ({}); say which", path, names.size(), list), "load_function",
                       "load_function(path, \"" + (names.empty() ? std::string("name") : names[0]) +
                           "\"), or load_functions(path) for all of them");
    }
  }
  std::vector<Function> fns = load_from(path, name, options);
  return std::move(fns.at(0));
}

std::vector<Function> load_functions(const std::string& path, const LoadOptions& options) {
  return load_from(path, "", options);
}

std::vector<std::string> saved_function_names(const std::string& path) {
  const SavedFile file = read_saved_file(path, kFunctionsWhat);
  const Json manifest = parse_manifest(file, path, "functions", kFunctionsWhat);
  std::vector<std::string> names;
  try {
    for (const Json& fj : manifest.at("functions")) names.push_back(fj.at("name").get<std::string>());
  } catch (const Json::exception& e) {
    throw IOError(fmt::format("cannot read {} '{}': its manifest is malformed ({})", kFunctionsWhat, path, e.what()));
  }
  return names;
}

void save_shared(const std::vector<Shared>& vars, const std::string& path) {
  check_named_once(vars, "save_shared");
  std::vector<const SharedValue*> values;
  for (const Shared& v : vars) values.push_back(v.ptr()->storage().get());
  const LockPlan plan = make_lock_plan(values, {});
  SharedLocks locks(plan);
  GraphWriter writer;
  for (const Shared& v : vars) writer.shared(v.ptr()->storage());
  Json manifest{{"kind", "shared"}, {"tgc", version()}, {"shared", writer.shared_table()}};
  write_saved_file(path, SavedFile{manifest.dump(), writer.blobs()});
}

void load_shared(const std::vector<Shared>& vars, const std::string& path) {
  check_named_once(vars, "load_shared");
  const SavedFile file = read_saved_file(path, kSharedWhat);
  const Json manifest = parse_manifest(file, path, "shared", kSharedWhat);
  std::vector<std::pair<const Shared*, Tensor>> values;
  try {
    GraphReader reader(manifest.at("shared"), blobs_of(file));
    for (const Shared& v : vars) {
      const std::string& name = v.ptr()->storage()->name();
      const SharedValue* found = nullptr;
      for (size_t i = 0; i < reader.num_shared(); ++i)
        if (reader.shared(i)->name() == name) found = reader.shared(i).get();
      if (!found) {
        std::string has;
        for (size_t i = 0; i < reader.num_shared(); ++i) has += (has.empty() ? "" : ", ") + reader.shared(i)->name();
        throw IOError(fmt::format("checkpoint '{}' has no value for shared variable '{}'", path, name), "load_shared",
                      "it has: " + (has.empty() ? std::string("none") : has));
      }
      const Type& want = v.type();
      const Tensor& value = found->current();
      if (value.dtype() != want.dtype || value.ndim() != want.ndim())
        throw TypeError(fmt::format("checkpoint '{}' holds a {} {} for shared variable '{}', a {}", path,
                                    dtype_name(value.dtype()), shape_str(value.shape()), name, want.str()),
                        "load_shared", "load a checkpoint saved from variables of the same dtype and rank");
      values.push_back({&v, value});
    }
  } catch (const Json::exception& e) {
    throw IOError(fmt::format("cannot read {} '{}': its manifest is malformed ({})", kSharedWhat, path, e.what()));
  }
  for (auto& [var, value] : values) var->set_value(value, /*borrow=*/true);
}

}  // namespace tgc
