// The .tg builtins of lists, Python's: range, len, zip and enumerate, what comprehensions
// ([f(w) for w in params], docs/language.md#comprehensions) iterate over to build the layers,
// parameter lists and updates of a network.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

#include "frontend/lang/builtins.h"

namespace tgc::lang {

namespace {

Value range_(Args& a) {
  int64_t start = 0, stop = a.integer("start"), step = 1;
  if (!a.is_none("stop")) {
    start = stop;
    stop = a.integer("stop");
  }
  if (!a.is_none("step")) step = a.integer("step");
  if (step == 0) a.fail("step", "range: step must not be zero", "count up with a positive step, down with a negative one");
  // Counted in floating point first: start and stop may be near the int64 limits.
  const double count = std::max(0.0, std::ceil((static_cast<double>(stop) - static_cast<double>(start)) / static_cast<double>(step)));
  // A range counts layers or steps: one longer than the program's loop budget is data.
  const int64_t budget = a.ctx.limits.max_loop_steps - a.ctx.loop_steps;
  if (count > static_cast<double>(std::min(budget, a.ctx.limits.max_list_items)))
    a.fail(a.is_none("stop") ? "start" : "stop",
           fmt::format("range: {:.0f} items is more than a program's lists and loops may hold ({} in all)", count,
                       std::min(a.ctx.limits.max_loop_steps, a.ctx.limits.max_list_items)),
           "a range counts layers or steps; data belongs in a tensor: arange(n)");
  a.ctx.loop_steps += static_cast<int64_t>(count);
  std::vector<Value> items;
  for (int64_t i = 0, v = start; i < static_cast<int64_t>(count); ++i, v += step) items.emplace_back(v);
  return Value::list(std::move(items));
}

Value len_(Args& a) {
  const Value& v = a.value("x");
  if (v.is_sequence()) return static_cast<int64_t>(v.items().size());
  if (v.is_tensor() || v.is_var() || v.is_shared()) {
    const Shape shape = v.is_tensor() ? v.as_tensor().shape() : a.var("x").type().shape;
    if (shape.empty()) a.fail("x", "len() of a 0-d tensor", "a 0-d tensor has no length; its shape is ()");
    if (shape[0] == kUnknownDim)
      a.fail("x", "len(): the length of " + v.describe() + " is not known until it is computed",
             "its first dimension is symbolic; use shape(x)[0] for a symbolic length");
    return shape[0];
  }
  a.fail("x", "len() of " + v.describe(), "len() takes a list, a tuple or a tensor");
}

// The lists' items side by side, as long as the shortest (Python's zip).
Value zip_(Args& a) {
  if (a.rest().empty()) return Value::list({});
  size_t n = SIZE_MAX;
  for (const ArgValue& arg : a.rest()) {
    if (!arg.value.is_sequence())
      a.fail_at(arg.pos, "zip() takes lists or tuples, not " + arg.value.describe(), "zip(params, grads)");
    n = std::min(n, arg.value.items().size());
  }
  std::vector<Value> items;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Value> row;
    for (const ArgValue& arg : a.rest()) row.push_back(arg.value.items()[i]);
    items.push_back(Value::tuple(std::move(row)));
  }
  return Value::list(std::move(items));
}

Value enumerate_(Args& a) {
  const Value& v = a.value("items");
  if (!v.is_sequence()) a.fail("items", "enumerate() takes a list or a tuple, not " + v.describe(), "enumerate(layers)");
  int64_t i = a.integer("start");
  std::vector<Value> items;
  for (const Value& item : v.items()) items.push_back(Value::tuple({Value(i++), item}));
  return Value::list(std::move(items));
}

}  // namespace

std::vector<BuiltinRow> list_builtins() {
  return {
      {"range", "start, stop=None, step=None",
       "Python's range as a list of ints: range(4) is [0, 1, 2, 3], range(1, 7, 2) is [1, 3, 5] (the program's "
       "ranges and comprehension steps: 2**22 in all)",
       range_},
      {"len", "x", "the number of items of a list or tuple, or the first dimension of a tensor (known statically)", len_},
      {"zip", "*lists", "the lists' items side by side, as tuples, as long as the shortest: zip(params, grads)", zip_},
      {"enumerate", "items, start=0", "(index, item) tuples of a list: enumerate(layers)", enumerate_},
  };
}

}  // namespace tgc::lang
