// Frontend API: indexing, built from Subtensor, AdvancedSubtensor and IncSubtensor.
#include <tgc/indexing.h>

#include <fmt/format.h>

#include <tgc/shape.h>

#include "frontend/api/call_site.h"
#include "frontend/api/index_spec_of.h"
#include "ops/core/apply.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/subtensor.h"

namespace tgc {

IndexSpec index_spec_of(const std::vector<Index>& index, std::vector<Var>& arrays) {
  IndexSpec spec;
  for (const Index& i : index) {
    if (const auto* n = std::get_if<int64_t>(&i.entry)) {
      spec.entries.push_back(IndexEntry::integer(*n));
    } else if (const auto* s = std::get_if<Slice>(&i.entry)) {
      spec.entries.push_back(IndexEntry::slice(s->start, s->stop, s->step));
    } else if (std::holds_alternative<NewAxis>(i.entry)) {
      spec.entries.push_back(IndexEntry::new_axis());
    } else {
      spec.entries.push_back(IndexEntry::array());
      arrays.push_back(std::get<Var>(i.entry));
    }
  }
  return spec;
}

namespace {

Var index_var(const Var& x, const std::vector<Index>& index) {
  std::vector<Var> arrays;
  IndexSpec spec = index_spec_of(index, arrays);
  std::vector<VarPtr> inputs{checked_ptr(x)};
  for (const Var& a : arrays) inputs.push_back(checked_ptr(a));
  if (spec.has_arrays()) return Var(apply1(std::make_shared<AdvancedSubtensor>(std::move(spec)), std::move(inputs)));
  return Var(apply1(std::make_shared<Subtensor>(std::move(spec)), std::move(inputs)));
}

Var inc_or_set(IncSubtensor::Mode mode, const Var& indexed, const Var& value) {
  const char* fn = mode == IncSubtensor::Mode::Set ? "set_subtensor" : "inc_subtensor";
  const Variable& v = *checked_ptr(indexed);
  checked_ptr(value);
  const Node* owner = v.kind() == Variable::Kind::Result ? v.owner() : nullptr;
  const IndexSpec* spec = nullptr;
  if (owner) {
    if (const auto* op = dynamic_cast<const Subtensor*>(&owner->op())) spec = &op->spec();
    if (const auto* op = dynamic_cast<const AdvancedSubtensor*>(&owner->op())) spec = &op->spec();
  }
  if (!spec)
    throw TypeError(fmt::format("{}: the first argument must be an indexing expression such as x[{{0}}], but {} "
                                "is not the result of indexing",
                                fn, v.label()),
                    "", fmt::format("write {}(x[{{...}}], value) with the indexing inside the call", fn));
  std::vector<VarPtr> inputs = owner->inputs();  // {x, index arrays...}
  inputs.insert(inputs.begin() + 1, value.ptr());
  return Var(apply1(std::make_shared<IncSubtensor>(mode, *spec), std::move(inputs)));
}

}  // namespace

Var Var::operator[](const std::vector<Index>& index) const { return index_var(*this, index); }
Var Var::operator[](int64_t i) const { return index_var(*this, {Index(i)}); }
Var Var::operator[](const Var& indices) const { return index_var(*this, {Index(indices)}); }

Var set_subtensor(const Var& indexed, const Var& value) {
  return inc_or_set(IncSubtensor::Mode::Set, indexed, value);
}
Var set_subtensor(const Var& indexed, double value) {
  return inc_or_set(IncSubtensor::Mode::Set, indexed, constant(value, checked_ptr(indexed)->type().dtype));
}
Var inc_subtensor(const Var& indexed, const Var& value) {
  return inc_or_set(IncSubtensor::Mode::Inc, indexed, value);
}
Var inc_subtensor(const Var& indexed, double value) {
  return inc_or_set(IncSubtensor::Mode::Inc, indexed, constant(value, checked_ptr(indexed)->type().dtype));
}

Var take(const Var& x, const Var& indices, std::optional<int> axis) {
  if (!axis) return take(flatten(x, 1), indices, 0);
  const int nd = checked_ptr(x)->type().ndim();
  const int a = at_call(fmt::format("take({}, {})", x.ptr()->label(), checked_ptr(indices)->label()),
                        [&] { return normalize_axis(*axis, nd, "take"); });
  std::vector<Index> index(a, Index(colon));
  index.emplace_back(indices);
  return index_var(x, index);
}

}  // namespace tgc
