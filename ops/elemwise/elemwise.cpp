// Elemwise: type rule and static broadcast, and the reference evaluation. perform() works
// row by row over the collapsed loop and block by block within a row: operands are
// converted into double/int64 blocks, the row's array function runs on the blocks, and
// the result is converted into the output. Every per-dtype choice is made once per call.
#include "ops/elemwise/elemwise.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "ops/core/node.h"
#include "ops/elemwise/broadcast.h"
#include "ops/gradient/build.h"
#include "runtime/config.h"
#include "runtime/convert.h"
#include "runtime/error.h"
#include "runtime/strided_loop.h"

namespace tgc {

namespace {

constexpr int64_t kBlock = 512;  // elements per block: small enough to stay in L1
constexpr int kMaxArity = 3;

// Reads n elements of an In tensor at `stride`, converting each to the operand dtype and
// then to the compute domain D (double or int64).
template <typename D>
using LoadFn = void (*)(const void* base, int64_t stride, int64_t n, D* out);
template <typename In, typename Operand, typename D>
void load(const void* base, int64_t stride, int64_t n, D* out) {
  const In* p = static_cast<const In*>(base);
  auto conv = [](In v) { return static_cast<D>(convert_value<Operand>(v)); };
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = conv(p[i]);
  } else if (stride == 0) {
    std::fill(out, out + n, conv(p[0]));
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = conv(p[i * stride]);
  }
}

// Writes n domain values into an Out tensor at `stride`, converting (rounding float32,
// wrapping integers, nonzero -> true for bool).
template <typename D>
using StoreFn = void (*)(const D* in, void* base, int64_t stride, int64_t n);
template <typename D, typename Out>
void store(const D* in, void* base, int64_t stride, int64_t n) {
  Out* p = static_cast<Out*>(base);
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) p[i] = convert_value<Out>(in[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) p[i * stride] = convert_value<Out>(in[i]);
  }
}

template <typename D>
LoadFn<D> select_load(DType in, DType operand) {
  return dispatch_dtype(in, [&]<typename In>() {
    return dispatch_dtype(operand, [&]<typename Op>() -> LoadFn<D> { return &load<In, Op, D>; });
  });
}

template <typename D>
StoreFn<D> select_store(DType out) {
  return dispatch_dtype(out, [&]<typename Out>() -> StoreFn<D> { return &store<D, Out>; });
}

// The loop over the collapsed index space. strides[0] is the output's, strides[1 + k]
// input k's (broadcast strides, in elements).
template <typename D>
void run(const ScalarOpInfo& row, const ScalarSignature& sig, const std::vector<Tensor>& inputs,
         Tensor& out, const Shape& loop, const std::vector<Strides>& strides) {
  const size_t nin = inputs.size();
  std::array<LoadFn<D>, kMaxArity> loaders{};
  std::array<const char*, kMaxArity> bases{};
  std::array<size_t, kMaxArity> sizes{};
  for (size_t k = 0; k < nin; ++k) {
    loaders[k] = select_load<D>(inputs[k].dtype(), sig.operands[k]);
    bases[k] = static_cast<const char*>(inputs[k].raw_data());
    sizes[k] = dtype_size(inputs[k].dtype());
  }
  const StoreFn<D> store_fn = select_store<D>(out.dtype());
  char* out_base = static_cast<char*>(out.raw_data());
  const size_t out_size = dtype_size(out.dtype());

  // Blocks for the operands (unused ones stay zero: the functions' extra arguments) and
  // for the result.
  std::vector<D> buffer(static_cast<size_t>((kMaxArity + 1) * kBlock), D(0));
  std::array<D*, kMaxArity> in_buf{};
  for (int k = 0; k < kMaxArity; ++k) in_buf[k] = buffer.data() + k * kBlock;
  D* out_buf = buffer.data() + kMaxArity * kBlock;

  const int inner = static_cast<int>(loop.size()) - 1;
  const int64_t n = loop[inner];
  Shape outer(loop.begin(), loop.begin() + inner);
  std::vector<Strides> outer_strides;
  std::array<int64_t, kMaxArity + 1> inner_stride{};
  for (size_t k = 0; k < strides.size(); ++k) {
    outer_strides.emplace_back(strides[k].begin(), strides[k].begin() + inner);
    inner_stride[k] = strides[k][inner];
  }

  strided_loop(outer, outer_strides, [&](const int64_t* offsets) {
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t m = std::min(kBlock, n - start);
      for (size_t k = 0; k < nin; ++k) {
        int64_t elem = offsets[k + 1] + start * inner_stride[k + 1];
        loaders[k](bases[k] + elem * static_cast<int64_t>(sizes[k]), inner_stride[k + 1], m,
                   in_buf[k]);
      }
      if constexpr (std::is_same_v<D, double>)
        row.float_array(in_buf[0], in_buf[1], in_buf[2], out_buf, m);
      else
        row.int_array(in_buf[0], in_buf[1], in_buf[2], out_buf, m);
      int64_t elem = offsets[0] + start * inner_stride[0];
      store_fn(out_buf, out_base + elem * static_cast<int64_t>(out_size), inner_stride[0], m);
    }
  });
}

}  // namespace

Elemwise::Elemwise(ScalarOpKind kind, std::optional<DType> cast_to, std::optional<DType> floatx, int inplace)
    : kind_(kind), cast_to_(cast_to), floatx_(floatx.value_or(global_config().floatX)), inplace_(inplace) {
  TGC_INTERNAL_CHECK(inplace >= -1 && inplace < scalar_op().arity, "Elemwise: no input to write in place");
  TGC_INTERNAL_CHECK(cast_to.has_value() == (kind == ScalarOpKind::Cast),
                     "Elemwise: a target dtype is given exactly for cast");
  TGC_INTERNAL_CHECK(is_float(floatx_), "Elemwise: floatX must be a float dtype");
}

ScalarSignature Elemwise::signature(std::span<const DType> inputs) const {
  return scalar_signature(kind_, inputs, floatx_, cast_to_);
}

std::string Elemwise::name() const {
  std::string params;
  if (kind_ == ScalarOpKind::Cast) {
    params = fmt::format("Cast{{{}}}", dtype_name(*cast_to_));
  } else {
    const ScalarOpInfo& row = scalar_op();
    params = std::string(row.name);
    if (row.type_rule == TypeRule::FloatResult && floatx_ != DType::Float32)
      params += fmt::format(",floatX={}", dtype_name(floatx_));
  }
  if (inplace_ == 0) params += ",inplace";
  else if (inplace_ > 0) params += fmt::format(",inplace={}", inplace_);
  return "Elemwise{" + params + "}";
}

std::shared_ptr<const Op> Elemwise::make_inplace(int output, int input) const {
  if (output != 0 || input < 0 || input >= scalar_op().arity) return nullptr;
  return std::make_shared<Elemwise>(kind_, cast_to_, floatx_, input);
}

std::string Elemwise::user_name() const { return std::string(scalar_op().name); }

std::vector<Type> Elemwise::infer_types(const std::vector<Type>& inputs) const {
  std::vector<DType> dtypes;
  std::vector<std::vector<int64_t>> shapes;
  for (const Type& t : inputs) {
    dtypes.push_back(t.dtype);
    shapes.push_back(t.shape);
  }
  ScalarSignature sig = signature(dtypes);
  return {Type(sig.out, broadcast_static_shapes(shapes, user_name()))};
}

std::vector<Shape> Elemwise::infer_shapes(const std::vector<Shape>& inputs) const {
  return {broadcast_shapes(inputs, user_name())};
}

void Elemwise::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  TGC_INTERNAL_CHECK(outputs.size() == 1, "Elemwise has one output");
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) {
    TGC_INTERNAL_CHECK(t.defined() && t.on_host(), "Elemwise::perform needs host tensors");
    dtypes.push_back(t.dtype());
    shapes.push_back(t.shape());
  }
  const ScalarSignature sig = signature(dtypes);
  const Shape out_shape = broadcast_shapes(shapes, user_name());
  std::vector<int> every_input;
  if (inplace_ >= 0)
    for (size_t k = 0; k < inputs.size(); ++k) every_input.push_back(static_cast<int>(k));
  Tensor& out = inplace_ >= 0 ? ensure_output_inplace(outputs[0], sig.out, out_shape, inputs, every_input)
                              : ensure_output(outputs[0], sig.out, out_shape);
  if (out.numel() == 0) return;

  std::vector<Strides> strides{out.strides()};
  for (const Tensor& t : inputs)
    strides.push_back(broadcast_strides(t.shape(), t.strides(), out_shape));
  Shape loop = out_shape;
  collapse_dims(loop, strides);
  if (loop.empty()) {  // a scalar: one element
    loop = {1};
    for (Strides& s : strides) s = {0};
  }
  const ScalarOpInfo& row = scalar_op();
  if (scalar_domain(kind_, sig) == ScalarDomain::Float)
    run<double>(row, sig, inputs, out, loop, strides);
  else
    run<int64_t>(row, sig, inputs, out, loop, strides);
}

std::vector<VarPtr> Elemwise::grad(const Node& node,
                                   const std::vector<VarPtr>& output_grads) const {
  const std::vector<VarPtr>& inputs = node.inputs();
  std::vector<VarPtr> result(inputs.size());
  TGC_INTERNAL_CHECK(output_grads.size() == 1, "Elemwise has one output");
  const VarPtr& g = output_grads[0];
  if (!g) return result;  // the output does not reach the cost

  std::vector<DType> dtypes;
  bool any_float = false;
  for (const VarPtr& in : inputs) {
    dtypes.push_back(in->type().dtype);
    any_float = any_float || is_float(in->type().dtype);
  }
  if (!any_float) return result;
  const ScalarOpInfo& row = scalar_op();
  if (row.grad == nullptr) {  // piecewise constant: zero wherever the derivative exists
    for (size_t i = 0; i < inputs.size(); ++i)
      if (is_float(dtypes[i])) result[i] = gradient::zeros_like(inputs[i]);
    return result;
  }
  // The rule differentiates the function the row computes: on its float operand dtype
  // (exp(float32 x) + float64 y computes in float64), so convert first; a where's
  // condition stays as it is (the rule only selects with it again).
  const ScalarSignature sig = signature(dtypes);
  std::vector<VarPtr> operands;
  for (size_t i = 0; i < inputs.size(); ++i)
    operands.push_back(is_float(sig.operands[i]) ? gradient::cast(inputs[i], sig.operands[i])
                                                 : inputs[i]);
  // output() only makes a handle that shares ownership of the node; it changes nothing.
  const VarPtr output = node.output(0);
  std::vector<VarPtr> terms = row.grad(operands, output, g);
  TGC_INTERNAL_CHECK(terms.size() == inputs.size(), "a grad rule returns one term per input");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (is_float(dtypes[i]) && terms[i]) result[i] = gradient::sum_to_like(terms[i], inputs[i]);
  return result;
}

}  // namespace tgc
