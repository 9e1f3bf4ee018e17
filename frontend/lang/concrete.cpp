// Concrete values computed at once, through the eager API: the operands' concrete tensors
// become leaves, the operation's own builder runs on them (concrete.h).
#include "frontend/lang/concrete.h"

#include <fmt/format.h>

#include "frontend/lang/guarded.h"

namespace tgc::lang {

namespace {

// Whether v holds a concrete tensor / a symbolic one, looking into lists and tuples.
void scan_kinds(const Value& v, bool& concrete, bool& symbolic) {
  if (v.is_tensor()) concrete = true;
  if (v.is_var() || v.is_until()) symbolic = true;
  if (v.is_sequence())
    for (const Value& item : v.items()) scan_kinds(item, concrete, symbolic);
}

// The concrete tensors of v, in the order substitute() replaces them, each with the position
// of the operand holding it. With `rebuild_indexed`, a tensor indexed from another stands for
// its base (the indexing is done again over the base's leaf).
void collect(const Value& v, Pos pos, bool rebuild_indexed, std::vector<std::pair<Tensor, Pos>>& out) {
  if (const IndexedFrom* from = v.indexed_from(); from && rebuild_indexed) {
    collect(from->base, pos, rebuild_indexed, out);
  } else if (v.is_tensor()) {
    out.emplace_back(v.as_tensor(), pos);
  } else if (v.is_sequence()) {
    for (const Value& item : v.items()) collect(item, pos, rebuild_indexed, out);
  }
}

Value substitute(const Value& v, const std::vector<Var>& leaves, size_t& next, bool rebuild_indexed) {
  if (const IndexedFrom* from = v.indexed_from(); from && rebuild_indexed)
    return substitute(from->base, leaves, next, rebuild_indexed).as_var()[from->index];
  if (v.is_tensor()) return leaves.at(next++);
  if (!v.is_sequence()) return v;
  std::vector<Value> items;
  items.reserve(v.items().size());
  for (const Value& item : v.items()) items.push_back(substitute(item, leaves, next, rebuild_indexed));
  return v.is_tuple() ? Value::tuple(std::move(items)) : Value::list(std::move(items));
}

// Operands on two devices: an error at the first operand off the first one's device.
void check_one_device(const std::vector<std::pair<Tensor, Pos>>& tensors, Context& ctx) {
  Device& first = tensors.front().first.device();
  for (const auto& [t, pos] : tensors) {
    if (&t.device() == &first) continue;
    const std::string a = device_name(first), b = device_name(t.device());
    throw ctx.src.error(pos, fmt::format("an operation on values of two devices: an operand on {}, this one on {}", a, b),
                        fmt::format("bring them to one device first: x.to(\"{}\") (to_device(x, \"{}\")), or x.get() "
                                    "for the host",
                                    a, a));
  }
}

}  // namespace

bool all_concrete(const std::vector<OperandAt>& operands) {
  bool concrete = false, symbolic = false;
  for (const OperandAt& op : operands) scan_kinds(*op.value, concrete, symbolic);
  return concrete && !symbolic;
}

Value compute_now(Context& ctx, Pos pos, const std::vector<OperandAt>& operands, OnConcrete how,
                  const std::function<Value(const std::vector<Value>&)>& build) {
  const bool rebuild_indexed = how == OnConcrete::ComputeIndexed;
  std::vector<std::pair<Tensor, Pos>> found;
  for (const OperandAt& op : operands) collect(*op.value, op.pos, rebuild_indexed, found);
  TGC_INTERNAL_CHECK(!found.empty(), "compute_now: no concrete operand");
  check_one_device(found, ctx);
  std::vector<Tensor> tensors;
  tensors.reserve(found.size());
  for (auto& [t, p] : found) tensors.push_back(t);
  // The operation built over the leaves, exactly as over symbolic operands.
  auto built = [&](const std::vector<Var>& leaves) {
    std::vector<Value> values;
    size_t next = 0;
    for (const OperandAt& op : operands) values.push_back(substitute(*op.value, leaves, next, rebuild_indexed));
    return build(values);
  };
  return guarded(ctx.src, pos, [&]() -> Value {
    if (how != OnConcrete::ComputeList) {
      return Value(eager(
          [&](const std::vector<Var>& leaves) {
            const Value r = built(leaves);
            TGC_INTERNAL_CHECK(r.is_var(), "an operation computed now gave " + r.describe() + ", not a tensor");
            return r.as_var();
          },
          tensors));
    }
    const std::vector<Tensor> results = eager_multi(
        [&](const std::vector<Var>& leaves) {
          const Value r = built(leaves);
          TGC_INTERNAL_CHECK(r.is_sequence(), "an operation computed now gave " + r.describe() + ", not a list");
          std::vector<Var> vars;
          for (const Value& item : r.items()) {
            TGC_INTERNAL_CHECK(item.is_var(), "an operation computed now gave " + item.describe() + " in its list");
            vars.push_back(item.as_var());
          }
          return vars;
        },
        tensors);
    return Value::list(std::vector<Value>(results.begin(), results.end()));
  });
}

Device* device_of_name(const Value& v, Context& ctx, Pos pos, std::string_view what) {
  if (v.is_none()) return nullptr;
  const std::string names = "a device as `tgc --device` names it: \"cpu\", \"cuda\", \"cuda:1\", \"opencl\"";
  if (!v.is_string()) throw ctx.src.error(pos, fmt::format("{} must be a device name, got {}", what, v.describe()), "write " + names);
  try {
    return &device(v.as_string());
  } catch (const InternalError&) {
    throw;
  } catch (const Error& e) {
    throw ctx.src.error(pos, fmt::format("{}: {}", what, e.what_part()),
                        e.hint().empty() ? "`tgc devices` lists the devices here; write " + names : e.hint());
  }
}

}  // namespace tgc::lang
