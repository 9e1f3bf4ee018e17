// Var: the value-type handle to a symbolic tensor that users build graphs with, plus the
// symbolic constructors (scalar/vector/matrix/...), constants and shared variables.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ops/core/variable.h"
#include "runtime/config.h"
#include "runtime/export.h"
#include "runtime/tensor.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

struct Index;

// Axes of a reduction: none given means all axes.
struct Axes {
  std::optional<std::vector<int>> axes;
  Axes() = default;
  Axes(int axis) : axes(std::vector<int>{axis}) {}  // NOLINT: implicit by design (x.sum(0))
  Axes(std::initializer_list<int> list) : axes(std::vector<int>(list)) {}
  Axes(std::vector<int> list) : axes(std::move(list)) {}  // NOLINT
};

class Var {
 public:
  Var() = default;
  explicit Var(VarPtr v) : v_(std::move(v)) {}

  bool defined() const { return v_ != nullptr; }
  const VarPtr& ptr() const { return v_; }
  const Type& type() const { return v_->type(); }
  DType dtype() const { return v_->type().dtype; }
  int ndim() const { return v_->type().ndim(); }
  const std::string& name() const { return v_->name(); }
  // Names the variable (errors, profiles and printed graphs use the name); returns *this.
  Var& named(std::string name) { v_->set_name(std::move(name)); return *this; }
  // Same as named(), for a temporary: auto p_1 = (1 / (1 + exp(-dot(x, w) - b))).as("p_1");
  Var as(std::string name) const { v_->set_name(std::move(name)); return *this; }

  // Theano's methods on tensors; each is the free function of the same name.
  Var T() const;                                     // reversed axes
  Var transpose(const std::vector<int>& perm) const;
  Var reshape(const std::vector<int64_t>& shape) const;  // one -1 allowed
  Var flatten(int ndim = 1) const;
  // Pattern entries are input axes or -1 for a new broadcastable axis ('x' in Theano).
  Var dimshuffle(const std::vector<int>& pattern) const;
  Var astype(DType dtype) const;
  Var sum(Axes axes = {}, bool keepdims = false) const;
  Var prod(Axes axes = {}, bool keepdims = false) const;
  Var mean(Axes axes = {}, bool keepdims = false) const;
  Var max(Axes axes = {}, bool keepdims = false) const;
  Var min(Axes axes = {}, bool keepdims = false) const;
  Var argmax(std::optional<int> axis = std::nullopt, bool keepdims = false) const;
  Var argmin(std::optional<int> axis = std::nullopt, bool keepdims = false) const;
  // NumPy indexing: x[{1, slice(2, {}), newaxis}], x[{colon, 0}], x[idx] with an integer Var.
  Var operator[](const std::vector<Index>& index) const;
  Var operator[](int64_t i) const;
  Var operator[](const Var& indices) const;

 private:
  VarPtr v_;
};

// A shared variable: a Var whose value lives across calls (Theano's theano.shared).
class Shared : public Var {
 public:
  Shared() = default;
  explicit Shared(VarPtr v) : Var(std::move(v)) {}
  Tensor get_value(bool borrow = false) const;
  void set_value(const Tensor& value, bool borrow = false) const;
};

// One entry of an index expression.
struct Slice {
  std::optional<int64_t> start, stop, step;
};
struct NewAxis {};
inline constexpr NewAxis newaxis{};
inline Slice slice(std::optional<int64_t> start = std::nullopt,
                   std::optional<int64_t> stop = std::nullopt,
                   std::optional<int64_t> step = std::nullopt) {
  return Slice{start, stop, step};
}
inline const Slice colon{};  // x[{colon, 0}] is x[:, 0]

struct Index {
  std::variant<int64_t, Slice, NewAxis, Var> entry;
  Index(int64_t i) : entry(i) {}  // NOLINT: implicit by design
  Index(int i) : entry(static_cast<int64_t>(i)) {}  // NOLINT
  Index(Slice s) : entry(s) {}    // NOLINT
  Index(NewAxis n) : entry(n) {}  // NOLINT
  Index(Var v) : entry(std::move(v)) {}  // NOLINT: an integer tensor, advanced indexing
};

// The dtype of untyped constructors and literals (config key floatX).
DType floatX();

// Symbolic inputs. dtype defaults to floatX.
Var scalar(const std::string& name = "", std::optional<DType> dtype = std::nullopt);
Var vector(const std::string& name = "", std::optional<DType> dtype = std::nullopt);
Var matrix(const std::string& name = "", std::optional<DType> dtype = std::nullopt);
Var tensor3(const std::string& name = "", std::optional<DType> dtype = std::nullopt);
Var tensor4(const std::string& name = "", std::optional<DType> dtype = std::nullopt);
// Any rank; `shape` gives static dims, kUnknownDim (-1) where unknown.
Var tensor(const std::string& name, DType dtype, std::vector<int64_t> shape);

Var constant(const Tensor& value, const std::string& name = "");
Var constant(double value, DType dtype);

// A shared variable holding `value` (copied unless borrow).
Shared shared(const Tensor& value, const std::string& name = "", bool borrow = false);

// The expression `x` holds; TypeError when `x` is undefined (a default-constructed Var).
const VarPtr& checked_ptr(const Var& x);
// checked_ptr of each Var.
std::vector<VarPtr> to_ptrs(const std::vector<Var>& vars);

TGC_API_END
}  // namespace tgc
