// run_recorded: find or compile the call of a graph's structure, then call it.
#include "frontend/api/eager/eager_run.h"

#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <tgc/function.h>

#include <fmt/format.h>

#include "backends/backend_registry.h"
#include "frontend/api/eager/eager_structure.h"
#include "frontend/api/graphs_only.h"

namespace tgc::eager_impl {

namespace {

class CompiledCalls {
 public:
  // The compiled call for `key`, made by `compile` on a miss. Two threads missing on the same
  // key may both compile; the first to finish is kept.
  template <typename Compile>
  std::shared_ptr<Function> get(const std::string& key, Compile&& compile) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = map_.find(key); it != map_.end()) {
        order_.splice(order_.begin(), order_, it->second.second);
        return it->second.first;
      }
    }
    auto made = std::make_shared<Function>(compile());
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = map_.find(key); it != map_.end()) return it->second.first;
    order_.push_front(key);
    map_.emplace(key, std::make_pair(made, order_.begin()));
    while (map_.size() > kMaxCompiledCalls) {
      map_.erase(order_.back());
      order_.pop_back();
    }
    return made;
  }

  size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return map_.size();
  }

 private:
  std::mutex mutex_;
  std::list<std::string> order_;  // most recently used first
  std::unordered_map<std::string, std::pair<std::shared_ptr<Function>, std::list<std::string>::iterator>> map_;
};

CompiledCalls& compiled_calls() {
  static CompiledCalls* calls = new CompiledCalls;  // never destroyed: used until exit
  return *calls;
}

}  // namespace

std::shared_ptr<Function> compiled_call(const std::vector<Var>& outputs, const std::vector<Leaf>& leaves,
                                        Device& device, const std::map<std::string, std::string>& config) {
  // The device by address (its name is made only to compile: a string per call costs).
  std::string key = fmt::format("{}|", static_cast<const void*>(&device));
  key += structure_key(outputs, leaves);
  for (const auto& [k, v] : config) key += "|" + k + "=" + v;
  // A test's forced backend (the conformance suite runs the host backends one after another).
  if (std::optional<std::string> forced = forced_backend_for_tests()) key += "|forced=" + *forced;
  return compiled_calls().get(key, [&] {
    std::vector<Var> inputs;
    for (const Leaf& leaf : leaves) inputs.emplace_back(leaf.var);
    FunctionOptions options;
    options.name = "eager " + outputs.at(0).ptr()->label();
    options.device_result = true;  // results stay where the operands are
    options.borrow_outputs = true;  // a view of an operand is returned as a view
    // The device the operands are on; replaying recorded CUDA graphs does not pay for calls
    // whose operands sit at new addresses each time.
    options.config = config;
    options.config["device"] = device.name();
    options.config["cuda_graphs"] = "off";
    // An eager value is computed when it is made or read, also while a program is loaded for
    // its graphs alone (tgc show of a .tg file whose values are computed at once).
    GraphsOnlyScope::Suspend computed_now;
    return function(inputs, outputs, {}, options);
  });
}

std::vector<Tensor> run_recorded(const std::vector<Var>& outputs, const std::vector<Leaf>& leaves, Device& device,
                                 const std::map<std::string, std::string>& config) {
  std::shared_ptr<Function> call = compiled_call(outputs, leaves, device, config);
  std::vector<Tensor> args;  // copies: a failed call leaves the recorded graph as it was
  args.reserve(leaves.size());
  for (const Leaf& leaf : leaves) args.push_back(leaf.value);
  return (*call)(args);
}

size_t compiled_calls_cached() { return compiled_calls().size(); }

}  // namespace tgc::eager_impl
