// The values a .tg program computes with: None, bools, integers, floats, strings, symbolic
// tensors (Var, shared variables included), concrete tensors (what generators and load()
// make, on the host or a device), lists and tuples, RandomStates, RandomStreams and compiled
// functions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <tgc/tgc.h>

namespace tgc::lang {

struct NoneValue {};
// A function() result: its index in TgProgram::functions.
struct FunctionRef {
  int index = 0;
};
struct Sequence;
struct Expr;
struct IndexedFrom;
// A lambda: its parameters and body, read from the program's syntax tree (alive while the
// program is evaluated, which is when a lambda can be called).
struct Lambda {
  std::vector<std::string> params;
  const Expr* body = nullptr;
  std::string text;  // as written, for messages
};
// until(cond): what a scan step returns beside its results to stop the loop.
struct Until {
  Var condition;
};

class Value {
 public:
  using Data = std::variant<NoneValue, bool, int64_t, double, std::string, Var, Tensor,
                            std::shared_ptr<const Sequence>, std::shared_ptr<RandomState>, FunctionRef,
                            std::shared_ptr<const Lambda>, Until, std::shared_ptr<RandomStreams>>;

  Value() = default;
  Value(bool b) : data_(b) {}                      // NOLINT: implicit by design
  Value(int64_t i) : data_(i) {}                   // NOLINT
  Value(int i) : data_(static_cast<int64_t>(i)) {}  // NOLINT
  Value(double d) : data_(d) {}                    // NOLINT
  Value(std::string s) : data_(std::move(s)) {}    // NOLINT
  Value(const char* s) : data_(std::string(s)) {}  // NOLINT
  Value(Var v) : data_(std::move(v)) {}            // NOLINT
  Value(Tensor t) : data_(std::move(t)) {}         // NOLINT
  Value(std::shared_ptr<RandomState> r) : data_(std::move(r)) {}  // NOLINT
  Value(FunctionRef f) : data_(f) {}               // NOLINT
  Value(std::shared_ptr<const Lambda> l) : data_(std::move(l)) {}  // NOLINT
  Value(Until u) : data_(std::move(u)) {}          // NOLINT
  Value(std::shared_ptr<RandomStreams> s) : data_(std::move(s)) {}  // NOLINT
  static Value list(std::vector<Value> items);
  static Value tuple(std::vector<Value> items);
  static Value vars(const std::vector<Var>& vars);  // a list
  // How deeply sequences nest in this value: 0 for anything but a list or tuple.
  int nesting() const;
  // A concrete tensor computed by basic indexing of another value (x = a[0, 1:]), which
  // remembers that value and the index: set_subtensor(x, v) then writes into a copy of a, as
  // it does for a symbolic a[0, 1:] (concrete.cpp).
  static Value indexed(Tensor value, Value base, std::vector<Index> index);
  const IndexedFrom* indexed_from() const { return indexed_.get(); }

  bool is_none() const { return holds<NoneValue>(); }
  bool is_bool() const { return holds<bool>(); }
  bool is_int() const { return holds<int64_t>(); }
  bool is_float() const { return holds<double>(); }
  bool is_number() const { return is_bool() || is_int() || is_float(); }
  bool is_string() const { return holds<std::string>(); }
  bool is_var() const { return holds<Var>(); }
  bool is_shared() const;
  bool is_tensor() const { return holds<Tensor>(); }
  bool is_sequence() const { return holds<std::shared_ptr<const Sequence>>(); }
  bool is_tuple() const;
  bool is_rng() const { return holds<std::shared_ptr<RandomState>>(); }
  bool is_function() const { return holds<FunctionRef>(); }
  bool is_lambda() const { return holds<std::shared_ptr<const Lambda>>(); }
  bool is_until() const { return holds<Until>(); }
  bool is_streams() const { return holds<std::shared_ptr<RandomStreams>>(); }

  bool as_bool() const { return std::get<bool>(data_); }
  int64_t as_int() const { return is_bool() ? static_cast<int64_t>(as_bool()) : std::get<int64_t>(data_); }
  double as_double() const;  // any number
  const std::string& as_string() const { return std::get<std::string>(data_); }
  const Var& as_var() const { return std::get<Var>(data_); }
  const Tensor& as_tensor() const { return std::get<Tensor>(data_); }
  const std::vector<Value>& items() const;
  const std::shared_ptr<RandomState>& as_rng() const { return std::get<std::shared_ptr<RandomState>>(data_); }
  FunctionRef as_function() const { return std::get<FunctionRef>(data_); }
  const Lambda& as_lambda() const { return *std::get<std::shared_ptr<const Lambda>>(data_); }
  const Until& as_until() const { return std::get<Until>(data_); }
  const std::shared_ptr<RandomStreams>& as_streams() const { return std::get<std::shared_ptr<RandomStreams>>(data_); }

  // How messages name the value: "an integer", "a symbolic float32 matrix (?, 784)".
  std::string describe() const;

 private:
  template <typename T>
  bool holds() const { return std::holds_alternative<T>(data_); }
  Data data_;
  std::shared_ptr<const IndexedFrom> indexed_;  // set by indexed() only
};

struct IndexedFrom {
  Value base;                // a concrete tensor, itself possibly indexed from another
  std::vector<Index> index;  // basic entries only: integers, slices, newaxis
};

struct Sequence {
  std::vector<Value> items;
  bool is_tuple = false;
  int depth = 1;  // how deeply sequences nest in it (a flat list is 1)
};

}  // namespace tgc::lang
