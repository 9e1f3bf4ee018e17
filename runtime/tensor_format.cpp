// Tensor::str(): the text NumPy's print(array) shows, with NumPy's default print options
// (numpy >= 1.14, legacy=False: precision 8, floatmode 'maxprec', linewidth 75, threshold
// 1000, edgeitems 3). float32 elements are formatted from their value as a double, as NumPy
// prints array.astype(float64): that gives the tutorial's "[1.23178029 1.61879337 ...]"
// (NumPy would print float32 as "[1.2317803 1.6187934 ...]").
#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "runtime/convert.h"
#include "runtime/tensor.h"

namespace tgc {

namespace {

constexpr int kLineWidth = 75;
constexpr int64_t kThreshold = 1000;  // more elements than this are summarised
constexpr int64_t kEdgeItems = 3;     // elements shown at each end of a summarised axis
constexpr int kPrecision = 8;         // at most this many digits after the point

// ---- Decimal digits of a double --------------------------------------------------------

// |x| = d0.d1d2... * 10^exp: the shortest digits that round-trip (as Dragon4's unique mode
// and std::to_chars give), or the correctly rounded ones with `frac` digits after d0.
struct SciDigits {
  std::string digits;
  int exp = 0;
};

template <typename F>
SciDigits sci_digits(F ax, std::optional<int> frac = std::nullopt) {
  char buf[128];
  auto r = frac ? std::to_chars(buf, buf + sizeof buf, ax, std::chars_format::scientific, *frac)
                : std::to_chars(buf, buf + sizeof buf, ax, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
  size_t e = s.find('e');
  SciDigits out;
  for (char c : s.substr(0, e))
    if (c != '.') out.digits += c;
  std::string_view ex = s.substr(e + 1);
  if (ex.front() == '+') ex.remove_prefix(1);
  std::from_chars(ex.data(), ex.data() + ex.size(), out.exp);
  return out;
}

void strip_trailing_zeros(std::string& s, size_t keep = 0) {
  while (s.size() > keep && s.back() == '0') s.pop_back();
}

// Shortest digits, rounded to at most `max_frac` digits after d0; trailing zeros dropped.
template <typename F>
SciDigits sci_unique(F ax, int max_frac) {
  SciDigits s = sci_digits(ax);
  if (static_cast<int>(s.digits.size()) - 1 > max_frac) s = sci_digits(ax, max_frac);
  strip_trailing_zeros(s.digits, 1);
  return s;
}

struct Positional {
  std::string int_part;  // with its '-'
  std::string frac_part;
};

// Positional digits of x: the shortest ones when they need at most `max_frac` digits after
// the point, else x correctly rounded to `max_frac` of them; trailing zeros dropped.
template <typename F>
Positional positional_unique(F x, int max_frac) {
  F ax = std::fabs(x);
  SciDigits s = sci_digits(ax);
  const int n = static_cast<int>(s.digits.size());
  Positional p;
  if (std::max(0, n - 1 - s.exp) <= max_frac) {
    if (s.exp >= 0) {
      p.int_part = s.digits.substr(0, std::min(n, s.exp + 1)) + std::string(std::max(0, s.exp + 1 - n), '0');
      if (n > s.exp + 1) p.frac_part = s.digits.substr(static_cast<size_t>(s.exp + 1));
    } else {
      p.int_part = "0";
      p.frac_part = std::string(static_cast<size_t>(-s.exp - 1), '0') + s.digits;
    }
  } else {
    char buf[512];
    auto r = std::to_chars(buf, buf + sizeof buf, ax, std::chars_format::fixed, max_frac);
    std::string_view f(buf, static_cast<size_t>(r.ptr - buf));
    size_t dot = f.find('.');
    p.int_part = std::string(f.substr(0, dot));
    if (dot != std::string_view::npos) p.frac_part = std::string(f.substr(dot + 1));
  }
  strip_trailing_zeros(p.frac_part);
  if (std::signbit(x)) p.int_part = "-" + p.int_part;
  return p;
}

std::string exponent_str(int exp, size_t min_digits) {
  std::string d = std::to_string(std::abs(exp));
  if (d.size() < min_digits) d.insert(0, min_digits - d.size(), '0');
  return (exp < 0 ? "-" : "+") + d;
}

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// ---- Half types print their shortest digits ---------------------------------------------

// The double whose shortest digits are the shortest digits that round-trip through H: 0.1
// for float16's 0.0999755859375. Printing it as a double then shows what NumPy shows for a
// float16 (std::to_chars has no 16-bit form to ask directly).
template <typename H>
double half_display_value(H h) {
  const float f = static_cast<float>(h);
  if (!std::isfinite(f) || f == 0) return f;
  for (int frac = 0; frac < 9; ++frac) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific, frac);
    double d = 0;
    std::from_chars(buf, r.ptr, d);
    if (H(d).bits == h.bits) return d;
  }
  return f;  // unreachable: 9 significant digits identify every float, so every half
}

// ---- A 0-d tensor prints like NumPy's scalar str() ---------------------------------------

// Full shortest digits: positional with at least one digit after the point for
// 1e-4 <= |x| < 1e16 (and 0), else scientific with the point dropped when bare.
template <typename F>
std::string scalar_float_str(F x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  const long double ax = std::fabs(static_cast<long double>(x));
  if (x == 0 || (ax < 1.e16L && ax >= 1.e-4L)) {
    Positional p = positional_unique(x, 400);
    return p.int_part + "." + (p.frac_part.empty() ? "0" : p.frac_part);
  }
  SciDigits s = sci_unique(std::fabs(x), 400);
  std::string out = std::signbit(x) ? "-" : "";
  out += s.digits.substr(0, 1);
  if (s.digits.size() > 1) out += "." + s.digits.substr(1);
  return out + "e" + exponent_str(s.exp, 2);
}

// ---- Element formatters built from the displayed elements --------------------------------

// NumPy's FloatingFormat in 'maxprec' mode: decides fixed or scientific notation and the
// paddings from every displayed element, then formats each one the same way.
class FloatFormat {
 public:
  explicit FloatFormat(const std::vector<double>& values) {
    std::vector<double> finite;
    bool neg_inf = false, any_nonfinite = false;
    for (double v : values) {
      if (std::isfinite(v)) finite.push_back(v);
      else {
        any_nonfinite = true;
        neg_inf = neg_inf || (std::isinf(v) && v < 0);
      }
    }
    double max_abs = 0, min_abs = 0;
    bool any_nonzero = false;
    for (double v : finite) {
      if (v == 0) continue;
      double a = std::fabs(v);
      max_abs = any_nonzero ? std::max(max_abs, a) : a;
      min_abs = any_nonzero ? std::min(min_abs, a) : a;
      any_nonzero = true;
    }
    exp_format_ = any_nonzero && (max_abs >= 1.e8 || min_abs < 0.0001 || max_abs / min_abs > 1000.);

    if (finite.empty()) {
      pad_left_ = pad_right_ = 0;
    } else if (exp_format_) {
      for (double v : finite) {
        SciDigits s = sci_unique(std::fabs(v), kPrecision);
        precision_ = std::max(precision_, s.digits.size() - 1);
        exp_size_ = std::max(exp_size_, exponent_str(s.exp, 2).size() - 1);
        pad_left_ = std::max(pad_left_, size_t{std::signbit(v) ? 2u : 1u});
      }
      pad_right_ = exp_size_ + 2 + precision_;
    } else {
      for (double v : finite) {
        Positional p = positional_unique(v, kPrecision);
        pad_left_ = std::max(pad_left_, p.int_part.size());
        pad_right_ = std::max(pad_right_, p.frac_part.size());
      }
    }
    if (any_nonfinite) {
      // Room for "nan" and "inf" ("-inf" when a negative infinity is shown); NumPy keeps
      // the width of "inf" even when only NaNs are present, so this does too.
      const size_t offset = pad_right_ + 1;
      const size_t word = neg_inf ? 4 : 3;
      if (word > offset) pad_left_ = std::max(pad_left_, word - offset);
    }
  }

  std::string operator()(double v) const {
    if (!std::isfinite(v)) {
      std::string s = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
      return pad_left(s, pad_left_ + pad_right_ + 1);
    }
    if (exp_format_) {
      // Digits rounded to precision_ (a second pass, as NumPy does), zero-padded to it.
      SciDigits s = sci_unique(std::fabs(v), static_cast<int>(precision_));
      std::string frac = s.digits.substr(1);
      frac.resize(precision_, '0');
      std::string lead = (std::signbit(v) ? "-" : "") + s.digits.substr(0, 1);
      return pad_left(lead, pad_left_) + "." + frac + "e" + exponent_str(s.exp, exp_size_);
    }
    Positional p = positional_unique(v, kPrecision);
    std::string frac = p.frac_part;
    frac.resize(pad_right_, ' ');
    return pad_left(p.int_part, pad_left_) + "." + frac;
  }

 private:
  bool exp_format_ = false;
  size_t pad_left_ = 0, pad_right_ = 0, precision_ = 0, exp_size_ = 0;
};

// ---- Layout ---------------------------------------------------------------------------

class Printer {
 public:
  explicit Printer(const Tensor& t) : t_(t), summarise_(t.numel() > kThreshold) {
    std::vector<int64_t> offsets;
    collect(0, 0, offsets);
    if (is_float(t.dtype())) {
      std::vector<double> values;
      for (int64_t off : offsets) values.push_back(display_value(off));
      float_format_.emplace(values);
    } else if (t.dtype() != DType::Bool) {
      size_t width = 0;
      for (int64_t off : offsets) width = std::max(width, std::to_string(value<int64_t>(off)).size());
      int_width_ = width;
    }
  }

  std::string str() { return recurse(0, 0, " ", kLineWidth); }

 private:
  template <typename T>
  T value(int64_t offset) const {
    return dispatch_dtype(t_.dtype(), [&]<typename S>() { return convert_value<T>(t_.data<S>()[offset]); });
  }

  // A half element prints with the shortest digits that identify it among its type's
  // values (as NumPy prints float16); wider floats print from their value.
  double display_value(int64_t offset) const {
    if (t_.dtype() == DType::Float16) return half_display_value(t_.data<float16_t>()[offset]);
    if (t_.dtype() == DType::BFloat16) return half_display_value(t_.data<bfloat16_t>()[offset]);
    return value<double>(offset);
  }

  bool summarised(int axis) const { return summarise_ && 2 * kEdgeItems < t_.shape()[axis]; }

  // The offsets of the elements that will be shown (NumPy formats from these alone).
  void collect(int axis, int64_t offset, std::vector<int64_t>& out) const {
    if (axis == t_.ndim()) {
      out.push_back(offset);
      return;
    }
    const int64_t n = t_.shape()[axis];
    for (int64_t i = 0; i < n; ++i) {
      if (summarised(axis) && i == kEdgeItems) i = n - kEdgeItems;
      collect(axis + 1, offset + i * t_.strides()[axis], out);
    }
  }

  std::string element(int64_t offset) const {
    if (float_format_) return (*float_format_)(value<double>(offset));
    if (t_.dtype() == DType::Bool) return value<bool>(offset) ? " True" : "False";
    return pad_left(std::to_string(value<int64_t>(offset)), int_width_);
  }

  // Appends `word` to the current line, first breaking the line when it would pass `width`
  // (unless the line holds nothing yet: breaking would not help).
  static void extend(std::string& s, std::string& line, const std::string& word, size_t width,
                     const std::string& hang) {
    if (line.size() + word.size() > width && line.size() > hang.size()) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      s += line + "\n";
      line = hang;
    }
    line += word;
  }

  std::string recurse(int axis, int64_t offset, const std::string& hang, int width) const {
    if (axis == t_.ndim()) return element(offset);
    const std::string next_hang = hang + " ";
    const int next_width = width - 1;  // room for this level's ']'
    const int64_t n = t_.shape()[axis];
    const int64_t stride = t_.strides()[axis];
    const bool summary = summarised(axis);
    const int64_t lead = summary ? kEdgeItems : 0;
    const int64_t trail = summary ? kEdgeItems : n;
    auto child = [&](int64_t i) { return recurse(axis + 1, offset + i * stride, next_hang, next_width); };

    std::string s;
    if (axis == t_.ndim() - 1) {
      const size_t elem_width = static_cast<size_t>(width - 1);
      std::string line = hang;
      for (int64_t i = 0; i < lead; ++i) {
        extend(s, line, child(i), elem_width, hang);
        line += ' ';
      }
      if (summary) {
        extend(s, line, "...", elem_width, hang);
        line += ' ';
      }
      for (int64_t i = trail; i > 1; --i) {
        extend(s, line, child(n - i), elem_width, hang);
        line += ' ';
      }
      extend(s, line, child(n - 1), elem_width, hang);
      s += line;
    } else {
      // Rows end with one newline per remaining axis: a blank line between 2-d blocks.
      const std::string line_sep(static_cast<size_t>(t_.ndim() - axis - 1), '\n');
      for (int64_t i = 0; i < lead; ++i) s += hang + child(i) + line_sep;
      if (summary) s += hang + "..." + line_sep;
      for (int64_t i = trail; i > 1; --i) s += hang + child(n - i) + line_sep;
      s += hang + child(n - 1);
    }
    return "[" + s.substr(hang.size()) + "]";
  }

  const Tensor& t_;
  bool summarise_;
  std::optional<FloatFormat> float_format_;
  size_t int_width_ = 0;
};

}  // namespace

std::string Tensor::str() const {
  if (pending_) return eval().str();
  if (!defined()) return "<undefined tensor>";
  if (!on_host()) return to(host_device()).str();
  if (numel() == 0) return "[]";
  if (ndim() == 0) {
    switch (dtype_) {
      case DType::Bool: return *data<bool>() ? "True" : "False";
      case DType::Float32: return scalar_float_str(*data<float>());
      case DType::Float64: return scalar_float_str(*data<double>());
      case DType::Float16: return scalar_float_str(half_display_value(*data<float16_t>()));
      case DType::BFloat16: return scalar_float_str(half_display_value(*data<bfloat16_t>()));
      case DType::Int8:
      case DType::Int16:
      case DType::Int32:
      case DType::Int64:
      case DType::UInt8: return std::to_string(item<int64_t>());
    }
  }
  return Printer(*this).str();
}

}  // namespace tgc
