// The launcher: from tensors to the rendered function's (shape, strides, pointers). The loop
// space is the broadcast of the loop-space inputs; reduction kernels order it kept dims
// first, reduced dims last, and collapse the two groups separately. Threads split the first
// non-trivial outer dim (never a reduced one), so every output element is computed by one
// thread with the same code: results do not depend on the thread count.
#include "backends/cpu/kernel_launch.h"

#include <algorithm>

#include "compiler/kernel/interpreter.h"
#include "ops/core/op.h"
#include "ops/elemwise/broadcast.h"
#include "runtime/error.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tgc::cpu {

namespace {

// Below this many loop elements a call stays on one thread: waking threads costs more.
constexpr int64_t kMinElementsPerThread = 1 << 15;
// Chunks of the innermost (vectorized) dim start at multiples of this many elements, a
// multiple of every vector width times unroll factor LLVM picks (at most 16 lanes x 4).
// Then every element falls in the vector body or in the scalar remainder whatever the
// thread count, which matters because libmvec's float functions and libm's scalar ones may
// differ in the last bit (float32_math=float32).
constexpr int64_t kInnerChunkAlignment = 1024;

struct Call {
  std::vector<int64_t> shape;    // layout.rank() dims
  std::vector<int64_t> strides;  // operand-major, layout.rank() each
  std::vector<char*> pointers;
  std::vector<size_t> elem_size;
};

// Pads a collapsed group to `rank` dims with leading size-1 dims (stride 0).
void pad(Shape& shape, std::vector<Strides>& strides, int rank) {
  while (static_cast<int>(shape.size()) < rank) {
    shape.insert(shape.begin(), 1);
    for (Strides& s : strides) s.insert(s.begin(), 0);
  }
}

// Strides of a tensor of the output space (its shape `shape`) in the loop space: its own
// strides on kept axes, 0 on reduced axes.
Strides output_space_strides(const Kernel& k, const Shape& shape, const Strides& strides, const Shape& out_space) {
  const Strides s = broadcast_strides(shape, strides, out_space);
  Strides loop(static_cast<size_t>(k.ndim), 0);
  size_t j = 0;
  for (int d = 0; d < k.ndim; ++d) {
    const bool reduced = std::binary_search(k.reduce_axes.begin(), k.reduce_axes.end(), d);
    if (reduced) {
      if (k.keepdims) ++j;
      continue;
    }
    loop[d] = s[j++];
  }
  return loop;
}

// Fills call.shape/strides from the loop-space strides of each operand; returns the number
// of leading dims threads may split (the outer, non-reduced ones).
int plan_dims(const Kernel& k, const KernelLayout& layout, const Shape& loop, std::vector<Strides> strides, Call& call) {
  const size_t nops = strides.size();
  if (!k.is_reduction()) {
    Shape shape = loop;
    collapse_dims(shape, strides);
    pad(shape, strides, layout.rank());
    call.shape = shape;
    for (const Strides& s : strides) call.strides.insert(call.strides.end(), s.begin(), s.end());
    return layout.rank();
  }
  Shape kept, reduced;
  std::vector<Strides> kept_s(nops), reduced_s(nops);
  for (int d = 0; d < k.ndim; ++d) {
    const bool is_reduced = std::binary_search(k.reduce_axes.begin(), k.reduce_axes.end(), d);
    (is_reduced ? reduced : kept).push_back(loop[d]);
    for (size_t op = 0; op < nops; ++op) (is_reduced ? reduced_s : kept_s)[op].push_back(strides[op][d]);
  }
  collapse_dims(kept, kept_s);
  collapse_dims(reduced, reduced_s);
  pad(kept, kept_s, layout.outer_rank);
  pad(reduced, reduced_s, layout.reduce_rank);
  call.shape = kept;
  call.shape.insert(call.shape.end(), reduced.begin(), reduced.end());
  for (size_t op = 0; op < nops; ++op) {
    call.strides.insert(call.strides.end(), kept_s[op].begin(), kept_s[op].end());
    call.strides.insert(call.strides.end(), reduced_s[op].begin(), reduced_s[op].end());
  }
  return layout.outer_rank;
}

// Runs the call, split along its first splittable dim of size > 1 when it is big enough.
int32_t run(KernelFn fn, const Call& call, int splittable, int64_t work) {
  const int rank = static_cast<int>(call.shape.size());
  int dim = -1;
  for (int d = 0; d < splittable; ++d)
    if (call.shape[d] > 1) {
      dim = d;
      break;
    }
  const int64_t threads = std::min<int64_t>(launch_threads(), work / kMinElementsPerThread);
  if (dim < 0 || threads < 2) return fn(call.shape.data(), call.strides.data(), reinterpret_cast<void* const*>(call.pointers.data()));
  const int64_t n = call.shape[dim];
  const int64_t chunks = std::min<int64_t>(threads, n);
  const int64_t unit = dim == rank - 1 ? kInnerChunkAlignment : 1;
  const int64_t units = (n + unit - 1) / unit;
  int32_t errors = 0;
#pragma omp parallel for num_threads(static_cast<int>(chunks)) reduction(| : errors) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = std::min(n, unit * (units * c / chunks)), end = std::min(n, unit * (units * (c + 1) / chunks));
    std::vector<int64_t> shape = call.shape;
    shape[dim] = end - begin;
    std::vector<char*> pointers = call.pointers;
    for (size_t op = 0; op < pointers.size(); ++op)
      pointers[op] += begin * call.strides[op * rank + dim] * static_cast<int64_t>(call.elem_size[op]);
    errors |= fn(shape.data(), call.strides.data(), reinterpret_cast<void* const*>(pointers.data()));
  }
  return errors;
}

}  // namespace

int launch_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void launch_kernel(const Kernel& k, KernelFn fn, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                   const std::vector<int>& inplace) {
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) {
    TGC_INTERNAL_CHECK(t.defined() && t.on_host(), "the LLVM CPU backend needs host tensors");
    shapes.push_back(t.shape());
  }
  if (!kernel_fast_path_applies(k, shapes)) return run_kernel(k, inputs, outputs, inplace);
  const std::vector<Shape> out_shapes = kernel_output_shapes(k, shapes);
  TGC_INTERNAL_CHECK(outputs.size() == k.outputs.size(), "a kernel thunk got the wrong number of outputs");
  // An inplace output (Composite::make_inplace: elementwise kernels, inputs of the full rank,
  // none that can raise) keeps the dying input's buffer when it is laid out exactly like the
  // output. The rendered loop loads each element's operands before storing its outputs and
  // reads an overwritten input only at the index written, so sharing the buffer cannot
  // change a result, although the operand pointers are declared noalias: no load of an
  // element follows the store to it, the only order noalias would let LLVM change.
  std::vector<int> every_input;
  for (size_t i = 0; i < inputs.size(); ++i) every_input.push_back(static_cast<int>(i));
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (!k.is_reduction() && j < inplace.size() && inplace[j] >= 0)
      ensure_output_inplace(outputs[j], k.outputs[j].dtype, out_shapes[j], inputs, every_input);
    else
      ensure_output(outputs[j], k.outputs[j].dtype, out_shapes[j]);
  }

  // The loop space: the broadcast of the loop-space inputs (and, for elementwise kernels, of
  // the outputs, which also covers kernels without inputs), right-aligned to the loop rank.
  std::vector<Shape> loop_parts;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!k.inputs[i].in_output_space) loop_parts.push_back(shapes[i]);
  if (!k.is_reduction())
    for (const Shape& s : out_shapes) loop_parts.push_back(s);
  Shape loop = broadcast_shapes(loop_parts, "fused elementwise");
  while (static_cast<int>(loop.size()) < k.ndim) loop.insert(loop.begin(), 1);
  Shape out_space;
  for (int d = 0; d < k.ndim; ++d) {
    if (!std::binary_search(k.reduce_axes.begin(), k.reduce_axes.end(), d)) out_space.push_back(loop[d]);
    else if (k.keepdims) out_space.push_back(1);
  }
  if (shape_numel(out_space) == 0) return;  // nothing to write

  std::vector<Strides> strides;
  Call call;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    strides.push_back(k.inputs[i].in_output_space ? output_space_strides(k, t.shape(), t.strides(), out_space)
                                                  : broadcast_strides(t.shape(), t.strides(), loop));
    call.pointers.push_back(static_cast<char*>(t.raw_data()));
    call.elem_size.push_back(dtype_size(t.dtype()));
  }
  for (Tensor& t : outputs) {
    strides.push_back(k.is_reduction() ? output_space_strides(k, t.shape(), t.strides(), out_space)
                                       : broadcast_strides(t.shape(), t.strides(), loop));
    call.pointers.push_back(static_cast<char*>(t.raw_data()));
    call.elem_size.push_back(dtype_size(t.dtype()));
  }
  const int splittable = plan_dims(k, kernel_layout(k), loop, std::move(strides), call);
  if (run(fn, call, splittable, shape_numel(loop)) != 0) {
    // The interpreter raises the reference's error (the message names the op and values).
    run_kernel(k, inputs, outputs);
    TGC_INTERNAL_CHECK(false, "a compiled kernel reported an error that the interpreter does not raise");
  }
}

}  // namespace tgc::cpu
