// The table of .tg builtins: every function a .tg file can call, one row each with its
// parameters (as a Python-style signature), a one-line description and the call into the
// C++ API. Binding of arguments, "did you mean", the signature in messages and the
// reference in docs/language.md all come from this one table.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/lang/ast.h"
#include "frontend/lang/concrete.h"
#include "frontend/lang/context.h"
#include "frontend/lang/value.h"

namespace tgc::lang {

class Args;

// The reference's sections, in the order docs/language.md lists them.
enum class Family {
  Inputs, Values, Lists, Devices, Math, Reductions, LinearAlgebra, NeuralNet, Shape, Indexing, Join, Creation,
  Convolution, Random, Gradients, ControlFlow, Functions, Distributed
};
std::string family_title(Family f);

struct Param {
  std::string name;
  bool required = true;
  bool variadic = false;  // *name: takes the remaining positional arguments
  Value default_value;    // when not required
};

// What a builtin is also a method of: x.sum(axis=0) calls sum(x, axis=0), and
// rng.rand(3) calls rand(3) drawing from the RandomState rng.
// A RandomStreams' methods are rows named "RandomStreams.uniform", ...: srng.uniform(...).
enum class Receiver { None, Tensor, Rng, Streams };
inline constexpr Receiver kTensorMethod = Receiver::Tensor;
inline constexpr Receiver kRngMethod = Receiver::Rng;

using BuiltinFn = std::function<Value(Args&)>;

// The family's OnConcrete (builtins.cpp): what its rows do on concrete values unless they say.
OnConcrete family_on_concrete(Family f);

// One table row, as the family files write it.
struct BuiltinRow {
  std::string name;
  std::string params;  // "x, axis=None, keepdims=false"; defaults are literals
  std::string doc;     // one line for the reference
  BuiltinFn call;
  Receiver receiver = Receiver::None;
  OnConcrete on_concrete = OnConcrete::Family;
};

struct Builtin {
  std::string name;
  Family family;
  std::string params_text;
  std::string doc;
  BuiltinFn call;
  Receiver receiver;
  OnConcrete on_concrete;  // never Family: the row's choice or its family's
  std::vector<Param> params;

  std::string signature() const { return name + "(" + params_text + ")"; }
};

// Every builtin, in reference order.
const std::vector<Builtin>& builtins();
const Builtin* find_builtin(std::string_view name);
std::vector<std::string> builtin_names();

// The builtin reference of docs/language.md, generated from the table: one Markdown table
// per family (builtins_doc.cpp).
std::string builtin_reference_markdown();

// The rows of each family (one file each).
std::vector<BuiltinRow> input_builtins();  // and shared variables
std::vector<BuiltinRow> value_builtins();
std::vector<BuiltinRow> list_builtins();               // Lists: range, len, zip, enumerate
std::vector<BuiltinRow> device_builtins();             // Devices: to_device, get, print, ...
std::vector<BuiltinRow> math_builtins();
std::vector<BuiltinRow> tensor_builtins(Family family);  // Reductions .. Creation
std::vector<BuiltinRow> graph_builtins(Family family);   // Gradients, Functions
std::vector<BuiltinRow> collective_builtins();          // Distributed: collectives, rank, world_size
std::vector<BuiltinRow> save_builtins();                // Functions: save, load_function, checkpoints
std::vector<BuiltinRow> control_builtins();             // ControlFlow: ifelse
std::vector<BuiltinRow> loop_builtins();                // ControlFlow: scan, until
std::vector<BuiltinRow> random_builtins();              // Random: RandomStreams and its symbolic draws
std::vector<BuiltinRow> conv_builtins();                // Convolution: conv2d, pooling, batch normalization

// One evaluated argument of a call.
struct ArgValue {
  Value value;
  Pos pos;
  const Expr* expr = nullptr;  // null for defaults and a method's object
};

// The arguments of one call, bound to the builtin's parameters, with typed accessors that
// throw a SourceError at the offending argument.
class Args {
 public:
  // Binds positional and keyword arguments like Python; SourceError for too many or
  // missing arguments and unknown or repeated keywords, naming the signature.
  Args(Context& ctx, const Builtin& fn, Pos call_pos, std::vector<ArgValue> positional,
       std::vector<std::pair<std::string, ArgValue>> keywords);

  Context& ctx;
  const Builtin& fn;
  Pos pos;                            // the call
  std::string bound_name;             // the name the result is assigned to, "" if none
  std::shared_ptr<RandomState> rng;   // set for a RandomState's method: rng.rand(...)
  std::shared_ptr<RandomStreams> streams;  // set for a RandomStreams' method: srng.uniform(...)

  const ArgValue& arg(std::string_view name) const;
  const Value& value(std::string_view name) const { return arg(name).value; }
  // The argument, a 0-d concrete tensor read as the number it holds (an integer dtype as an
  // integer, bool as bool, else a float), as NumPy reads int(a) and float(a): what
  // integer() and number() take, so arange(shape_of(v)[0]) of a value v works.
  Value scalar_value(std::string_view name) const;
  bool given(std::string_view name) const;  // passed explicitly
  bool is_none(std::string_view name) const { return value(name).is_none(); }

  Var var(std::string_view name) const;
  Operand operand(std::string_view name) const;
  Tensor tensor(std::string_view name) const;
  int64_t integer(std::string_view name) const;
  std::optional<int64_t> opt_integer(std::string_view name) const;  // None -> nullopt
  int axis_int(std::string_view name) const;                      // an int in int range
  std::optional<int> opt_axis(std::string_view name) const;
  double number(std::string_view name) const;
  bool boolean(std::string_view name) const;
  std::string string(std::string_view name) const;
  std::optional<std::string> opt_string(std::string_view name) const;
  std::optional<DType> dtype(std::string_view name) const;  // None -> nullopt
  DType required_dtype(std::string_view name) const;
  Axes axes(std::string_view name) const;                   // None, an int or a list of ints
  std::vector<int64_t> int_list(std::string_view name) const;  // an int or a list of ints
  std::vector<Var> vars(std::string_view name) const;       // a list or tuple of tensors
  // The variadic parameter's values as a shape: several ints, or one list/tuple of ints.
  std::vector<int64_t> rest_ints() const;
  const std::vector<ArgValue>& rest() const { return rest_; }

  [[noreturn]] void fail(std::string_view name, const std::string& message, const std::string& hint) const;
  [[noreturn]] void fail_at(Pos pos, const std::string& message, const std::string& hint) const;
  std::string what(std::string_view name) const;  // "argument 'axis' of sum"

 private:
  std::vector<ArgValue> bound_;  // one per non-variadic parameter
  std::vector<bool> given_;
  std::vector<ArgValue> rest_;
};

// A list of ints from a value: an int, or a list/tuple of ints (a shape, axes).
std::vector<int64_t> ints_of(const Value& v, Context& ctx, Pos pos, std::string_view what);

}  // namespace tgc::lang
