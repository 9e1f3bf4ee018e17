// The block machinery of the single pass: typed element loops, the cursor that cuts a
// strided loop into blocks of segments, and a phase's run over its blocks.
#include "compiler/kernel/interpreter_blocks.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/elemwise/broadcast.h"
#include "runtime/convert.h"

namespace tgc::kernel_loop {

namespace {

template <typename T>
using Natural = std::conditional_t<is_float_type_v<T>, double, int64_t>;

// ---- Element loops, one instantiation per dtype (pair), chosen once per call.

// n elements of an In tensor at `stride` into a natural-domain block (exact: no rounding).
template <typename In>
void load(const char* base, int64_t stride, int64_t n, void* out_v) {
  const In* p = reinterpret_cast<const In*>(base);
  auto* out = static_cast<Natural<In>*>(out_v);
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Natural<In>>(p[i]);
  } else if (stride == 0) {
    std::fill(out, out + n, static_cast<Natural<In>>(p[0]));
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Natural<In>>(p[i * stride]);
  }
}

// n natural-domain values (already of dtype Out) into an Out tensor at `stride`.
template <typename Out>
void store(const void* in_v, char* base, int64_t stride, int64_t n) {
  const auto* in = static_cast<const Natural<Out>*>(in_v);
  Out* p = reinterpret_cast<Out*>(base);
  for (int64_t i = 0; i < n; ++i) p[i * stride] = convert_value<Out>(in[i]);
}

// An op's result in its compute domain D, converted to the value's dtype T exactly as
// Elemwise stores it (float32 rounding, integer wrap, saturation from floats, nonzero ->
// true), then kept in T's natural domain. in == out is allowed.
template <typename D, typename T>
void round_to(const void* in_v, void* out_v, int64_t n) {
  const D* in = static_cast<const D*>(in_v);
  auto* out = static_cast<Natural<T>*>(out_v);
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Natural<T>>(convert_value<T>(in[i]));
}

// Float sums and products accumulate in double like CAReduce, integer ones wrap like its
// uint64; a NaN wins max/min as in NumPy.
template <KernelReduceOp R, typename N>
inline void combine(N& a, N x) {
  if constexpr (R == KernelReduceOp::Sum || R == KernelReduceOp::Mean) {
    if constexpr (std::is_same_v<N, double>) a += x;
    else a = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(x));
  } else if constexpr (R == KernelReduceOp::Prod) {
    if constexpr (std::is_same_v<N, double>) a *= x;
    else a = static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(x));
  } else if constexpr (R == KernelReduceOp::Max) {
    if constexpr (std::is_same_v<N, double>) { if (x > a || std::isnan(x)) a = x; }
    else { if (x > a) a = x; }
  } else if constexpr (R == KernelReduceOp::Min) {
    if constexpr (std::is_same_v<N, double>) { if (x < a || std::isnan(x)) a = x; }
    else { if (x < a) a = x; }
  } else if constexpr (R == KernelReduceOp::All) {
    a = (a != 0 && x != 0) ? 1 : 0;
  } else {
    a = (a != 0 || x != 0) ? 1 : 0;
  }
}

// Folds n values into accumulators `stride` apart (0: all into one, in order).
template <KernelReduceOp R, typename N>
void fold(void* acc_v, int64_t stride, const void* v_v, int64_t n) {
  N* acc = static_cast<N*>(acc_v);
  const N* v = static_cast<const N*>(v_v);
  if (stride == 0) {  // one accumulator: keep it in a register, same order
    N a = acc[0];
    for (int64_t i = 0; i < n; ++i) combine<R>(a, v[i]);
    acc[0] = a;
    return;
  }
  for (int64_t i = 0; i < n; ++i) combine<R>(acc[i * stride], v[i]);
}
template <typename N>
FoldFn select_fold_in(KernelReduceOp op) {
  switch (op) {
    case KernelReduceOp::Sum: return &fold<KernelReduceOp::Sum, N>;
    case KernelReduceOp::Prod: return &fold<KernelReduceOp::Prod, N>;
    case KernelReduceOp::Max: return &fold<KernelReduceOp::Max, N>;
    case KernelReduceOp::Min: return &fold<KernelReduceOp::Min, N>;
    case KernelReduceOp::All: return &fold<KernelReduceOp::All, N>;
    case KernelReduceOp::Any: return &fold<KernelReduceOp::Any, N>;
    case KernelReduceOp::Mean: return &fold<KernelReduceOp::Mean, N>;
  }
  return nullptr;
}

// ---- The block cursor: walks a collapsed loop in C order, a block at a time. A block is
// a list of segments, each a run along the innermost dim with one offset per operand.

struct Segment {
  int64_t at;   // first position in the block
  int64_t len;
};

class Cursor {
 public:
  Cursor(const Shape& shape, const std::vector<Strides>& strides)
      : shape_(shape), strides_(strides), inner_(static_cast<int>(shape.size()) - 1),
        index_(shape.size(), 0), row_(strides.size(), 0), total_(shape_numel(shape)) {
    for (const Strides& s : strides) inner_stride_.push_back(s[inner_]);
  }
  int64_t inner_stride(size_t operand) const { return inner_stride_[operand]; }

  // Fills the next block; returns its size (0 at the end). offsets[s * nops + k] is
  // operand k's element offset at the start of segment s.
  int64_t next(std::vector<Segment>& segments, std::vector<int64_t>& offsets) {
    segments.clear();
    offsets.clear();
    const int64_t n_inner = shape_[inner_];
    int64_t filled = 0;
    while (filled < kBlock && done_ < total_) {
      const int64_t len = std::min(kBlock - filled, n_inner - pos_);
      segments.push_back({filled, len});
      for (size_t k = 0; k < row_.size(); ++k) offsets.push_back(row_[k] + pos_ * inner_stride_[k]);
      filled += len;
      done_ += len;
      pos_ += len;
      if (pos_ == n_inner) {
        pos_ = 0;
        step_outer();
      }
    }
    return filled;
  }

 private:
  void step_outer() {
    for (int d = inner_ - 1; d >= 0; --d) {
      ++index_[d];
      for (size_t k = 0; k < row_.size(); ++k) row_[k] += strides_[k][d];
      if (index_[d] < shape_[d]) return;
      for (size_t k = 0; k < row_.size(); ++k) row_[k] -= strides_[k][d] * shape_[d];
      index_[d] = 0;
    }
  }

  const Shape& shape_;
  const std::vector<Strides>& strides_;
  int inner_;
  std::vector<int64_t> index_, row_, inner_stride_;
  int64_t total_, done_ = 0, pos_ = 0;
};

}  // namespace

LoadFn select_load(DType in) {
  return dispatch_dtype(in, []<typename In>() -> LoadFn { return &load<In>; });
}

StoreFn select_store(DType out) {
  return dispatch_dtype(out, []<typename Out>() -> StoreFn { return &store<Out>; });
}

RoundFn select_round(bool float_domain, DType t) {
  if ((float_domain && t == DType::Float64) || (!float_domain && t == DType::Int64)) return nullptr;
  return dispatch_dtype(t, [&]<typename T>() -> RoundFn {
    return float_domain ? &round_to<double, T> : &round_to<int64_t, T>;
  });
}

FoldFn select_fold(KernelReduceOp op, bool float_domain) {
  return float_domain ? select_fold_in<double>(op) : select_fold_in<int64_t>(op);
}

void run_op(const OpStep& s, int64_t m) {
  for (int k = 0; k < kMaxArity; ++k) {
    if (!s.widen[k]) continue;
    auto* dst = static_cast<double*>(const_cast<void*>(s.args[k]));
    for (int64_t i = 0; i < m; ++i) dst[i] = static_cast<double>(s.widen[k][i]);
  }
  if (s.float_domain)
    s.row->float_array(static_cast<const double*>(s.args[0]), static_cast<const double*>(s.args[1]),
                       static_cast<const double*>(s.args[2]), static_cast<double*>(s.result), m);
  else
    s.row->int_array(static_cast<const int64_t*>(s.args[0]), static_cast<const int64_t*>(s.args[1]),
                     static_cast<const int64_t*>(s.args[2]), static_cast<int64_t*>(s.result), m);
  if (s.round) s.round(s.result, s.value, m);
}

void Phase::move_longest_dim_inside() {
  constexpr int64_t kShortRow = 64;
  const size_t inner = shape.size() - 1;
  size_t longest = inner;
  for (size_t d = 0; d < inner; ++d)
    if (shape[d] > shape[longest]) longest = d;
  if (shape[inner] >= kShortRow || longest == inner) return;
  auto rotate = [&](std::vector<int64_t>& v) { std::rotate(v.begin() + longest, v.begin() + longest + 1, v.end()); };
  rotate(shape);
  for (Strides& s : strides) rotate(s);
}

void Phase::run() {
  if (shape_numel(shape) == 0) return;
  collapse_dims(shape, strides);
  if (shape.empty()) {  // a 0-d space: one element
    shape = {1};
    for (Strides& s : strides) s = {0};
  }
  if (any_order) move_longest_dim_inside();
  const size_t nops = strides.size();
  Cursor cursor(shape, strides);
  std::vector<Segment> segments;
  segments.reserve(kBlock);
  std::vector<int64_t> offsets;
  offsets.reserve(kBlock * nops);
  auto at = [](const void* block, int64_t pos) { return static_cast<const char*>(block) + pos * 8; };
  while (const int64_t m = cursor.next(segments, offsets)) {
    for (const LoadStep& l : loads)
      for (size_t s = 0; s < segments.size(); ++s)
        l.fn(l.base + offsets[s * nops + l.operand] * l.elem_size, cursor.inner_stride(l.operand), segments[s].len,
             const_cast<char*>(at(l.dst, segments[s].at)));
    for (const OpStep& o : ops) run_op(o, m);
    for (const StoreStep& st : stores)
      for (size_t s = 0; s < segments.size(); ++s)
        st.fn(at(st.src, segments[s].at), st.base + offsets[s * nops + st.operand] * st.elem_size,
              cursor.inner_stride(st.operand), segments[s].len);
    for (const FoldStep& f : folds)
      for (size_t s = 0; s < segments.size(); ++s)
        f.fn(static_cast<char*>(f.acc) + offsets[s * nops + f.operand] * 8, cursor.inner_stride(f.operand),
             at(f.src, segments[s].at), segments[s].len);
  }
}

}  // namespace tgc::kernel_loop
