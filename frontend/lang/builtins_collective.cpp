// The .tg builtins of several processes: the collectives over the launch's ranks and the
// rank facts a program branches on (docs/distributed.md). Started alone, a program is rank 0
// of 1 and every collective returns its input.
#include <tgc/collective.h>

#include "frontend/lang/builtins.h"

namespace tgc::lang {

std::vector<BuiltinRow> collective_builtins() {
  return {
      {"all_reduce", "x, op=\"sum\"", "op (sum, mean, max, min) over the ranks of x, on every rank",
       [](Args& a) -> Value { return all_reduce(a.var("x"), a.string("op")); }},
      {"all_gather", "x, axis=0", "the ranks' x concatenated along axis in rank order, on every rank",
       [](Args& a) -> Value { return all_gather(a.var("x"), a.axis_int("axis")); }},
      {"reduce_scatter", "x, axis=0, op=\"sum\"",
       "op over the ranks of x; rank r keeps the r-th of world_size() equal parts along axis",
       [](Args& a) -> Value { return reduce_scatter(a.var("x"), a.axis_int("axis"), a.string("op")); }},
      {"broadcast", "x, root=0", "root's x, on every rank",
       [](Args& a) -> Value { return broadcast(a.var("x"), a.axis_int("root")); }},
      {"rank", "", "this process's rank in the launch (0 when started alone)", [](Args&) -> Value { return rank(); }},
      {"world_size", "", "how many processes the launch started (1 when started alone)",
       [](Args&) -> Value { return world_size(); }},
      {"local_rank", "", "this process's rank among those of its machine", [](Args&) -> Value { return local_rank(); }},
  };
}

}  // namespace tgc::lang
