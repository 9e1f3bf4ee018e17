// Short unique names for the variables of a graph as tgc show prints them: the user's name,
// a constant's value, or t0, t1, ... for unnamed intermediates.
#pragma once

#include <set>
#include <string>
#include <unordered_map>

#include "ops/core/variable.h"

namespace tgc::printing {

class GraphNames {
 public:
  // The same variable always gets the same name; two variables never share one (a second
  // "x" becomes "x_2"), except constants, which print as their value.
  const std::string& of(const Variable* v);

 private:
  std::unordered_map<const Variable*, std::string> names_;
  std::set<std::string> taken_;
  int counter_ = 0;
};

}  // namespace tgc::printing
