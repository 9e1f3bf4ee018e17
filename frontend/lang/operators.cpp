// The evaluator's operators: Python arithmetic on numbers (folded now, with overflow and
// division-by-zero errors), and the C++ API's ops on tensors (+ - * / // % ** @,
// comparisons, & | ^ ~ on bools), computed now when the tensors are concrete values.
#include <fmt/format.h>

#include <cmath>

#include "frontend/lang/concrete.h"
#include "frontend/lang/convert.h"
#include "frontend/lang/evaluator.h"
#include "frontend/lang/guarded.h"

namespace tgc::lang {

namespace {

std::string op_text(Tok op) {
  std::string s = tok_name(op);
  return s.size() > 2 && s.front() == '\'' ? s.substr(1, s.size() - 2) : s;
}

bool is_tensor_like(const Value& v) { return v.is_var() || v.is_tensor(); }

// Python's // and % on integers (floor division, remainder with the divisor's sign).
int64_t floor_div_int(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t mod_int(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

class Folder {
 public:
  Folder(const SourceText& src, Pos pos, Tok op) : src_(src), pos_(pos), op_(op) {}

  Value fold(const Value& a, const Value& b) {
    switch (op_) {
      case Tok::Lt: case Tok::Le: case Tok::Gt: case Tok::Ge: case Tok::EqEq: case Tok::NotEq:
        return compare(a, b);
      case Tok::Amp: case Tok::Pipe: case Tok::Caret:
        return bitwise(a, b);
      default:
        break;
    }
    if (!a.is_float() && !b.is_float()) return integer(a.as_int(), b.as_int());
    return real(a.as_double(), b.as_double());
  }

 private:
  [[noreturn]] void fail(const std::string& message, const std::string& hint) const {
    throw src_.error(pos_, message, hint);
  }

  Value compare(const Value& a, const Value& b) const {
    auto cmp = [&](auto x, auto y) -> bool {
      switch (op_) {
        case Tok::Lt: return x < y;
        case Tok::Le: return x <= y;
        case Tok::Gt: return x > y;
        case Tok::Ge: return x >= y;
        case Tok::EqEq: return x == y;
        default: return x != y;
      }
    };
    if (!a.is_float() && !b.is_float()) return cmp(a.as_int(), b.as_int());
    return cmp(a.as_double(), b.as_double());
  }

  Value bitwise(const Value& a, const Value& b) const {
    if (a.is_float() || b.is_float())
      fail("operator " + op_text(op_) + " needs bools or integers, got a float", "& | ^ are logical on bools and bitwise on integers");
    const int64_t x = a.as_int(), y = b.as_int();
    const int64_t r = op_ == Tok::Amp ? (x & y) : op_ == Tok::Pipe ? (x | y) : (x ^ y);
    if (a.is_bool() && b.is_bool()) return r != 0;
    return r;
  }

  Value integer(int64_t a, int64_t b) const {
    int64_t r = 0;
    bool overflow = false;
    switch (op_) {
      case Tok::Plus: overflow = __builtin_add_overflow(a, b, &r); break;
      case Tok::Minus: overflow = __builtin_sub_overflow(a, b, &r); break;
      case Tok::Star: overflow = __builtin_mul_overflow(a, b, &r); break;
      case Tok::Slash:
        if (b == 0) fail("division by zero", "the divisor is 0");
        return static_cast<double>(a) / static_cast<double>(b);
      case Tok::DoubleSlash: case Tok::Percent:
        if (b == 0) fail("integer division by zero", "the divisor is 0");
        if (a == INT64_MIN && b == -1) {
          if (op_ == Tok::Percent) return int64_t{0};
          overflow = true;
          break;
        }
        return op_ == Tok::DoubleSlash ? floor_div_int(a, b) : mod_int(a, b);
      case Tok::DoubleStar:
        if (b < 0) {
          if (a == 0) fail("0 cannot be raised to a negative power", "the result would be infinite");
          return std::pow(static_cast<double>(a), static_cast<double>(b));
        }
        r = 1;
        for (int64_t base = a, e = b; e > 0 && !overflow; e >>= 1) {
          if (e & 1) overflow = __builtin_mul_overflow(r, base, &r);
          if (e > 1 && !overflow) overflow = __builtin_mul_overflow(base, base, &base);
        }
        break;
      case Tok::At:
        fail("operator @ needs tensors, got numbers", "@ is the matrix product; multiply numbers with *");
      default:
        fail("operator " + op_text(op_) + " is not defined for numbers", "see docs/language.md");
    }
    if (overflow)
      fail(fmt::format("integer overflow: {} {} {} does not fit in 64 bits", a, op_text(op_), b),
           "write one operand as a float (e.g. 2.0) for a floating-point result");
    return r;
  }

  Value real(double a, double b) const {
    switch (op_) {
      case Tok::Plus: return a + b;
      case Tok::Minus: return a - b;
      case Tok::Star: return a * b;
      case Tok::Slash:
        if (b == 0) fail("division by zero", "the divisor is 0");
        return a / b;
      case Tok::DoubleSlash:
        if (b == 0) fail("division by zero", "the divisor is 0");
        return std::floor(a / b);
      case Tok::Percent: {
        if (b == 0) fail("division by zero", "the divisor is 0");
        double r = std::fmod(a, b);
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
      }
      case Tok::DoubleStar:
        if (a == 0 && b < 0) fail("0.0 cannot be raised to a negative power", "the result would be infinite");
        if (a < 0 && std::isfinite(b) && std::trunc(b) != b)
          fail("a negative number to a fractional power is complex", "tgc has no complex numbers");
        return std::pow(a, b);
      case Tok::At:
        fail("operator @ needs tensors, got numbers", "@ is the matrix product; multiply numbers with *");
      default:
        fail("operator " + op_text(op_) + " is not defined for numbers", "see docs/language.md");
    }
  }

  const SourceText& src_;
  Pos pos_;
  Tok op_;
};

}  // namespace

Value Evaluator::unary(const Expr& e) {
  const Value v = eval(*e.items[0]);
  const Tok op = e.op;
  if (v.is_number()) {
    if (op == Tok::Plus) return v.is_bool() ? Value(v.as_int()) : v;
    if (op == Tok::Minus) {
      if (v.is_float()) return -v.as_double();
      if (v.as_int() == INT64_MIN)
        throw ctx_.src.error(e.pos, "integer overflow: -(-2**63) does not fit in 64 bits", "write it as a float");
      return -v.as_int();
    }
    if (v.is_bool()) return !v.as_bool();  // ~
    if (v.is_int()) return ~v.as_int();
    throw ctx_.src.error(e.pos, "operator ~ needs a bool or an integer, got a float", "~ is logical not on bools");
  }
  if (!is_tensor_like(v))
    throw ctx_.src.error(e.pos, fmt::format("operator {} is not defined for {}", op_text(op), v.describe()),
                         "unary operators apply to numbers and tensors");
  auto apply = [&](const std::vector<Value>& operand) -> Value {
    const Var x = to_var(operand[0], ctx_, e.items[0]->start, "the operand");
    return guarded(ctx_.src, e.pos, [&]() -> Var {
      if (op == Tok::Plus) return x;
      if (op == Tok::Minus) return neg(x);
      return !x;
    });
  };
  if (v.is_tensor()) return compute_now(ctx_, e.pos, {{&v, e.items[0]->start}}, OnConcrete::Compute, apply);
  return apply({v});
}

// A left-deep chain (a + b + c + ..., the parser's shape for left-associative operators) is
// evaluated from its innermost link outward in a loop: its length is not nesting, and the
// stack stays flat however long it is.
Value Evaluator::binary(const Expr& e) {
  std::vector<const Expr*> spine{&e};
  while (spine.back()->items[0]->kind == Expr::Kind::Binary) spine.push_back(spine.back()->items[0].get());
  Value acc = eval(*spine.back()->items[0]);
  for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
    const Value b = eval(*(*it)->items[1]);
    acc = apply_binary(**it, acc, b);
  }
  return acc;
}

Value Evaluator::apply_binary(const Expr& e, const Value& a, const Value& b) {
  const Tok op = e.op;
  if (a.is_number() && b.is_number()) return Folder(ctx_.src, e.pos, op).fold(a, b);
  // Lists join with +, as in Python.
  if (op == Tok::Plus && a.is_sequence() && b.is_sequence() && !is_tensor_like(a)) {
    const size_t n = a.items().size() + b.items().size();
    if (static_cast<int64_t>(n) > ctx_.limits.max_list_items)
      throw ctx_.src.error(e.pos,
                           fmt::format("this {} would have {} items, more than the limit of {}",
                                       a.is_tuple() ? "tuple" : "list", n, ctx_.limits.max_list_items),
                           "build large values with generators (zeros, arange, rand, ...) or load() them");
    std::vector<Value> items = a.items();
    items.insert(items.end(), b.items().begin(), b.items().end());
    return a.is_tuple() ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  }
  const bool a_ok = a.is_number() || is_tensor_like(a), b_ok = b.is_number() || is_tensor_like(b);
  if (!a_ok || !b_ok || (!is_tensor_like(a) && !is_tensor_like(b)))
    throw ctx_.src.error(e.pos,
                         fmt::format("operator {} is not defined for {} and {}", op_text(op), a.describe(), b.describe()),
                         "operators apply to numbers and tensors");
  const Pos pa = e.items[0]->start, pb = e.items[1]->start;
  // Concrete operands (and numbers): the operation runs now, built on the eager leaves.
  if (all_concrete({{&a, pa}, {&b, pb}}))
    return compute_now(ctx_, e.pos, {{&a, pa}, {&b, pb}}, OnConcrete::Compute,
                       [&](const std::vector<Value>& v) { return apply_binary(e, v[0], v[1]); });
  auto L = [&] { return to_operand(a, ctx_, pa, "the left operand"); };
  auto R = [&] { return to_operand(b, ctx_, pb, "the right operand"); };
  return guarded(ctx_.src, e.pos, [&]() -> Var {
    switch (op) {
      case Tok::Plus: return add(L(), R());
      case Tok::Minus: return sub(L(), R());
      case Tok::Star: return mul(L(), R());
      case Tok::Slash: return true_div(L(), R());
      case Tok::DoubleSlash: return floor_div(L(), R());
      case Tok::Percent: return mod(L(), R());
      case Tok::DoubleStar: return pow(L(), R());
      case Tok::At: return matmul(to_var(a, ctx_, pa, "the left operand"), to_var(b, ctx_, pb, "the right operand"));
      case Tok::Lt: return lt(L(), R());
      case Tok::Le: return le(L(), R());
      case Tok::Gt: return gt(L(), R());
      case Tok::Ge: return ge(L(), R());
      case Tok::EqEq: return eq(L(), R());
      case Tok::NotEq: return neq(L(), R());
      case Tok::Amp: case Tok::Pipe: case Tok::Caret: {
        // & | ^ are logical on bool tensors; a number operand is read as a bool.
        if (a.is_number() || b.is_number()) {
          const bool number_left = a.is_number();
          const double n = number_left ? a.as_double() : b.as_double();
          const Var x = to_var(number_left ? b : a, ctx_, number_left ? pb : pa, "the operand");
          if (op == Tok::Amp) return number_left ? n & x : x & n;
          if (op == Tok::Pipe) return number_left ? n | x : x | n;
          return number_left ? n ^ x : x ^ n;
        }
        const Var x = to_var(a, ctx_, pa, "the left operand"), y = to_var(b, ctx_, pb, "the right operand");
        if (op == Tok::Amp) return x & y;
        if (op == Tok::Pipe) return x | y;
        return x ^ y;
      }
      default:
        throw ctx_.src.error(e.pos, "operator " + op_text(op) + " is not supported", "see docs/language.md");
    }
  });
}

}  // namespace tgc::lang
