// Memory planning: donors (dead buffers of the function's own), heirs (later outputs), the
// greedy pairing in schedule order, and under allow_gc off the loops that carry a chain's
// buffer into the next call.
#include "compiler/memory_plan.h"

#include <algorithm>

#include "compiler/passes/pipeline.h"

namespace tgc {

namespace {

bool fully_known(const Type& t) {
  return std::none_of(t.shape.begin(), t.shape.end(), [](int64_t d) { return d == kUnknownDim; });
}

// With gc: likely the same size at run time (a miss costs nothing). Without: surely.
bool matches(const Type& donor, const Type& heir, bool allow_gc) {
  if (donor.dtype != heir.dtype) return false;
  if (fully_known(donor) && fully_known(heir)) return shape_numel(donor.shape) == shape_numel(heir.shape);
  return allow_gc && donor.shape == heir.shape;
}

struct Schedule {
  std::vector<int> producer, out_index, last_use;
  explicit Schedule(const Program& p)
      : producer(p.num_slots, -1), out_index(p.num_slots, -1), last_use(p.num_slots, -1) {
    for (size_t i = 0; i < p.thunks.size(); ++i) {
      const int pos = static_cast<int>(i);
      const Thunk& t = p.thunks[i];
      for (int s : t.inputs) last_use[s] = pos;
      for (size_t k = 0; k < t.outputs.size(); ++k) {
        producer[t.outputs[k]] = pos;
        out_index[t.outputs[k]] = static_cast<int>(k);
        last_use[t.outputs[k]] = std::max(last_use[t.outputs[k]], pos);
      }
    }
  }
};

}  // namespace

void close_handover_loops(Program& program, const std::vector<SlotFacts>& facts) {
  const Schedule sched(program);
  std::vector<int> next(program.num_slots, -1);
  std::vector<char> has_in(program.num_slots, 0);
  for (const Thunk& t : program.thunks)
    for (const std::vector<Handover>* list : {&t.inplace, &t.reuse})
      for (const Handover& h : *list) {
        next[h.slot] = t.outputs[h.output];
        has_in[t.outputs[h.output]] = 1;
      }
  for (int head = 0; head < program.num_slots; ++head) {
    if (next[head] < 0 || has_in[head] || sched.producer[head] < 0 || facts[head].root != head) continue;
    int tail = head;
    while (next[tail] >= 0) tail = next[tail];
    if (!facts[tail].own || facts[tail].root != tail) continue;  // the caller has the last buffer
    program.thunks[sched.producer[head]].reuse.push_back({sched.out_index[head], tail});
  }
}

void plan_memory(Program& program, const std::vector<SlotFacts>& facts, bool allow_gc) {
  const int n = program.num_slots;
  const Schedule sched(program);

  // Buffers, by root slot: when the last slot sharing one is read, and which slot holds it then.
  std::vector<int> death(n, -1), holder(n, -1), members(n, 0);
  for (int s = 0; s < n; ++s) {
    const int r = facts[s].root;
    if (r < 0) continue;
    ++members[r];
    if (sched.last_use[s] > death[r] || (sched.last_use[s] == death[r] && s == r)) {
      death[r] = sched.last_use[s];
      holder[r] = s;
    }
  }
  std::vector<char> fed(n, 0), taken(n, 0);
  for (const Thunk& t : program.thunks)
    for (const Handover& h : t.inplace) {
      fed[t.outputs[h.output]] = 1;
      taken[facts[h.slot].root] = 1;  // the buffer lives on in the inplace output
    }

  std::vector<int> donors;
  for (int r = 0; r < n; ++r)
    if (facts[r].root == r && facts[r].own && sched.producer[r] >= 0 && !taken[r] && death[r] >= 0 &&
        (allow_gc || members[r] == 1))
      donors.push_back(r);
  std::stable_sort(donors.begin(), donors.end(), [&](int a, int b) { return death[a] < death[b]; });

  std::vector<int> pool;  // donors dead by now, unclaimed, in order of death
  size_t next_donor = 0;
  for (size_t i = 0; i < program.thunks.size(); ++i) {
    const int pos = static_cast<int>(i);
    if (allow_gc) pool.clear();  // only a buffer that died at the previous thunk
    while (next_donor < donors.size() && death[donors[next_donor]] < pos) {
      if (death[donors[next_donor]] == pos - 1 || !allow_gc) pool.push_back(donors[next_donor]);
      ++next_donor;
    }
    Thunk& thunk = program.thunks[i];
    for (size_t k = 0; k < thunk.outputs.size() && !pool.empty(); ++k) {
      const int o = thunk.outputs[k];
      if (fed[o] || facts[o].root != o) continue;
      // Without gc a result leaves with the caller on every call: a buffer it took would have
      // to be allocated again for its chain next time, where its own is simply allocated.
      if (!allow_gc && !facts[o].own) continue;
      for (size_t d = 0; d < pool.size(); ++d) {
        const int donor = pool[d];
        if (!matches(facts[donor].type, facts[o].type, allow_gc)) continue;
        thunk.reuse.push_back({static_cast<int>(k), holder[donor]});
        // Kept past its last reader until this thunk takes it.
        auto& frees = program.thunks[death[donor]].frees;
        frees.erase(std::remove(frees.begin(), frees.end(), holder[donor]), frees.end());
        pool.erase(pool.begin() + static_cast<long>(d));
        break;
      }
    }
  }
}

bool memory_plan_pass(Graph&, const PassContext&) { return false; }

bool memory_plan_enabled(const Config& config) {
  for (const PassInfo& p : pipeline(config.optimizer))
    if (p.name == "memory_plan") return make_pass_context(config).enabled("memory_plan");
  return false;
}

}  // namespace tgc
