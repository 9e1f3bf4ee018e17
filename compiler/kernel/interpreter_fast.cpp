// The interpreter's single pass: the loop a backend renders, run on the host. Every value
// lives in a block of its natural domain (double for float dtypes, int64 for integers and
// bool), already rounded to its dtype, so each Op reads exactly what the unfused Elemwise
// would have read from its input tensor. A reduction kernel runs two phases: the loop space
// (loads, prologue, folding into one accumulator per output element, visited in C order so
// that sums add in the unfused CAReduce's order) and the output space (finished
// reductions, output-space loads, epilogue, stores). This file plans the steps once per
// call; interpreter_blocks.cpp runs them.
#include <array>
#include <cmath>
#include <limits>

#include "compiler/kernel/interpreter_blocks.h"
#include "compiler/kernel/interpreter_internal.h"
#include "ops/core/op.h"
#include "ops/elemwise/broadcast.h"
#include "ops/reduce/reduce_axes.h"
#include "runtime/error.h"

namespace tgc {

namespace {

using namespace kernel_loop;

// The accumulator of one Reduce value: one 8-byte slot per output element, double or int64
// like the value's natural domain; finished in place into the value's result.
struct Accumulator {
  int value;
  std::vector<double> f;
  std::vector<int64_t> i;
  void* data() { return f.empty() ? static_cast<void*>(i.data()) : static_cast<void*>(f.data()); }
};

Accumulator make_accumulator(const KernelValue& v, int value, int64_t n) {
  Accumulator acc{value, {}, {}};
  if (is_float(v.dtype)) {
    double init = 0;
    switch (v.reduce_op) {
      case KernelReduceOp::Sum:
      case KernelReduceOp::Mean: init = 0; break;
      case KernelReduceOp::Prod: init = 1; break;
      case KernelReduceOp::Max: init = -std::numeric_limits<double>::infinity(); break;
      case KernelReduceOp::Min: init = std::numeric_limits<double>::infinity(); break;
      case KernelReduceOp::All:
      case KernelReduceOp::Any: TGC_INTERNAL_CHECK(false, "all/any accumulate bool"); break;
    }
    acc.f.assign(n, init);
    return acc;
  }
  int64_t init = 0;
  dispatch_dtype(v.dtype, [&]<typename T>() {
    switch (v.reduce_op) {
      case KernelReduceOp::Sum:
      case KernelReduceOp::Mean:
      case KernelReduceOp::Any: init = 0; break;
      case KernelReduceOp::Prod:
      case KernelReduceOp::All: init = 1; break;
      case KernelReduceOp::Max: init = static_cast<int64_t>(std::numeric_limits<T>::lowest()); break;
      case KernelReduceOp::Min: init = static_cast<int64_t>(std::numeric_limits<T>::max()); break;
    }
  });
  acc.i.assign(n, init);
  return acc;
}

// Float accumulators round to the value's dtype once (after Mean's division, carried out in
// double like the Mean op); integer ones already hold their dtype's values.
void finish(Accumulator& acc, const KernelValue& v, int64_t reduced_count) {
  if (acc.f.empty()) return;
  const bool mean = v.reduce_op == KernelReduceOp::Mean;
  const double count = static_cast<double>(reduced_count);
  dispatch_dtype(v.dtype, [&]<typename T>() {
    if constexpr (is_float_type_v<T>) {
      for (double& a : acc.f) {
        if (mean) a = reduced_count ? a / count : std::numeric_limits<double>::quiet_NaN();
        a = static_cast<double>(static_cast<T>(a));
      }
    }
  });
}

// Per-call memory and the plan of the steps.
class FastRun {
 public:
  FastRun(const Kernel& k, const KernelShapes& s, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
          const std::vector<int>& inplace)
      : k_(k), s_(s), inputs_(inputs), outputs_(outputs), inplace_(inplace), epilogue_(k.epilogue_mask()), uniform_(uniform_mask(k)),
        read_(k.values.size(), false) {
    for (const KernelValue& v : k.values)
      for (int a : v.args) read_[a] = true;
  }

  void run() {
    allocate_blocks();
    const bool reduction = k_.is_reduction();
    const Shape& out_space = reduction ? s_.output_space : s_.loop;
    // Each block is loaded, computed, then stored (Phase::run), so an output may share the
    // buffer of an input read at the same index (Composite::make_inplace).
    std::vector<int> every_input;
    for (size_t i = 0; i < inputs_.size(); ++i) every_input.push_back(static_cast<int>(i));
    for (size_t j = 0; j < k_.outputs.size(); ++j) {
      if (!reduction && j < inplace_.size() && inplace_[j] >= 0)
        ensure_output_inplace(outputs_[j], k_.outputs[j].dtype, out_space, inputs_, every_input);
      else
        ensure_output(outputs_[j], k_.outputs[j].dtype, out_space);
    }

    // Constants, then what is computed from constants only: once, over a whole block.
    for (size_t i = 0; i < k_.values.size(); ++i) {
      const KernelValue& v = k_.values[i];
      if (v.kind == KernelValue::Kind::Constant) fill_constant(v, block_[i]);
      else if (uniform_[i]) run_op(op_step(static_cast<int>(i)), kBlock);
    }

    Phase loop{s_.loop, {}, !reduction, {}, {}, {}, {}};
    int acc_operand = -1;
    if (reduction) {
      const ReducePlan plan = make_reduce_plan(s_.loop, k_.reduce_axes, k_.keepdims);
      acc_operand = loop.operand(plan.acc_strides);
      reduced_count_ = plan.reduced_count;
      out_numel_ = plan.out_numel;
    }
    for (size_t i = 0; i < k_.values.size(); ++i) {
      const KernelValue& v = k_.values[i];
      if (uniform_[i] || epilogue_[i]) continue;
      if (v.kind == KernelValue::Kind::Load) add_load(loop, static_cast<int>(i), s_.loop);
      else if (v.kind == KernelValue::Kind::Op) loop.ops.push_back(op_step(static_cast<int>(i)));
    }
    if (!reduction) {
      add_stores(loop);
      loop.run();
      return;
    }
    accs_.reserve(k_.values.size());  // fold steps keep pointers into the accumulators
    for (size_t i = 0; i < k_.values.size(); ++i) {
      const KernelValue& v = k_.values[i];
      if (v.kind != KernelValue::Kind::Reduce) continue;
      accs_.push_back(make_accumulator(v, static_cast<int>(i), out_numel_));
      loop.folds.push_back({acc_operand, select_fold(v.reduce_op, is_float(v.dtype)), accs_.back().data(),
                            block_[v.args[0]]});
    }
    loop.run();

    Phase out{s_.output_space, {}, true, {}, {}, {}, {}};
    const Strides result_strides = contiguous_strides(s_.output_space);
    for (Accumulator& acc : accs_) {
      const KernelValue& v = k_.values[acc.value];
      finish(acc, v, reduced_count_);
      const DType natural = is_float(v.dtype) ? DType::Float64 : DType::Int64;
      out.loads.push_back({out.operand(result_strides), select_load(natural), static_cast<const char*>(acc.data()), 8,
                           block_[acc.value]});
    }
    for (size_t i = 0; i < k_.values.size(); ++i) {
      const KernelValue& v = k_.values[i];
      if (uniform_[i] || !epilogue_[i]) continue;
      if (v.kind == KernelValue::Kind::Load) add_load(out, static_cast<int>(i), s_.output_space);
      else if (v.kind == KernelValue::Kind::Op) out.ops.push_back(op_step(static_cast<int>(i)));
    }
    add_stores(out);
    out.run();
  }

 private:
  void allocate_blocks() {
    size_t nf = 0, ni = 0;
    for (const KernelValue& v : k_.values) (is_float(v.dtype) ? nf : ni)++;
    // Values, then the zero blocks (arguments past an op's arity), the widening scratch
    // and a result block per domain for ops whose domain differs from their dtype's.
    fmem_.assign((nf + 1 + kMaxArity + 1) * kBlock, 0.0);
    imem_.assign((ni + 1 + 1) * kBlock, 0);
    size_t fi = 0, ii = 0;
    for (const KernelValue& v : k_.values)
      block_.push_back(is_float(v.dtype) ? static_cast<void*>(&fmem_[kBlock * fi++]) : static_cast<void*>(&imem_[kBlock * ii++]));
    zero_f_ = &fmem_[kBlock * fi++];
    for (int k = 0; k < kMaxArity; ++k) widen_[k] = &fmem_[kBlock * fi++];
    temp_f_ = &fmem_[kBlock * fi++];
    zero_i_ = &imem_[kBlock * ii++];
    temp_i_ = &imem_[kBlock * ii++];
  }

  static void fill_constant(const KernelValue& v, void* block) {
    if (is_float(v.dtype)) std::fill_n(static_cast<double*>(block), kBlock, v.constant);
    else std::fill_n(static_cast<int64_t*>(block), kBlock, v.int_constant);
  }

  OpStep op_step(int i) const {
    const KernelValue& v = k_.values[i];
    std::vector<DType> dtypes;
    for (int a : v.args) dtypes.push_back(k_.values[a].dtype);
    const DType floatx = is_float(v.dtype) ? v.dtype : DType::Float32;  // irrelevant: operands are converted
    const std::optional<DType> cast_to = v.op == ScalarOpKind::Cast ? std::optional(v.dtype) : std::nullopt;
    const ScalarSignature sig = scalar_signature(v.op, dtypes, floatx, cast_to);
    OpStep s{};
    s.row = &scalar_op_info(v.op);
    s.float_domain = scalar_domain(v.op, sig) == ScalarDomain::Float;
    for (int k = 0; k < kMaxArity; ++k) {
      if (k >= static_cast<int>(v.args.size())) {
        s.args[k] = s.float_domain ? zero_f_ : static_cast<const void*>(zero_i_);
        continue;
      }
      const int a = v.args[k];
      const bool arg_float = is_float(k_.values[a].dtype);
      TGC_INTERNAL_CHECK(s.float_domain || !arg_float, "an integer-domain op reads a float value");
      if (s.float_domain && !arg_float) {
        s.widen[k] = static_cast<const int64_t*>(block_[a]);
        s.args[k] = widen_[k];
      } else {
        s.args[k] = block_[a];
      }
    }
    s.value = block_[i];
    s.round = select_round(s.float_domain, v.dtype);
    const bool same_domain = s.float_domain == is_float(v.dtype);
    s.result = same_domain ? block_[i] : (s.float_domain ? static_cast<void*>(temp_f_) : temp_i_);
    // A value only written out needs no rounding pass: the store converts exactly so.
    if (same_domain && !read_[i]) s.round = nullptr;
    return s;
  }

  void add_load(Phase& phase, int i, const Shape& space) {
    const Tensor& t = inputs_[k_.values[i].input];
    const int operand = phase.operand(broadcast_strides(t.shape(), t.strides(), space));
    phase.loads.push_back({operand, select_load(t.dtype()), static_cast<const char*>(t.raw_data()),
                           static_cast<int64_t>(dtype_size(t.dtype())), block_[i]});
  }

  void add_stores(Phase& phase) {
    for (size_t j = 0; j < k_.outputs.size(); ++j) {
      Tensor& t = outputs_[j];
      const int operand = phase.operand(t.strides());
      phase.stores.push_back({operand, select_store(t.dtype()), static_cast<char*>(t.raw_data()),
                              static_cast<int64_t>(dtype_size(t.dtype())), block_[k_.outputs[j].value]});
    }
  }

  const Kernel& k_;
  const KernelShapes& s_;
  const std::vector<Tensor>& inputs_;
  std::vector<Tensor>& outputs_;
  const std::vector<int>& inplace_;
  std::vector<bool> epilogue_, uniform_;
  std::vector<bool> read_;  // whether another value reads it
  std::vector<double> fmem_;
  std::vector<int64_t> imem_;
  std::vector<void*> block_;
  double* zero_f_ = nullptr;
  std::array<double*, kMaxArity> widen_{};
  double* temp_f_ = nullptr;
  int64_t* zero_i_ = nullptr;
  int64_t* temp_i_ = nullptr;
  std::vector<Accumulator> accs_;
  int64_t reduced_count_ = 0, out_numel_ = 0;
};

}  // namespace

void run_kernel_fast(const Kernel& kernel, const KernelShapes& shapes, const std::vector<Tensor>& inputs,
                     std::vector<Tensor>& outputs, const std::vector<int>& inplace) {
  TGC_INTERNAL_CHECK(shapes.fast, "run_kernel_fast: the single pass does not apply to these shapes");
  FastRun(kernel, shapes, inputs, outputs, inplace).run();
}

}  // namespace tgc
