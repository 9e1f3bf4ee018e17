// The launcher: from tensors to the rendered function's (shape, strides, pointers). The loop
// space is the broadcast of the loop-space inputs; reduction kernels order it kept dims
// first, reduced dims last, and collapse the two groups separately. Threads split the first
// non-trivial outer dim, so every output element is computed by one thread with the same
// code; a reduction to one output point is split instead into chunks of its reduced range
// fixed by its shape, combined in chunk order. Results do not depend on the thread count.
// Collapsed dims beyond those the kernel renders (kMaxRenderedDims) are looped here, one call
// per index of them. Teams are sized and judged by the team governor (runtime/cpu_team.h).
#include "backends/cpu/kernel_launch.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "compiler/kernel/interpreter.h"
#include "compiler/kernel/kernel_geometry.h"
#include "ops/core/op.h"
#include "ops/elemwise/broadcast.h"
#include "runtime/chunk_pool.h"
#include "runtime/cpu_team.h"
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

// A reduction to one output point is split into chunks of its reduced range of about this
// many elements, whatever the thread count (so the combined result is the same for every
// thread count), when there are at least two.
constexpr int64_t kReduceChunkElements = 1 << 18;

struct Call {
  std::vector<int64_t> shape;    // layout.rank() dims
  std::vector<int64_t> strides;  // operand-major, layout.rank() each
  std::vector<char*> pointers;   // operands, then (reductions) the ReductionSplit slot
  std::vector<size_t> elem_size;  // one per operand
  // Leading dims the kernel does not render (kernel_abi.h's kMaxRenderedDims), looped here:
  // the kernel runs once per index of them. Empty for nearly every call.
  Shape lead;
  std::vector<int64_t> lead_strides;  // operand-major, lead.size() each
};

// How a reduction to one output point is split (kernel_abi.h's ReductionSplit).
struct Split {
  int dim = -1;        // the reduced dim split, in Call::shape
  int64_t length = 0;  // chunk length along it
  int64_t chunks = 0;
  size_t naccs = 0;    // accumulators per chunk (the kernel's Reduce values)
};

// The split of a reduction call whose kept dims are all 1 and whose reduced range holds at
// least two chunks; none (dim -1) otherwise.
Split plan_split(const Kernel& k, const KernelLayout& layout, const Call& call) {
  Split s;
  if (!k.is_reduction()) return s;
  for (int d = 0; d < layout.outer_rank; ++d)
    if (call.shape[d] != 1) return s;
  const int rank = layout.rank();
  int dim = -1;
  for (int d = layout.outer_rank; d < rank; ++d)
    if (call.shape[d] > 1) {
      dim = d;
      break;
    }
  if (dim < 0) return s;
  int64_t inner = 1;
  for (int d = dim + 1; d < rank; ++d) inner *= call.shape[d];
  const int64_t unit = dim == rank - 1 ? kInnerChunkAlignment : 1;
  const int64_t want = std::max<int64_t>(1, kReduceChunkElements / std::max<int64_t>(inner, 1));
  const int64_t length = (want + unit - 1) / unit * unit;
  const int64_t n = call.shape[dim];
  const int64_t chunks = (n + length - 1) / length;
  if (chunks < 2) return s;
  s.dim = dim;
  s.length = length;
  s.chunks = chunks;
  for (const KernelValue& v : k.values) s.naccs += v.kind == KernelValue::Kind::Reduce;
  return s;
}

// Pads a collapsed group to `rank` dims with leading size-1 dims (stride 0).
void pad(Shape& shape, std::vector<Strides>& strides, int rank) {
  while (static_cast<int>(shape.size()) < rank) {
    shape.insert(shape.begin(), 1);
    for (Strides& s : strides) s.insert(s.begin(), 0);
  }
}

// Moves the leading dims of a collapsed group beyond the `rank` the kernel renders into
// call.lead, which the launcher loops itself.
void take_lead(Shape& shape, std::vector<Strides>& strides, int rank, Call& call) {
  const size_t lead = shape.size() > static_cast<size_t>(rank) ? shape.size() - rank : 0;
  if (lead == 0) return;
  call.lead.assign(shape.begin(), shape.begin() + lead);
  shape.erase(shape.begin(), shape.begin() + lead);
  for (Strides& s : strides) {
    call.lead_strides.insert(call.lead_strides.end(), s.begin(), s.begin() + lead);
    s.erase(s.begin(), s.begin() + lead);
  }
}

// Fills call.shape/strides (and call.lead) from the loop-space strides of each operand;
// returns the number of leading dims threads may split (the outer, non-reduced ones), or -1
// when the reduced dims do not collapse to the kernel's rendered ones (the interpreter runs).
int plan_dims(const Kernel& k, const KernelLayout& layout, const Shape& loop, std::vector<Strides> strides, Call& call) {
  const size_t nops = strides.size();
  if (!k.is_reduction()) {
    Shape shape = loop;
    collapse_dims(shape, strides);
    take_lead(shape, strides, layout.rank(), call);
    pad(shape, strides, layout.rank());
    call.shape = shape;
    for (const Strides& s : strides) call.strides.insert(call.strides.end(), s.begin(), s.end());
    return layout.rank();
  }
  SplitDims split = split_reduced_dims(k, loop, strides);
  Shape& kept = split.kept;
  Shape& reduced = split.reduced;
  std::vector<Strides>& kept_s = split.kept_strides;
  std::vector<Strides>& reduced_s = split.reduced_strides;
  // Each output point folds its reduced range in one call, in order; a range over more dims
  // than the kernel renders would need its order kept across calls: rare enough to leave to
  // the interpreter.
  if (reduced.size() > static_cast<size_t>(layout.reduce_rank)) return -1;
  take_lead(kept, kept_s, layout.outer_rank, call);
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

// The call restricted to [begin, end) of dim `dim`: its shape and operand pointers, into the
// calling thread's vectors (kept between calls: no allocation per call). Slots after the
// operands (a reduction's ReductionSplit) are copied as they are.
void restrict_call(const Call& call, int dim, int64_t begin, int64_t end, std::vector<int64_t>& shape,
                   std::vector<char*>& pointers) {
  const int rank = static_cast<int>(call.shape.size());
  shape.assign(call.shape.begin(), call.shape.end());
  shape[dim] = end - begin;
  pointers.assign(call.pointers.begin(), call.pointers.end());
  for (size_t op = 0; op < call.elem_size.size(); ++op)
    pointers[op] += begin * call.strides[op * rank + dim] * static_cast<int64_t>(call.elem_size[op]);
}

// Runs the call once per index of its lead dims (none: once): flat indices [begin, end) of
// them in order, each with the operand pointers moved to its point. An odometer steps the
// index, so each step costs a few adds, not a division per dim.
int32_t run_lead(KernelFn fn, const Call& call, int64_t begin, int64_t end) {
  const size_t nlead = call.lead.size(), nops = call.elem_size.size();
  thread_local std::vector<int64_t> index;
  thread_local std::vector<char*> pointers;
  index.assign(nlead, 0);
  pointers.assign(call.pointers.begin(), call.pointers.end());
  auto move = [&](size_t d, int64_t steps) {
    for (size_t op = 0; op < nops; ++op)
      pointers[op] += steps * call.lead_strides[op * nlead + d] * static_cast<int64_t>(call.elem_size[op]);
  };
  for (int64_t rest = begin, d = static_cast<int64_t>(nlead) - 1; d >= 0; --d) {
    index[d] = rest % call.lead[d];
    rest /= call.lead[d];
    move(static_cast<size_t>(d), index[d]);
  }
  int32_t errors = 0;
  for (int64_t i = begin; i < end; ++i) {
    errors |= fn(call.shape.data(), call.strides.data(), reinterpret_cast<void* const*>(pointers.data()));
    for (size_t d = nlead; d-- > 0;) {
      if (++index[d] < call.lead[d]) {
        move(d, 1);
        break;
      }
      move(d, -(call.lead[d] - 1));
      index[d] = 0;
    }
  }
  return errors;
}

// Runs chunk(c) for every c in [0, chunks) on the calling thread and `threads - 1` helpers
// that claim chunks as they come (runtime/chunk_pool.h: the caller never waits for a helper
// the machine's other work keeps from running), ORs their error bits, and reports the
// region's wall time and its threads' busy time to the team governor (runtime/cpu_team.h),
// which decides how many threads the next region gets.
int32_t run_team(int threads, int64_t chunks, const std::function<int32_t(int64_t)>& chunk) {
  const int64_t start = team_clock_ns();
  const ChunkRun r = run_chunks(threads, chunks, chunk);
  report_team(threads, team_clock_ns() - start, r.busy_ns);
  return r.errors;
}

// Runs a call with lead dims: their flat index range split into one contiguous part per
// thread when the call is big enough. Every point runs the same code whatever the split.
int32_t run_with_lead(KernelFn fn, const Call& call, int64_t work) {
  const int64_t n = shape_numel(call.lead);
  const int64_t chunks = std::min<int64_t>({launch_threads(), work / kMinElementsPerThread, n});
  if (chunks < 2) return run_lead(fn, call, 0, n);
  return run_team(static_cast<int>(chunks), chunks,
                  [&](int64_t c) { return run_lead(fn, call, n * c / chunks, n * (c + 1) / chunks); });
}

// Runs the call, split along its first splittable dim of size > 1 when it is big enough.
int32_t run(KernelFn fn, const Call& call, int splittable, int64_t work) {
  if (!call.lead.empty()) return run_with_lead(fn, call, work);
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
  return run_team(static_cast<int>(chunks), chunks, [&](int64_t c) {
    const int64_t begin = std::min(n, unit * (units * c / chunks)), end = std::min(n, unit * (units * (c + 1) / chunks));
    thread_local std::vector<int64_t> shape;
    thread_local std::vector<char*> pointers;
    restrict_call(call, dim, begin, end, shape, pointers);
    return fn(shape.data(), call.strides.data(), reinterpret_cast<void* const*>(pointers.data()));
  });
}

// Runs a split reduction: every chunk stores its accumulators (on the launch threads, in any
// order), then one call folds them in chunk order and stores the outputs.
int32_t run_split(KernelFn fn, const Call& call, const Split& s, std::vector<uint64_t>& partials) {
  const size_t nops = call.elem_size.size();
  partials.resize(static_cast<size_t>(s.chunks) * s.naccs);
  const int64_t n = call.shape[s.dim];
  const int threads = static_cast<int>(std::min<int64_t>(launch_threads(), s.chunks));
  const int32_t errors = run_team(threads, s.chunks, [&](int64_t c) {
    const int64_t begin = c * s.length, end = std::min(n, begin + s.length);
    thread_local std::vector<int64_t> shape;
    thread_local std::vector<char*> pointers;
    restrict_call(call, s.dim, begin, end, shape, pointers);
    ReductionSplit chunk{1, 0, partials.data() + static_cast<size_t>(c) * s.naccs};
    pointers[nops] = reinterpret_cast<char*>(&chunk);
    return fn(shape.data(), call.strides.data(), reinterpret_cast<void* const*>(pointers.data()));
  });
  if (errors != 0) return errors;
  ReductionSplit combine{2, s.chunks, partials.data()};
  std::vector<char*> pointers = call.pointers;
  pointers[nops] = reinterpret_cast<char*>(&combine);
  return fn(call.shape.data(), call.strides.data(), reinterpret_cast<void* const*>(pointers.data()));
}

}  // namespace

int launch_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// The launch plan of one set of input shapes and strides; outputs are C-contiguous
// (ensure_output), so their strides follow from their shapes.
struct KernelLauncher::Plan {
  bool fast = false;             // kernel_fast_path_applies; else the interpreter runs
  std::vector<Shape> out_shapes;
  bool empty = false;            // no output element to write
  Call call;                     // shape, strides and element sizes; pointers per call
  int splittable = 0;
  int64_t work = 0;              // loop-space elements
  Split split;                   // a reduction to one point over a large range
  std::vector<uint64_t> partials;  // the split's accumulators, chunk after chunk
};

KernelLauncher::KernelLauncher(const Kernel& kernel, KernelFn fn, std::vector<int> inplace)
    : kernel_(kernel), fn_(fn), inplace_(std::move(inplace)) {
  for (size_t i = 0; i < kernel.inputs.size(); ++i) every_input_.push_back(static_cast<int>(i));
}

KernelLauncher::~KernelLauncher() = default;

// Input ranks, shapes and strides, appended to `key`.
void KernelLauncher::key_of(const std::vector<Tensor>& inputs, std::vector<int64_t>& key) {
  key.clear();
  for (const Tensor& t : inputs) {
    key.push_back(static_cast<int64_t>(t.shape().size()));
    key.insert(key.end(), t.shape().begin(), t.shape().end());
    key.insert(key.end(), t.strides().begin(), t.strides().end());
  }
}

std::unique_ptr<KernelLauncher::Plan> KernelLauncher::make_plan(const std::vector<Tensor>& inputs) const {
  const Kernel& k = kernel_;
  auto plan = std::make_unique<Plan>();
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  plan->fast = kernel_fast_path_applies(k, shapes);
  if (!plan->fast) return plan;
  plan->out_shapes = kernel_output_shapes(k, shapes);

  // The loop space: the broadcast of the loop-space inputs (and, for elementwise kernels, of
  // the outputs, which also covers kernels without inputs), right-aligned to the loop rank.
  std::vector<Shape> loop_parts;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!k.inputs[i].in_output_space) loop_parts.push_back(shapes[i]);
  if (!k.is_reduction())
    for (const Shape& s : plan->out_shapes) loop_parts.push_back(s);
  Shape loop = broadcast_shapes(loop_parts, "fused elementwise");
  while (static_cast<int>(loop.size()) < k.ndim) loop.insert(loop.begin(), 1);
  const Shape out_space = kernel_output_space(k, loop);
  plan->empty = shape_numel(out_space) == 0;
  if (plan->empty) return plan;

  std::vector<Strides> strides;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    strides.push_back(k.inputs[i].in_output_space ? output_space_strides(k, t.shape(), t.strides(), out_space)
                                                  : broadcast_strides(t.shape(), t.strides(), loop));
    plan->call.elem_size.push_back(dtype_size(t.dtype()));
  }
  for (size_t j = 0; j < k.outputs.size(); ++j) {
    const Shape& shape = plan->out_shapes[j];
    const Strides contiguous = contiguous_strides(shape);
    strides.push_back(k.is_reduction() ? output_space_strides(k, shape, contiguous, out_space)
                                       : broadcast_strides(shape, contiguous, loop));
    plan->call.elem_size.push_back(dtype_size(k.outputs[j].dtype));
  }
  const KernelLayout layout = kernel_layout(k);
  plan->splittable = plan_dims(k, layout, loop, std::move(strides), plan->call);
  if (plan->splittable < 0) {
    plan->fast = false;
    return plan;
  }
  plan->work = shape_numel(loop);
  if (plan->call.lead.empty()) plan->split = plan_split(k, layout, plan->call);
  return plan;
}

void KernelLauncher::operator()(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  for (const Tensor& t : inputs)
    TGC_INTERNAL_CHECK(t.defined() && t.on_host(), "the LLVM CPU backend needs host tensors");
  TGC_INTERNAL_CHECK(outputs.size() == kernel_.outputs.size(), "a kernel thunk got the wrong number of outputs");
  // The last plan serves a call with the same input shapes and strides. A call that finds
  // another thread launching this kernel plans for itself instead of waiting.
  std::unique_lock lock(mutex_, std::try_to_lock);
  std::unique_ptr<Plan> own;
  Plan* plan = nullptr;
  if (lock.owns_lock()) {
    key_of(inputs, scratch_key_);
    if (!plan_ || scratch_key_ != plan_key_) {
      plan_ = make_plan(inputs);
      plan_key_.swap(scratch_key_);
    }
    plan = plan_.get();
  } else {
    own = make_plan(inputs);
    plan = own.get();
  }
  if (!plan->fast) return run_kernel(kernel_, inputs, outputs, inplace_);

  // An inplace output (Composite::make_inplace: elementwise kernels, inputs of the full rank
  // that the output reads, none that can raise) keeps the dying input's buffer when it is
  // laid out exactly like the output. The rendered loop loads each operand once per element
  // (the region's memo), where the first output needing it is computed, and reads an
  // overwritten input only at the index written; the output's store depends on that load, so
  // it follows it whatever LLVM reorders, although the operand pointers are declared noalias,
  // and outputs computed after the store read the loaded value.
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (!kernel_.is_reduction() && j < inplace_.size() && inplace_[j] >= 0)
      ensure_output_inplace(outputs[j], kernel_.outputs[j].dtype, plan->out_shapes[j], inputs, every_input_);
    else
      ensure_output(outputs[j], kernel_.outputs[j].dtype, plan->out_shapes[j]);
  }
  if (plan->empty) return;  // nothing to write

  std::vector<char*>& pointers = plan->call.pointers;
  pointers.clear();
  for (const Tensor& t : inputs) pointers.push_back(static_cast<char*>(t.raw_data()));
  for (Tensor& t : outputs) pointers.push_back(static_cast<char*>(t.raw_data()));
  if (kernel_.is_reduction()) pointers.push_back(nullptr);  // no ReductionSplit
  const int32_t errors = plan->split.dim >= 0 ? run_split(fn_, plan->call, plan->split, plan->partials)
                                              : run(fn_, plan->call, plan->splittable, plan->work);
  if (errors != 0) {
    // The interpreter raises the reference's error (the message names the op and values).
    run_kernel(kernel_, inputs, outputs);
    TGC_INTERNAL_CHECK(false, "a compiled kernel reported an error that the interpreter does not raise");
  }
}

void launch_kernel(const Kernel& k, KernelFn fn, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                   const std::vector<int>& inplace) {
  KernelLauncher(k, fn, inplace)(inputs, outputs);
}

}  // namespace tgc::cpu
