// Kernel IR: the reduction helpers (epilogue mask, output rank) and the structural hash.
// Checking lives in kernel_validate.cpp, printing in kernel_print.cpp.
#include "compiler/kernel/kernel_ir.h"

#include <bit>

#include "runtime/content_hash.h"

namespace tgc {

std::string_view kernel_reduce_op_name(KernelReduceOp op) {
  switch (op) {
    case KernelReduceOp::Sum: return "sum";
    case KernelReduceOp::Prod: return "prod";
    case KernelReduceOp::Max: return "max";
    case KernelReduceOp::Min: return "min";
    case KernelReduceOp::All: return "all";
    case KernelReduceOp::Any: return "any";
    case KernelReduceOp::Mean: return "mean";
  }
  return "?";
}

bool Kernel::is_reduction() const {
  for (const KernelValue& v : values)
    if (v.kind == KernelValue::Kind::Reduce) return true;
  return false;
}

std::vector<bool> Kernel::epilogue_mask() const {
  std::vector<bool> mask(values.size(), false);
  for (size_t i = 0; i < values.size(); ++i) {
    const KernelValue& v = values[i];
    switch (v.kind) {
      case KernelValue::Kind::Load:
        mask[i] = v.input >= 0 && v.input < static_cast<int>(inputs.size()) &&
                  inputs[v.input].in_output_space;
        break;
      case KernelValue::Kind::Constant: break;  // usable on both sides
      case KernelValue::Kind::Reduce: mask[i] = true; break;
      case KernelValue::Kind::Op:
        for (int a : v.args)
          if (a >= 0 && static_cast<size_t>(a) < i && mask[a]) mask[i] = true;
        break;
    }
  }
  return mask;
}

int Kernel::output_ndim() const {
  return keepdims ? ndim : ndim - static_cast<int>(reduce_axes.size());
}

// The hash streams each field's bytes, in a fixed order with counts before lists, through
// XXH3 (runtime/content_hash.h), so it depends on the structure only (never on addresses)
// and is the same in every process.
// Constants are hashed by their bit pattern: 0.0 and -0.0 (which == calls equal) hash
// differently, which only ever separates kernels that behave differently (1/x).
uint64_t Kernel::hash() const {
  StreamHash64 h;
  h.i64(ndim);
  h.u64(inputs.size());
  for (const KernelInput& in : inputs) {
    h.u64(static_cast<uint64_t>(in.dtype));
    h.i64(in.ndim);
    h.u64(in.static_shape.size());
    for (int64_t d : in.static_shape) h.i64(d);
    h.u64(in.in_output_space ? 1 : 0);
  }
  h.u64(values.size());
  for (const KernelValue& v : values) {
    h.u64(static_cast<uint64_t>(v.kind));
    h.u64(static_cast<uint64_t>(v.dtype));
    h.i64(v.input);
    h.u64(std::bit_cast<uint64_t>(v.constant));
    h.i64(v.int_constant);
    h.u64(static_cast<uint64_t>(v.op));
    h.u64(static_cast<uint64_t>(v.reduce_op));
    h.u64(v.args.size());
    for (int a : v.args) h.i64(a);
    if (v.identity_when_empty) h.u64(0x1de7);  // only when set: other kernels keep their hashes
  }
  h.u64(outputs.size());
  for (const KernelOutput& o : outputs) {
    h.i64(o.value);
    h.u64(static_cast<uint64_t>(o.dtype));
  }
  h.u64(reduce_axes.size());
  for (int a : reduce_axes) h.i64(a);
  h.u64(keepdims ? 1 : 0);
  return h.value();
}

}  // namespace tgc
