// Value's constructors for sequences and its descriptions for messages.
#include "frontend/lang/value.h"

#include <algorithm>

namespace tgc::lang {

namespace {
std::shared_ptr<const Sequence> make_sequence(std::vector<Value> items, bool is_tuple) {
  int depth = 0;
  for (const Value& item : items) depth = std::max(depth, item.nesting());
  return std::make_shared<const Sequence>(Sequence{std::move(items), is_tuple, depth + 1});
}
}  // namespace

Value Value::list(std::vector<Value> items) {
  Value v;
  v.data_ = make_sequence(std::move(items), false);
  return v;
}

Value Value::tuple(std::vector<Value> items) {
  Value v;
  v.data_ = make_sequence(std::move(items), true);
  return v;
}

Value Value::indexed(Tensor value, Value base, std::vector<Index> index) {
  Value v(std::move(value));
  v.indexed_ = std::make_shared<const IndexedFrom>(IndexedFrom{std::move(base), std::move(index)});
  return v;
}

int Value::nesting() const { return is_sequence() ? std::get<std::shared_ptr<const Sequence>>(data_)->depth : 0; }

Value Value::vars(const std::vector<Var>& vars) {
  std::vector<Value> items(vars.begin(), vars.end());
  return list(std::move(items));
}

bool Value::is_shared() const { return is_var() && as_var().ptr()->kind() == Variable::Kind::Shared; }

bool Value::is_tuple() const { return is_sequence() && std::get<std::shared_ptr<const Sequence>>(data_)->is_tuple; }

const std::vector<Value>& Value::items() const { return std::get<std::shared_ptr<const Sequence>>(data_)->items; }

double Value::as_double() const {
  if (is_float()) return std::get<double>(data_);
  return static_cast<double>(as_int());
}

std::string Value::describe() const {
  if (is_none()) return "None";
  if (is_bool()) return "a bool";
  if (is_int()) return "an integer";
  if (is_float()) return "a float";
  if (is_string()) return "a string";
  if (is_var()) return std::string(is_shared() ? "a shared " : "a symbolic ") + as_var().type().str();
  if (is_tensor()) {
    const Tensor& t = as_tensor();
    std::string s = "a " + std::string(dtype_name(t.dtype())) + " value of shape " + shape_str(t.shape());
    if (!t.on_host()) s += " on " + device_name(t.device());
    return s;
  }
  if (is_sequence()) return is_tuple() ? "a tuple" : "a list";
  if (is_rng()) return "a RandomState";
  if (is_lambda()) return "a lambda";
  if (is_until()) return "an until condition";
  if (is_streams()) return "a RandomStreams";
  return "a function";
}

}  // namespace tgc::lang
