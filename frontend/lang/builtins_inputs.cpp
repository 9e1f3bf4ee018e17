// Builtin rows: symbolic inputs (scalar ... tensor4, Theano's typed variants such as
// dmatrix, and tensor(dtype, ndim)) and shared variables.
#include <fmt/format.h>

#include "frontend/lang/builtins.h"
#include "frontend/lang/convert.h"
#include "runtime/rank_limit.h"

namespace tgc::lang {

namespace {

// The name of a new variable: name= if given, else the name it is assigned to.
std::string var_name(Args& a) {
  if (auto n = a.opt_string("name")) return *n;
  return a.bound_name;
}

BuiltinFn input_of_rank(int rank, std::optional<DType> fixed) {
  return [rank, fixed](Args& a) -> Value {
    const DType t = fixed ? *fixed : a.dtype("dtype").value_or(a.ctx.floatx);
    return Var(Variable::input(Type::unknown(t, rank), var_name(a)));
  };
}

Value tensor_(Args& a) {
  const DType t = a.dtype("dtype").value_or(a.ctx.floatx);
  std::optional<int64_t> ndim = a.opt_integer("ndim");
  if (ndim && (*ndim < 0 || *ndim > kMaxRank))
    a.fail("ndim", fmt::format("tensor(): ndim {} is out of range", *ndim),
           fmt::format("a tensor has 0 to {} dimensions (NumPy's limit)", kMaxRank));
  std::vector<int64_t> shape;
  if (!a.is_none("shape")) {
    const Value& v = a.value("shape");
    if (!v.is_sequence())
      a.fail("shape", "argument 'shape' of tensor must be a list or tuple, got " + v.describe(),
             "write e.g. shape=(None, 784), None for an unknown size");
    for (const Value& d : v.items()) {
      if (d.is_none()) {
        shape.push_back(kUnknownDim);
      } else if (d.is_int() && d.as_int() >= 0) {
        shape.push_back(d.as_int());
      } else {
        a.fail("shape", "tensor(): a size must be an integer >= 0 or None, got " + d.describe(),
               "write e.g. shape=(None, 784)");
      }
    }
    if (static_cast<int>(shape.size()) > kMaxRank)
      a.fail("shape", fmt::format("tensor(): {} dimensions, more than the limit of {}", shape.size(), kMaxRank),
             fmt::format("a tensor has 0 to {} dimensions (NumPy's limit)", kMaxRank));
    if (ndim && *ndim != static_cast<int64_t>(shape.size()))
      a.fail("ndim", fmt::format("tensor(): ndim={} but the shape has {} sizes", *ndim, shape.size()),
             "give ndim or shape (or both, agreeing)");
    Shape known;
    for (int64_t d : shape) known.push_back(d == kUnknownDim ? 1 : d);
    check_shape(known, a.ctx, a.arg("shape").pos, "tensor");
  } else if (ndim) {
    shape.assign(*ndim, kUnknownDim);
  } else {
    a.fail_at(a.pos, "tensor() needs ndim or shape", "e.g. tensor(\"float32\", 3) or tensor(shape=(None, 784))");
  }
  return Var(Variable::input(Type(t, std::move(shape)), var_name(a)));
}

Value shared_(Args& a) {
  Tensor value = a.tensor("value");
  if (auto t = a.dtype("dtype")) value = value.astype(*t);
  // A device value stays on its device (the C++ API's borrow; a function of that device reads
  // it there): the value itself with borrow=true, else a copy made there. A host value is
  // copied unless borrowed, as in Theano.
  if (!value.on_host()) return Value(Var(shared(a.boolean("borrow") ? value : value.copy(), var_name(a), true)));
  return Value(Var(shared(value, var_name(a), a.boolean("borrow"))));
}

Value get_value_(Args& a) {
  const Value& v = a.value("x");
  if (!v.is_shared())
    a.fail("x", "get_value() needs a shared variable, got " + v.describe(), "call it on a variable made by shared(...)");
  return Shared(v.as_var().ptr()).get_value(a.boolean("borrow"));
}

}  // namespace

std::vector<BuiltinRow> input_builtins() {
  std::vector<BuiltinRow> rows;
  const char* kRanks[] = {"scalar", "vector", "matrix", "tensor3", "tensor4"};
  for (int rank = 0; rank < 5; ++rank)
    rows.push_back({kRanks[rank], "name=None, dtype=None",
                    fmt::format("a symbolic {} input{}; dtype defaults to floatX, name to the assigned name",
                                rank_name(rank), rank == 0 ? " (0-d)" : ""),
                    input_of_rank(rank, std::nullopt)});
  rows.push_back({"tensor", "dtype=None, ndim=None, name=None, shape=None",
                  "a symbolic input of any rank: tensor(\"float32\", 3), or with static sizes: tensor(shape=(None, 784))",
                  tensor_});
  // Theano's typed constructors: b/w/i/l = int8/16/32/64, f/d = float32/64 (bmatrix ... dtensor4).
  const std::pair<char, DType> kPrefixes[] = {{'b', DType::Int8},  {'w', DType::Int16},   {'i', DType::Int32},
                                              {'l', DType::Int64}, {'f', DType::Float32}, {'d', DType::Float64}};
  for (const auto& [prefix, dtype] : kPrefixes)
    for (int rank = 0; rank < 5; ++rank)
      rows.push_back({std::string(1, prefix) + kRanks[rank], "name=None",
                      fmt::format("a symbolic {} {} input", dtype_name(dtype), rank_name(rank)),
                      input_of_rank(rank, dtype)});
  rows.push_back({"shared", "value, name=None, dtype=None, borrow=false",
                  "a shared variable holding value (its dtype, or dtype converted); name defaults to the assigned name; "
                  "a device value stays on its device",
                  shared_});
  rows.push_back({"get_value", "x, borrow=false",
                  "the current value of the shared variable x, on the host; borrow=true: the value itself, where it is "
                  "(a device value stays there)",
                  get_value_, kTensorMethod});
  return rows;
}

}  // namespace tgc::lang
