// Kernel IR -> LLVM IR. An internal function with noalias operand pointers holds the loop
// nest (inlined into the exported entry, which unpacks the pointer array, so LLVM keeps the
// no-aliasing facts as scoped metadata). Elementwise kernels: loops over the outer dims with
// per-operand pointers, then the inner loop in a unit-stride and a strided version.
// Reduction kernels: loops over the kept dims; at each output point accumulators are set,
// the reduced dims are looped (prologue values folded in), and the epilogue computes and
// stores the outputs (or, split by the launcher, store or combine chunk accumulators: the
// ReductionSplit of kernel_abi.h); a reduction whose innermost kept dim is contiguous folds
// whole rows into rows of accumulators instead (column mode). Float max/min fold in a vectorizable form (NaN-free max plus an
// any-NaN flag); the rare points where that form could differ from the reference in the bits
// (a NaN, or a zero result whose sign depends on order) are folded again the exact way.
#include "backends/cpu/kernel_codegen.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "backends/cpu/scalar_codegen.h"
#include "runtime/error.h"

namespace tgc::cpu {

using llvm::Value;

KernelLayout kernel_layout(const Kernel& kernel) {
  if (!kernel.is_reduction()) return {std::clamp(kernel.ndim, 1, kMaxRenderedDims), 0};
  const int reduced = static_cast<int>(kernel.reduce_axes.size());
  return {std::min(kernel.ndim - reduced, kMaxRenderedDims), std::clamp(reduced, 1, kMaxRenderedDims)};
}

namespace {

// Values computed at one point of the loop nest: each value once, loads through the
// operand pointers valid there (null for operands not addressed at this point).
struct Region {
  std::vector<Value*> memo;
  std::vector<Value*> ptr;
};

class Renderer {
 public:
  Renderer(const Kernel& k, llvm::LLVMContext& ctx, llvm::Module& m, const CodegenOptions& options)
      : k_(k), ctx_(ctx), m_(m), b_(ctx), layout_(kernel_layout(k)),
        nin_(static_cast<int>(k.inputs.size())), nops_(nin_ + static_cast<int>(k.outputs.size())),
        epilogue_(k.epilogue_mask()), reduction_(k.is_reduction()), float32_math_(options.float32_math) {
    if (options.fast_math) b_.setFastMathFlags(llvm::FastMathFlags::getFast());
  }

  void render(const std::string& symbol) {
    llvm::Type* ptr = llvm::PointerType::getUnqual(ctx_);
    llvm::Type* i32 = b_.getInt32Ty();
    std::vector<llvm::Type*> params{ptr, ptr};
    params.insert(params.end(), static_cast<size_t>(nops_), ptr);
    if (reduction_) params.push_back(ptr);  // the ReductionSplit (kernel_abi.h), or null
    auto* impl_ty = llvm::FunctionType::get(i32, params, false);
    impl_ = llvm::Function::Create(impl_ty, llvm::Function::InternalLinkage, symbol + "_impl", m_);
    impl_->addFnAttr(llvm::Attribute::AlwaysInline);
    impl_->addFnAttr(llvm::Attribute::NoUnwind);
    for (int op = 0; op < nops_ + (reduction_ ? 1 : 0); ++op) impl_->addParamAttr(2 + op, llvm::Attribute::NoAlias);
    render_impl();

    auto* entry_ty = llvm::FunctionType::get(i32, {ptr, ptr, ptr}, false);
    llvm::Function* entry = llvm::Function::Create(entry_ty, llvm::Function::ExternalLinkage, symbol, m_);
    entry->addFnAttr(llvm::Attribute::NoUnwind);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
    std::vector<Value*> args{entry->getArg(0), entry->getArg(1)};
    for (int op = 0; op < nops_ + (reduction_ ? 1 : 0); ++op)
      args.push_back(b_.CreateLoad(ptr, b_.CreateConstGEP1_64(ptr, entry->getArg(2), static_cast<uint64_t>(op))));
    b_.CreateRet(b_.CreateCall(impl_, args));
  }

 private:
  void render_impl() {
    llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx_, "entry", impl_);
    b_.SetInsertPoint(entry);
    llvm::Type* i64 = b_.getInt64Ty();
    error_slot_ = b_.CreateAlloca(b_.getInt32Ty(), nullptr, "errors");
    b_.CreateStore(b_.getInt32(0), error_slot_);
    const int rank = layout_.rank();
    for (int d = 0; d < rank; ++d)
      shape_.push_back(b_.CreateLoad(i64, b_.CreateConstGEP1_64(i64, impl_->getArg(0), static_cast<uint64_t>(d))));
    strides_.assign(static_cast<size_t>(nops_), {});
    for (int op = 0; op < nops_; ++op)
      for (int d = 0; d < rank; ++d)
        strides_[op].push_back(b_.CreateLoad(
            i64, b_.CreateConstGEP1_64(i64, impl_->getArg(1), static_cast<uint64_t>(op * rank + d))));
    std::vector<Value*> ptrs;
    for (int op = 0; op < nops_; ++op) ptrs.push_back(impl_->getArg(2 + op));
    if (reduction_) {
      for (size_t i = 0; i < k_.values.size(); ++i)
        if (k_.values[i].kind == KernelValue::Kind::Reduce) {
          acc_slot_[static_cast<int>(i)] = b_.CreateAlloca(accumulator_type(k_.values[i]), nullptr, "acc");
          if (is_float_max_min(k_.values[i]))
            nan_slot_[static_cast<int>(i)] = b_.CreateAlloca(b_.getInt1Ty(), nullptr, "any_nan");
        }
      read_split();
      if (column_mode_possible())
        for (auto& [i, slot] : acc_slot_)
          column_slot_[i] =
              b_.CreateAlloca(llvm::ArrayType::get(accumulator_type(k_.values[i]), kColumnTile), nullptr, "acc.row");
      kept_loops(0, ptrs);
    } else {
      outer_loops(0, ptrs, [&](const std::vector<Value*>& p) {
        inner_loop(rank - 1, p, all_operands(), [&](const std::vector<Value*>& q) { store_outputs(q, {}); });
      });
    }
    b_.CreateRet(b_.CreateLoad(b_.getInt32Ty(), error_slot_));
  }

  using Body = std::function<void(const std::vector<Value*>&)>;

  // for (i = 0; i < n; ++i) body(i), in LLVM's rotated loop form.
  // A loop whose body calls a function (libm: the vectorizer makes it a libmvec call) is
  // vectorized without interleaving: every vector register is clobbered by such a call, so
  // interleaved copies only spill and reload each other's values around the calls (check1's
  // loop: six 64-byte spills and reloads per four calls at 512 bits), and the calls run one
  // after the other anyway.
  void loop(Value* n, const std::function<void(Value*)>& body) {
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "loop", f);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "loop.exit", f);
    b_.CreateCondBr(b_.CreateICmpSGT(n, b_.getInt64(0)), header, exit);
    b_.SetInsertPoint(header);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
    i->addIncoming(b_.getInt64(0), pre);
    body(i);
    Value* next = b_.CreateAdd(i, b_.getInt64(1), "i.next", /*HasNUW=*/true, /*HasNSW=*/true);
    i->addIncoming(next, b_.GetInsertBlock());
    llvm::BranchInst* latch = b_.CreateCondBr(b_.CreateICmpSLT(next, n), header, exit);
    if (calls_a_function(header)) latch->setMetadata(llvm::LLVMContext::MD_loop, no_interleaving());
    b_.SetInsertPoint(exit);
  }

  // Whether the blocks from `first` on (a loop being built: its header, exit and body) call
  // a function other than an LLVM intrinsic.
  static bool calls_a_function(llvm::BasicBlock* first) {
    llvm::Function* f = first->getParent();
    for (auto bb = first->getIterator(); bb != f->end(); ++bb)
      for (llvm::Instruction& inst : *bb)
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst); call && !call->getCalledFunction()->isIntrinsic())
          return true;
    return false;
  }

  // Loop metadata: interleave count 1 (the vector width is still the vectorizer's choice).
  llvm::MDNode* no_interleaving() {
    llvm::Metadata* count[] = {llvm::MDString::get(ctx_, "llvm.loop.interleave.count"),
                               llvm::ConstantAsMetadata::get(b_.getInt32(1))};
    // A loop ID's first operand is the ID itself: made with a temporary node, then replaced.
    llvm::TempMDTuple self = llvm::MDNode::getTemporary(ctx_, {});
    llvm::Metadata* ops[] = {self.get(), llvm::MDNode::get(ctx_, count)};
    llvm::MDNode* id = llvm::MDNode::getDistinct(ctx_, ops);
    id->replaceOperandWith(0, id);
    return id;
  }

  std::vector<int> all_operands() const {
    std::vector<int> ops;
    for (int op = 0; op < nops_; ++op) ops.push_back(op);
    return ops;
  }
  std::vector<int> loop_space_inputs() const {
    std::vector<int> ops;
    for (int op = 0; op < nin_; ++op)
      if (!k_.inputs[op].in_output_space) ops.push_back(op);
    return ops;
  }

  llvm::Type* elem_type(int op) const {
    DType t = op < nin_ ? k_.inputs[op].dtype : k_.outputs[op - nin_].dtype;
    return memory_type(t, ctx_);
  }

  // The pointers of `ops` advanced by i * stride along dim d (others unchanged).
  std::vector<Value*> advance(const std::vector<Value*>& ptrs, const std::vector<int>& ops, int d, Value* i) {
    std::vector<Value*> next = ptrs;
    for (int op : ops)
      next[op] = b_.CreateGEP(elem_type(op), ptrs[op], b_.CreateMul(i, strides_[op][d], "", false, true));
    return next;
  }

  // Elementwise kernels: loops over dims [d, outer_rank - 1) (all but the inner dim), then
  // body at each point. (Reductions loop over their kept dims in kept_loops.)
  void outer_loops(int d, const std::vector<Value*>& ptrs, const Body& body) {
    if (d >= layout_.outer_rank - 1) return body(ptrs);
    loop(shape_[d], [&](Value* i) { outer_loops(d + 1, advance(ptrs, all_operands(), d, i), body); });
  }

  // Whether input `op` is broadcast along loop dim `axis` by its static shape (a missing or
  // known-1 dim): its stride there is 0 whenever the fast path applies.
  bool statically_broadcast(int op, int axis) const {
    const KernelInput& in = k_.inputs[op];
    const int dim = axis - (k_.ndim - in.ndim);
    return dim < 0 || in.static_shape[dim] == 1;
  }

  // The innermost loop (dim d) over `ops`: the unit-stride version when every operand's
  // stride is what its static shape predicts (0 for broadcast inputs, 1 otherwise), else the
  // strided version.
  void inner_loop(int d, const std::vector<Value*>& ptrs, const std::vector<int>& ops, const Body& body) {
    const int inner_axis = reduction_ ? (k_.reduce_axes.empty() ? -1 : k_.reduce_axes.back()) : k_.ndim - 1;
    std::vector<bool> broadcast(static_cast<size_t>(nops_), false);
    Value* fast = b_.getTrue();
    for (int op : ops) {
      broadcast[op] = op < nin_ && (inner_axis < 0 || statically_broadcast(op, inner_axis));
      fast = b_.CreateAnd(fast, b_.CreateICmpEQ(strides_[op][d], b_.getInt64(broadcast[op] ? 0 : 1)));
    }
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    llvm::BasicBlock* unit = llvm::BasicBlock::Create(ctx_, "inner.unit", f);
    llvm::BasicBlock* strided = llvm::BasicBlock::Create(ctx_, "inner.strided", f);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "inner.done", f);
    b_.CreateCondBr(fast, unit, strided);

    b_.SetInsertPoint(unit);
    loop(shape_[d], [&](Value* i) {
      std::vector<Value*> q = ptrs;
      for (int op : ops)
        if (!broadcast[op]) q[op] = b_.CreateGEP(elem_type(op), ptrs[op], i);
      body(q);
    });
    b_.CreateBr(done);

    b_.SetInsertPoint(strided);
    loop(shape_[d], [&](Value* i) { body(advance(ptrs, ops, d, i)); });
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  Value* value(Region& r, int i) {
    if (r.memo[i]) return r.memo[i];
    const KernelValue& v = k_.values[i];
    Value* result = nullptr;
    switch (v.kind) {
      case KernelValue::Kind::Load: {
        TGC_INTERNAL_CHECK(r.ptr[v.input] != nullptr, "kernel load outside its space");
        llvm::Type* t = memory_type(v.dtype, ctx_);
        llvm::LoadInst* load = b_.CreateLoad(t, r.ptr[v.input]);
        load->setAlignment(llvm::Align(dtype_size(v.dtype)));
        result = from_memory(b_, load, v.dtype);
        break;
      }
      case KernelValue::Kind::Constant: result = emit_constant(b_, v); break;
      case KernelValue::Kind::Op: {
        std::vector<Value*> args;
        std::vector<DType> dtypes;
        for (int a : v.args) {
          args.push_back(value(r, a));
          dtypes.push_back(k_.values[a].dtype);
        }
        ScalarEmitter e{b_, m_, error_slot_, float32_math_};
        result = emit_scalar_op(e, v, args, dtypes);
        break;
      }
      case KernelValue::Kind::Reduce:
        TGC_INTERNAL_CHECK(false, "a reduced value is read before the reduction ends");
        break;
    }
    r.memo[i] = result;
    return result;
  }

  void store_outputs(const std::vector<Value*>& ptrs, const std::vector<std::pair<int, Value*>>& reduced) {
    Region r{std::vector<Value*>(k_.values.size(), nullptr), ptrs};
    for (auto [i, v] : reduced) r.memo[i] = v;
    for (size_t j = 0; j < k_.outputs.size(); ++j) {
      const KernelOutput& o = k_.outputs[j];
      llvm::StoreInst* store = b_.CreateStore(to_memory(b_, value(r, o.value), o.dtype), ptrs[nin_ + j]);
      store->setAlignment(llvm::Align(dtype_size(o.dtype)));
    }
  }

  // ---- Reductions.

  // Sums, products and means accumulate floats in double (like CAReduce and Mean) and
  // int64 with wrap-around; max/min/all/any in the value's own type.
  llvm::Type* accumulator_type(const KernelValue& v) const {
    switch (v.reduce_op) {
      case KernelReduceOp::Sum:
      case KernelReduceOp::Prod:
      case KernelReduceOp::Mean:
        return is_float(v.dtype) ? llvm::Type::getDoubleTy(ctx_) : llvm::Type::getInt64Ty(ctx_);
      case KernelReduceOp::Max:
      case KernelReduceOp::Min:
      case KernelReduceOp::All:
      case KernelReduceOp::Any: return register_type(v.dtype, ctx_);
    }
    return nullptr;
  }

  Value* initial(const KernelValue& v) {
    llvm::Type* t = accumulator_type(v);
    const bool fp = t->isFloatingPointTy();
    switch (v.reduce_op) {
      case KernelReduceOp::Sum:
      case KernelReduceOp::Mean: return fp ? llvm::ConstantFP::get(t, 0.0) : b_.getInt64(0);
      case KernelReduceOp::Prod: return fp ? llvm::ConstantFP::get(t, 1.0) : b_.getInt64(1);
      case KernelReduceOp::All: return b_.getTrue();
      case KernelReduceOp::Any: return b_.getFalse();
      case KernelReduceOp::Max:
      case KernelReduceOp::Min: {
        const bool is_max = v.reduce_op == KernelReduceOp::Max;
        if (fp) return llvm::ConstantFP::getInfinity(t, /*Negative=*/is_max);
        const unsigned bits = t->getIntegerBitWidth();
        if (v.dtype == DType::Bool || is_unsigned_integer(v.dtype))
          return llvm::ConstantInt::get(ctx_, is_max ? llvm::APInt::getMinValue(bits) : llvm::APInt::getMaxValue(bits));
        return llvm::ConstantInt::get(ctx_, is_max ? llvm::APInt::getSignedMinValue(bits)
                                                   : llvm::APInt::getSignedMaxValue(bits));
      }
    }
    return nullptr;
  }

  static bool is_float_max_min(const KernelValue& v) {
    return is_float(v.dtype) && (v.reduce_op == KernelReduceOp::Max || v.reduce_op == KernelReduceOp::Min);
  }

  // Float max/min, vectorizable: NaN elements count as the initial value (-inf for max) in a
  // NaN-free max that LLVM may reorder (nnan nsz: a max reduction), and set the any-NaN
  // flag. The result equals the reference's whenever no NaN was seen and it is not a zero
  // (a nonzero float value has one bit pattern); output_point refolds the other points.
  Value* fold_vectorizable(const KernelValue& v, Value* acc, Value* x, llvm::AllocaInst* nan_slot) {
    const bool is_max = v.reduce_op == KernelReduceOp::Max;
    Value* is_nan = b_.CreateFCmpUNO(x, x);
    b_.CreateStore(b_.CreateOr(b_.CreateLoad(b_.getInt1Ty(), nan_slot), is_nan), nan_slot);
    Value* clean = b_.CreateSelect(is_nan, initial(v), x);
    llvm::FastMathFlags nan_free;
    nan_free.setNoNaNs();
    nan_free.setNoSignedZeros();
    llvm::IRBuilder<>::FastMathFlagGuard guard(b_);
    b_.setFastMathFlags(nan_free);
    Value* take = is_max ? b_.CreateFCmpOGT(clean, acc) : b_.CreateFCmpOLT(clean, acc);
    return b_.CreateSelect(take, clean, acc);
  }

  Value* fold(const KernelValue& v, Value* acc, Value* x) {
    const bool fp = is_float(v.dtype);
    switch (v.reduce_op) {
      case KernelReduceOp::Sum:
      case KernelReduceOp::Mean:
      case KernelReduceOp::Prod: {
        const bool sum = v.reduce_op != KernelReduceOp::Prod;
        if (!fp) return sum ? b_.CreateAdd(acc, x) : b_.CreateMul(acc, x);
        Value* wide = to_double(b_, x, v.dtype);
        Value* r = sum ? b_.CreateFAdd(acc, wide) : b_.CreateFMul(acc, wide);
        // A fixed order chosen by the compiled code (vector lanes, then lanes combined):
        // the same on every run and for every thread count (threads split output points).
        if (auto* inst = llvm::dyn_cast<llvm::Instruction>(r)) inst->setHasAllowReassoc(true);
        return r;
      }
      case KernelReduceOp::Max:
      case KernelReduceOp::Min: {
        const bool is_max = v.reduce_op == KernelReduceOp::Max;
        Value* take;
        if (fp) {  // a NaN element wins and stays, as in CAReduce
          take = b_.CreateOr(is_max ? b_.CreateFCmpOGT(x, acc) : b_.CreateFCmpOLT(x, acc), b_.CreateFCmpUNO(x, x));
        } else if (v.dtype == DType::Bool || is_unsigned_integer(v.dtype)) {
          take = is_max ? b_.CreateICmpUGT(x, acc) : b_.CreateICmpULT(x, acc);
        } else {
          take = is_max ? b_.CreateICmpSGT(x, acc) : b_.CreateICmpSLT(x, acc);
        }
        return b_.CreateSelect(take, x, acc);
      }
      case KernelReduceOp::All: return b_.CreateAnd(acc, x);
      case KernelReduceOp::Any: return b_.CreateOr(acc, x);
    }
    return nullptr;
  }

  Value* finish(const KernelValue& v, Value* acc) {
    if (!acc->getType()->isDoubleTy()) return acc;
    if (v.reduce_op == KernelReduceOp::Mean) {
      Value* count = b_.getInt64(1);
      for (int d = layout_.outer_rank; d < layout_.rank(); ++d) count = b_.CreateMul(count, shape_[d]);
      acc = b_.CreateFDiv(acc, b_.CreateSIToFP(count, b_.getDoubleTy()));  // 0/0 is NaN, as Mean
    }
    return from_double(b_, acc, v.dtype);
  }

  // The call's ReductionSplit, read once at entry: a null split reads as mode 0 from a
  // zeroed stand-in, so the entry needs no branch.
  void read_split() {
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::Type* split_ty = llvm::StructType::get(ctx_, {i64, i64, b_.getPtrTy()});
    llvm::AllocaInst* none = b_.CreateAlloca(split_ty, nullptr, "no_split");
    b_.CreateStore(llvm::Constant::getNullValue(split_ty), none);
    Value* split = impl_->getArg(2 + nops_);
    Value* from = b_.CreateSelect(b_.CreateIsNull(split), none, split);
    split_mode_ = b_.CreateLoad(i64, b_.CreateStructGEP(split_ty, from, 0), "split.mode");
    split_chunks_ = b_.CreateLoad(i64, b_.CreateStructGEP(split_ty, from, 1), "split.chunks");
    split_partials_ = b_.CreateLoad(b_.getPtrTy(), b_.CreateStructGEP(split_ty, from, 2), "split.partials");
  }

  // One output point. With a ReductionSplit (kernel_abi.h) the point either stores its
  // accumulators unfinished (mode 1: the launcher's chunk of the reduced range) or folds the
  // chunks' stored accumulators in order (mode 2) before finishing as usual.
  void output_point(const std::vector<Value*>& ptrs) {
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    llvm::Type* i64 = b_.getInt64Ty();
    Value* mode = split_mode_;
    Value* chunks = split_chunks_;
    Value* partials = split_partials_;
    llvm::BasicBlock* compute = llvm::BasicBlock::Create(ctx_, "point.compute", f);
    llvm::BasicBlock* combine = llvm::BasicBlock::Create(ctx_, "point.combine", f);
    llvm::BasicBlock* finish_point = llvm::BasicBlock::Create(ctx_, "point.finish", f);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "point.done", f);
    b_.CreateCondBr(b_.CreateICmpEQ(mode, b_.getInt64(2)), combine, compute);

    b_.SetInsertPoint(combine);
    for (auto& [i, slot] : acc_slot_) b_.CreateStore(initial(k_.values[i]), slot);
    const uint64_t naccs = acc_slot_.size();
    loop(chunks, [&](Value* c) {
      Value* set = b_.CreateMul(c, b_.getInt64(naccs));
      uint64_t a = 0;
      for (auto& [i, slot] : acc_slot_) {
        const KernelValue& v = k_.values[i];
        llvm::Type* t = accumulator_type(v);
        Value* x = b_.CreateLoad(t, b_.CreateGEP(i64, partials, b_.CreateAdd(set, b_.getInt64(a++))));
        b_.CreateStore(combine_partial(v, b_.CreateLoad(t, slot), x), slot);
      }
    });
    b_.CreateBr(finish_point);

    b_.SetInsertPoint(compute);
    compute_point(ptrs);
    llvm::BasicBlock* store_partials = llvm::BasicBlock::Create(ctx_, "point.partials", f);
    b_.CreateCondBr(b_.CreateICmpEQ(mode, b_.getInt64(1)), store_partials, finish_point);
    b_.SetInsertPoint(store_partials);
    {
      uint64_t a = 0;
      for (auto& [i, slot] : acc_slot_) {
        llvm::Type* t = accumulator_type(k_.values[i]);
        b_.CreateStore(b_.CreateLoad(t, slot), b_.CreateConstGEP1_64(i64, partials, a++));
      }
    }
    b_.CreateBr(done);

    b_.SetInsertPoint(finish_point);
    std::vector<std::pair<int, Value*>> reduced;
    for (auto& [i, slot] : acc_slot_) {
      const KernelValue& v = k_.values[i];
      reduced.emplace_back(i, finish(v, b_.CreateLoad(accumulator_type(v), slot)));
    }
    store_outputs(ptrs, reduced);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  // Folds a chunk's stored accumulator `x` into `acc`, chunks in order: sums and products
  // in the accumulator's type, max/min by the reference's rule (a NaN wins and the last one
  // stays; of equal values the first stays), which gives the whole range's fold.
  Value* combine_partial(const KernelValue& v, Value* acc, Value* x) {
    const bool fp = acc->getType()->isFloatingPointTy();
    switch (v.reduce_op) {
      case KernelReduceOp::Sum:
      case KernelReduceOp::Mean: return fp ? b_.CreateFAdd(acc, x) : b_.CreateAdd(acc, x);
      case KernelReduceOp::Prod: return fp ? b_.CreateFMul(acc, x) : b_.CreateMul(acc, x);
      case KernelReduceOp::Max:
      case KernelReduceOp::Min:
      case KernelReduceOp::All:
      case KernelReduceOp::Any: return fold(v, acc, x);
    }
    return nullptr;
  }

  // ---- Column mode: a reduction whose innermost kept dim is contiguous (a sum over axis 0
  // of a row-major matrix: the bias gradient) folds whole rows into a row of accumulators,
  // kColumnTile output points at a time, instead of walking each output point's column
  // with a stride: the row loop is unit-stride and vectorizes, and no point waits on its own
  // chain of dependent adds. Each point still folds its elements in the reduced dims' order.

  // Output points per tile: the accumulator rows (8 KiB each for double) stay in L1.
  static constexpr uint64_t kColumnTile = 1024;

  // The last kernel axis that is not reduced (the innermost kept dim of the layout); -1 if
  // every axis is reduced.
  int last_kept_axis() const {
    for (int a = k_.ndim - 1; a >= 0; --a)
      if (std::find(k_.reduce_axes.begin(), k_.reduce_axes.end(), a) == k_.reduce_axes.end()) return a;
    return -1;
  }

  // Column mode folds every accumulator element by element; a float max/min is left to the
  // point-by-point path, whose refold of NaN and zero results walks one point at a time.
  bool column_mode_possible() const {
    if (!reduction_ || layout_.outer_rank < 1 || last_kept_axis() < 0) return false;
    for (const KernelValue& v : k_.values)
      if (v.kind == KernelValue::Kind::Reduce && is_float_max_min(v)) return false;
    return true;
  }

  // The loops over the kept dims of a reduction, then each output point. With column mode
  // the innermost kept dim runs in tiles when, at run time, no ReductionSplit is given, it
  // has more than one point, and every loop-space input and output is contiguous along it
  // (inputs broadcast along it by their static shape: stride 0).
  void kept_loops(int d, const std::vector<Value*>& ptrs) {
    const int outer = layout_.outer_rank;
    if (d >= outer) return output_point(ptrs);
    auto points = [&] {
      loop(shape_[d], [&](Value* i) { kept_loops(d + 1, advance(ptrs, all_operands(), d, i)); });
    };
    if (d != outer - 1 || column_slot_.empty()) return points();
    const int axis = last_kept_axis();
    Value* column = b_.CreateAnd(b_.CreateICmpEQ(split_mode_, b_.getInt64(0)), b_.CreateICmpSGT(shape_[d], b_.getInt64(1)));
    for (int op : loop_space_inputs())
      column = b_.CreateAnd(column, b_.CreateICmpEQ(strides_[op][d], b_.getInt64(statically_broadcast(op, axis) ? 0 : 1)));
    for (int op = nin_; op < nops_; ++op) column = b_.CreateAnd(column, b_.CreateICmpEQ(strides_[op][d], b_.getInt64(1)));
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    llvm::BasicBlock* tiles = llvm::BasicBlock::Create(ctx_, "column.tiles", f);
    llvm::BasicBlock* each = llvm::BasicBlock::Create(ctx_, "column.points", f);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "column.done", f);
    b_.CreateCondBr(column, tiles, each);
    b_.SetInsertPoint(tiles);
    column_tiles(d, ptrs);
    b_.CreateBr(done);
    b_.SetInsertPoint(each);
    points();
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  // Kept dim d in tiles of kColumnTile points: set a row of accumulators, fold every reduced
  // point's row into it, then finish and store the row's outputs.
  void column_tiles(int d, const std::vector<Value*>& ptrs) {
    Value* n = shape_[d];
    Value* tile = b_.getInt64(kColumnTile);
    Value* count = b_.CreateUDiv(b_.CreateAdd(n, b_.getInt64(kColumnTile - 1)), tile);
    loop(count, [&](Value* t) {
      Value* first = b_.CreateMul(t, tile);
      Value* left = b_.CreateSub(n, first);
      Value* len = b_.CreateSelect(b_.CreateICmpSLT(left, tile), left, tile);
      const std::vector<Value*> row = advance(ptrs, all_operands(), d, first);
      loop(len, [&](Value* j) {
        for (auto& [i, slot] : column_slot_) {
          const KernelValue& v = k_.values[i];
          b_.CreateStore(initial(v), b_.CreateGEP(accumulator_type(v), slot, j));
        }
      });
      column_fold(layout_.outer_rank, row, len);
      loop(len, [&](Value* j) {
        std::vector<std::pair<int, Value*>> reduced;
        for (auto& [i, slot] : column_slot_) {
          const KernelValue& v = k_.values[i];
          reduced.emplace_back(i, finish(v, b_.CreateLoad(accumulator_type(v), b_.CreateGEP(accumulator_type(v), slot, j))));
        }
        store_outputs(advance(row, all_operands(), d, j), reduced);
      });
    });
  }

  // The reduced loops of a tile from dim rd on; at each reduced point the tile's row of
  // `len` elements is folded into the accumulator rows (unit stride: column mode's condition).
  void column_fold(int rd, const std::vector<Value*>& ptrs, Value* len) {
    const std::vector<int> ops = loop_space_inputs();
    if (rd < layout_.rank()) {
      loop(shape_[rd], [&](Value* i) { column_fold(rd + 1, advance(ptrs, ops, rd, i), len); });
      return;
    }
    const int axis = last_kept_axis();
    loop(len, [&](Value* j) {
      std::vector<Value*> prologue_ptrs(static_cast<size_t>(nops_), nullptr);
      for (int op : ops) prologue_ptrs[op] = statically_broadcast(op, axis) ? ptrs[op] : b_.CreateGEP(elem_type(op), ptrs[op], j);
      Region r{std::vector<Value*>(k_.values.size(), nullptr), prologue_ptrs};
      for (auto& [i, slot] : column_slot_) {
        const KernelValue& v = k_.values[i];
        Value* at = b_.CreateGEP(accumulator_type(v), slot, j);
        b_.CreateStore(fold(v, b_.CreateLoad(accumulator_type(v), at), value(r, v.args[0])), at);
      }
    });
  }

  // The accumulators of one output point over the call's reduced range, exact.
  void compute_point(const std::vector<Value*>& ptrs) {
    for (auto& [i, slot] : acc_slot_) b_.CreateStore(initial(k_.values[i]), slot);
    for (auto& [i, slot] : nan_slot_) b_.CreateStore(b_.getFalse(), slot);
    reduced_loops(layout_.outer_rank, ptrs, /*exact=*/false);
    if (!nan_slot_.empty()) {
      // A NaN was seen (the reference keeps the last NaN element, bits and all) or the
      // result is a zero (the reference keeps the first zero of the maximal ones, -0 or +0):
      // fold the float max/min accumulators again in order, the reference's way. Other
      // points, nearly all, pay nothing.
      Value* refold = b_.getFalse();
      for (auto& [i, nan_slot] : nan_slot_) {
        Value* acc = b_.CreateLoad(accumulator_type(k_.values[i]), acc_slot_[i]);
        Value* zero = b_.CreateFCmpOEQ(acc, llvm::ConstantFP::get(acc->getType(), 0.0));
        refold = b_.CreateOr(refold, b_.CreateOr(b_.CreateLoad(b_.getInt1Ty(), nan_slot), zero));
      }
      llvm::Function* f = b_.GetInsertBlock()->getParent();
      llvm::BasicBlock* exact = llvm::BasicBlock::Create(ctx_, "maxmin.exact", f);
      llvm::BasicBlock* join = llvm::BasicBlock::Create(ctx_, "maxmin.done", f);
      b_.CreateCondBr(refold, exact, join);
      b_.SetInsertPoint(exact);
      for (auto& [i, nan_slot] : nan_slot_) b_.CreateStore(initial(k_.values[i]), acc_slot_[i]);
      reduced_loops(layout_.outer_rank, ptrs, /*exact=*/true);
      b_.CreateBr(join);
      b_.SetInsertPoint(join);
    }
  }

  // The reduced loops of one output point. exact: only the float max/min accumulators, in
  // the reference's order-dependent form (the refold of output_point).
  void reduced_loops(int d, const std::vector<Value*>& ptrs, bool exact) {
    const std::vector<int> ops = loop_space_inputs();
    if (d == layout_.rank() - 1) {
      inner_loop(d, ptrs, ops, [&](const std::vector<Value*>& q) { accumulate(q, exact); });
      return;
    }
    loop(shape_[d], [&](Value* i) { reduced_loops(d + 1, advance(ptrs, ops, d, i), exact); });
  }

  void accumulate(const std::vector<Value*>& ptrs, bool exact) {
    std::vector<Value*> prologue_ptrs(static_cast<size_t>(nops_), nullptr);
    for (int op : loop_space_inputs()) prologue_ptrs[op] = ptrs[op];
    Region r{std::vector<Value*>(k_.values.size(), nullptr), prologue_ptrs};
    for (auto& [i, slot] : acc_slot_) {
      const KernelValue& v = k_.values[i];
      auto nan_slot = nan_slot_.find(i);
      if (exact && nan_slot == nan_slot_.end()) continue;
      Value* x = value(r, v.args[0]);
      Value* acc = b_.CreateLoad(accumulator_type(v), slot);
      b_.CreateStore(exact || nan_slot == nan_slot_.end() ? fold(v, acc, x)
                                                          : fold_vectorizable(v, acc, x, nan_slot->second),
                     slot);
    }
  }

  const Kernel& k_;
  llvm::LLVMContext& ctx_;
  llvm::Module& m_;
  llvm::IRBuilder<> b_;
  KernelLayout layout_;
  int nin_, nops_;
  std::vector<bool> epilogue_;
  bool reduction_;
  bool float32_math_;  // float32 transcendentals in float (CodegenOptions)
  llvm::Function* impl_ = nullptr;
  Value* error_slot_ = nullptr;
  std::vector<Value*> shape_;
  std::vector<std::vector<Value*>> strides_;
  std::map<int, Value*> acc_slot_;  // Reduce value index -> its accumulator
  std::map<int, llvm::AllocaInst*> nan_slot_;  // float max/min Reduce value -> its any-NaN flag
  std::map<int, llvm::AllocaInst*> column_slot_;  // column mode: Reduce value -> its accumulator row
  Value* split_mode_ = nullptr;      // reductions: the ReductionSplit's mode (0 without one),
  Value* split_chunks_ = nullptr;    // chunk count
  Value* split_partials_ = nullptr;  // and partials pointer
};

}  // namespace

std::unique_ptr<llvm::Module> render_kernel(const Kernel& kernel, llvm::LLVMContext& ctx, const std::string& symbol,
                                            const CodegenOptions& options) {
  auto module = std::make_unique<llvm::Module>("tgc_kernel", ctx);
  Renderer(kernel, ctx, *module, options).render(symbol);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  TGC_INTERNAL_CHECK(!llvm::verifyModule(*module, &os), "the LLVM IR of a kernel is invalid: " + os.str());
  return module;
}

}  // namespace tgc::cpu
