// The .tg builtins of loops: scan() with a lambda as its step, and until() to stop one
// (docs/control-flow.md). Theano's calling conventions: sequences and outputs_info entries
// are tensors or {"input": x, "taps": [...]} / {"initial": h0, "taps": [...]} dicts, None in
// outputs_info marks a result that is not fed back, and scan returns (outputs, updates).
#include <tgc/scan.h>

#include "frontend/lang/builtins.h"
#include "frontend/lang/convert.h"

namespace tgc::lang {

namespace {

// A dict literal is a list of (key, value) tuples: {"input": x, "taps": [-1]} has string keys.
bool is_pairs(const Value& v, bool string_keys) {
  if (!v.is_sequence() || v.is_tuple() || v.items().empty()) return false;
  for (const Value& item : v.items()) {
    if (!item.is_tuple() || item.items().size() != 2) return false;
    if (string_keys ? !item.items()[0].is_string() : !item.items()[0].is_var()) return false;
  }
  return true;
}
bool is_dict_entry_list(const Value& v) { return is_pairs(v, true); }
bool is_updates(const Value& v) { return is_pairs(v, false); }

// A list or tuple argument's items; a single value is a list of one; None is empty.
std::vector<ArgValue> items_of(const Args& a, std::string_view name) {
  const ArgValue& arg = a.arg(name);
  std::vector<ArgValue> out;
  if (arg.value.is_none()) return out;
  if (arg.value.is_sequence() && !is_dict_entry_list(arg.value)) {
    for (const Value& v : arg.value.items()) out.push_back(ArgValue{v, arg.pos, nullptr});
    return out;
  }
  out.push_back(arg);
  return out;
}

// {"input": x, "taps": [-1, 0]} — a dict is its (key, value) pairs.
struct Entry {
  std::optional<Value> tensor;
  std::optional<std::vector<int>> taps;
};

Entry entry_of(const Args& a, const ArgValue& item, const std::string& tensor_key, std::string_view param) {
  Entry e;
  if (!is_dict_entry_list(item.value)) {
    e.tensor = item.value;
    return e;
  }
  for (const Value& pair : item.value.items()) {
    const std::string key = pair.items()[0].as_string();
    const Value& v = pair.items()[1];
    if (key == tensor_key) {
      e.tensor = v;
    } else if (key == "taps") {
      std::vector<int> taps;
      for (int64_t t : ints_of(v, a.ctx, item.pos, "taps")) taps.push_back(static_cast<int>(t));
      e.taps = taps;
    } else {
      a.fail_at(item.pos, "unknown key '" + key + "' in an entry of " + std::string(param),
                "an entry reads {\"" + tensor_key + "\": x, \"taps\": [...]}");
    }
  }
  return e;
}

ScanStep step_of(const Args& a, const Value& returned) {
  // The step returns a tensor, a list/tuple of them, and optionally (after them) a dict of
  // updates and until(cond): (h, y), (h, until(h > 9)), ([h, y], {w: w + 1}, until(...)).
  std::vector<Value> parts;
  if (returned.is_tuple()) parts = returned.items();
  else parts.push_back(returned);
  std::vector<Var> outputs;
  Updates updates;
  Var until;
  for (const Value& p : parts) {
    if (p.is_until()) {
      until = p.as_until().condition;
    } else if (is_updates(p)) {
      for (const Value& pair : p.items()) {
        const Var target = to_var(pair.items()[0], a.ctx, a.pos, "an update's target");
        updates.push_back({Shared(target.ptr()), to_var(pair.items()[1], a.ctx, a.pos, "an update's value")});
      }
    } else if (p.is_sequence()) {
      for (const Value& x : p.items()) outputs.push_back(to_var(x, a.ctx, a.pos, "a result of the step"));
    } else {
      outputs.push_back(to_var(p, a.ctx, a.pos, "a result of the step"));
    }
  }
  return ScanStep(outputs, updates, until);
}

}  // namespace

std::vector<BuiltinRow> loop_builtins() {
  return {
      {"scan",
       "fn, sequences=None, outputs_info=None, non_sequences=None, n_steps=None, truncate_gradient=-1, "
       "go_backwards=false, name=\"scan\"",
       "Theano's loop: fn (a lambda) maps each step's sequence taps, previous results and non_sequences to "
       "results; returns (outputs, updates)",
       [](Args& a) -> Value {
         const Value& fn = a.value("fn");
         if (!fn.is_lambda())
           a.fail("fn", "the step of scan must be a lambda, got " + fn.describe(),
                  "e.g. scan(lambda x, acc: acc + x, sequences=[v], outputs_info=[0.0])");
         std::vector<tgc::Sequence> sequences;
         for (const ArgValue& item : items_of(a, "sequences")) {
           Entry e = entry_of(a, item, "input", "sequences");
           if (!e.tensor) a.fail_at(item.pos, "a sequence entry has no \"input\"", "{\"input\": x, \"taps\": [-1, 0]}");
           Var v = to_var(*e.tensor, a.ctx, item.pos, "a sequence");
           sequences.push_back(e.taps ? tgc::Sequence(v, *e.taps) : tgc::Sequence(v));
         }
         std::vector<OutputInfo> outputs_info;
         for (const ArgValue& item : items_of(a, "outputs_info")) {
           if (item.value.is_none()) {
             outputs_info.push_back(OutputInfo::none());
             continue;
           }
           Entry e = entry_of(a, item, "initial", "outputs_info");
           if (!e.tensor || e.tensor->is_none()) {
             outputs_info.push_back(OutputInfo::none());
             continue;
           }
           Var v = to_var(*e.tensor, a.ctx, item.pos, "an initial value");
           outputs_info.push_back(e.taps ? OutputInfo(v, *e.taps) : OutputInfo(v));
         }
         std::vector<Var> non_sequences;
         for (const ArgValue& item : items_of(a, "non_sequences"))
           non_sequences.push_back(to_var(item.value, a.ctx, item.pos, "a non-sequence"));
         ScanOptions options;
         const Value& n = a.value("n_steps");
         if (n.is_int()) options.n_steps = n.as_int();
         else if (!n.is_none()) options.n_steps_var = a.var("n_steps");
         options.truncate_gradient = a.integer("truncate_gradient");
         options.go_backwards = a.boolean("go_backwards");
         options.name = a.string("name");
         const Lambda& step_fn = fn.as_lambda();
         StepFn step = [&](const std::vector<Var>& args) {
           std::vector<Value> values(args.begin(), args.end());
           return step_of(a, a.ctx.call_lambda(step_fn, values, a.arg("fn").pos));
         };
         ScanResult r = scan(step, sequences, outputs_info, non_sequences, options);
         std::vector<Value> updates;
         for (const auto& [var, value] : r.updates) updates.push_back(Value::tuple({Value(Var(var)), Value(value)}));
         const Value outputs = r.outputs.size() == 1 ? Value(r.outputs[0]) : Value::vars(r.outputs);
         return Value::tuple({outputs, Value::list(updates)});
       }},
      {"until", "condition", "inside a scan step: stop the loop after the step where condition is true",
       [](Args& a) -> Value { return Until{a.var("condition")}; }},
  };
}

}  // namespace tgc::lang
