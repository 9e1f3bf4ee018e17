// Unique printed names of graph variables; see graph_names.h.
#include "frontend/printing/graph_names.h"

namespace tgc::printing {

const std::string& GraphNames::of(const Variable* v) {
  if (auto it = names_.find(v); it != names_.end()) return it->second;
  std::string name;
  if (v->kind() == Variable::Kind::Constant) {
    name = v->label();
  } else {
    std::string base = v->name().empty() && v->kind() == Variable::Kind::Result ? "" : v->label();
    if (base.empty()) {
      do base = "t" + std::to_string(counter_++);
      while (taken_.contains(base));
    }
    name = base;
    for (int k = 2; taken_.contains(name); ++k) name = base + "_" + std::to_string(k);
    taken_.insert(name);
  }
  return names_.emplace(v, std::move(name)).first->second;
}

}  // namespace tgc::printing
