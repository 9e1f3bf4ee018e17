// Scalar-op rendering: each row of the scalar-op table as LLVM IR, in the row's domain
// (double for floats, int64 for integers and bool), with the reference's NumPy semantics
// spelled out: Python floor division and modulo, NaN-propagating maximum/minimum, round half
// to even, saturating float->int casts (convert_value), wrap-around integer arithmetic.
// Float32 values compute in double and round once, like the reference; LLVM narrows the
// exact cases (+ - * / sqrt) back to float arithmetic on its own. Transcendental functions
// of float32 values call the float libm functions when float32_math is on (the default).
// Half values (only loads, Casts and stores: lowering computes on them in float32) are LLVM
// `half` for float16, converted by LLVM (F16C, or libgcc's routines: llvm_jit.cpp), and raw
// i16 bits for bfloat16, converted here as runtime/half_types.h does (LLVM 16 lowers
// bfloat arithmetic to routines Debian 12's libgcc lacks).
#include "backends/cpu/scalar_codegen.h"

#include <limits>

#include "backends/cpu/float32_math.h"
#include "runtime/error.h"

namespace tgc::cpu {

using llvm::Value;

namespace {

llvm::Type* f64(llvm::IRBuilder<>& b) { return b.getDoubleTy(); }
Value* dconst(llvm::IRBuilder<>& b, double v) { return llvm::ConstantFP::get(b.getDoubleTy(), v); }
Value* iconst(llvm::IRBuilder<>& b, int64_t v) { return b.getInt64(static_cast<uint64_t>(v)); }

Value* intrinsic1(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, Value* x) {
  return b.CreateUnaryIntrinsic(id, x);
}

// bfloat16 bits -> float: the bits are float32's top half.
Value* bfloat16_to_float(llvm::IRBuilder<>& b, Value* bits) {
  return b.CreateBitCast(b.CreateShl(b.CreateZExt(bits, b.getInt32Ty()), 16), b.getFloatTy());
}

// float -> bfloat16 bits, to nearest even; a NaN stays a quiet NaN.
Value* bfloat16_from_float(llvm::IRBuilder<>& b, Value* f) {
  Value* u = b.CreateBitCast(f, b.getInt32Ty());
  Value* odd = b.CreateAnd(b.CreateLShr(u, 16), b.getInt32(1));
  Value* rounded = b.CreateLShr(b.CreateAdd(u, b.CreateAdd(b.getInt32(0x7fff), odd)), 16);
  Value* quiet = b.CreateOr(b.CreateLShr(u, 16), b.getInt32(0x40));
  Value* is_nan = b.CreateFCmpUNO(f, f);
  return b.CreateTrunc(b.CreateSelect(is_nan, quiet, rounded), b.getInt16Ty());
}

// double -> bfloat16 bits, rounded once: within float's normal range at bfloat16's last
// bit in the double's own pattern (then exact in float), elsewhere through float.
Value* bfloat16_from_double(llvm::IRBuilder<>& b, Value* d) {
  Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, d);
  Value* in_range = b.CreateAnd(b.CreateFCmpOGE(a, dconst(b, 0x1p-126)), b.CreateFCmpOLT(a, dconst(b, 0x1p+128)));
  Value* u = b.CreateBitCast(d, b.getInt64Ty());
  Value* odd = b.CreateAnd(b.CreateLShr(u, 45), b.getInt64(1));
  Value* r = b.CreateAnd(b.CreateAdd(u, b.CreateAdd(b.getInt64(0xfffffffffffULL), odd)), b.getInt64(~0x1fffffffffffULL));
  Value* rounded = b.CreateSelect(in_range, b.CreateBitCast(r, b.getDoubleTy()), d);
  return bfloat16_from_float(b, b.CreateFPTrunc(rounded, b.getFloatTy()));
}


// A call of the libm function `name` on values of `type` (double, or float for the "f"
// functions). Declared without memory effects (tgc never reads errno) so the loop
// vectorizer may replace it with its libmvec variant.
Value* libm_call(ScalarEmitter& e, llvm::Type* type, const char* name, llvm::ArrayRef<Value*> args) {
  llvm::SmallVector<llvm::Type*, 2> types(args.size(), type);
  auto* fty = llvm::FunctionType::get(type, types, false);
  llvm::FunctionCallee callee = e.module.getOrInsertFunction(name, fty);
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  llvm::CallInst* call = e.b.CreateCall(callee, args);
  call->setDoesNotAccessMemory();
  return call;
}

Value* libm(ScalarEmitter& e, const char* name, std::initializer_list<Value*> args) {
  return libm_call(e, f64(e.b), name, llvm::ArrayRef<Value*>(args.begin(), args.size()));
}

void raise_error(ScalarEmitter& e, Value* cond, KernelErrorBit bit) {
  llvm::Type* i32 = e.b.getInt32Ty();
  Value* old = e.b.CreateLoad(i32, e.error_slot);
  Value* add = e.b.CreateSelect(cond, e.b.getInt32(bit), e.b.getInt32(0));
  e.b.CreateStore(e.b.CreateOr(old, add), e.error_slot);
}

// NumPy's maximum/minimum: the first operand wins ties and NaN in either operand wins.
Value* float_max(llvm::IRBuilder<>& b, Value* a, Value* c) {
  Value* take_a = b.CreateOr(b.CreateFCmpOGE(a, c), b.CreateFCmpUNO(a, a));
  return b.CreateSelect(take_a, a, c);
}
Value* float_min(llvm::IRBuilder<>& b, Value* a, Value* c) {
  Value* take_a = b.CreateOr(b.CreateFCmpOLE(a, c), b.CreateFCmpUNO(a, a));
  return b.CreateSelect(take_a, a, c);
}

// float_floor_div of the reference, branch free.
Value* float_floor_div(llvm::IRBuilder<>& b, Value* a, Value* c) {
  Value* zero = dconst(b, 0.0);
  Value* quotient = b.CreateFDiv(a, c);
  Value* mod = b.CreateFRem(a, c);
  Value* div = b.CreateFDiv(b.CreateFSub(a, mod), c);
  Value* signs_differ = b.CreateICmpNE(b.CreateFCmpOLT(c, zero), b.CreateFCmpOLT(mod, zero));
  Value* adjust = b.CreateAnd(b.CreateFCmpUNE(mod, zero), signs_differ);
  div = b.CreateSelect(adjust, b.CreateFSub(div, dconst(b, 1.0)), div);
  Value* q = intrinsic1(b, llvm::Intrinsic::floor, div);
  q = b.CreateSelect(b.CreateFCmpOGT(b.CreateFSub(div, q), dconst(b, 0.5)), b.CreateFAdd(q, dconst(b, 1.0)), q);
  Value* signed_zero = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, quotient);
  Value* result = b.CreateSelect(b.CreateFCmpOEQ(div, zero), signed_zero, q);
  return b.CreateSelect(b.CreateFCmpOEQ(c, zero), quotient, result);
}

// float_mod of the reference: the result takes the divisor's sign.
Value* float_mod(llvm::IRBuilder<>& b, Value* a, Value* c) {
  Value* zero = dconst(b, 0.0);
  Value* mod = b.CreateFRem(a, c);
  Value* signs_differ = b.CreateICmpNE(b.CreateFCmpOLT(c, zero), b.CreateFCmpOLT(mod, zero));
  Value* adjusted = b.CreateSelect(signs_differ, b.CreateFAdd(mod, c), mod);
  Value* signed_zero = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, c);
  Value* result = b.CreateSelect(b.CreateFCmpOEQ(mod, zero), signed_zero, adjusted);
  return b.CreateSelect(b.CreateFCmpOEQ(c, zero), mod, result);
}

// The row in the float domain: operands and result are doubles (comparisons yield i1).
Value* float_row(ScalarEmitter& e, ScalarOpKind op, Value* a, Value* c, Value* d) {
  llvm::IRBuilder<>& b = e.b;
  Value* zero = dconst(b, 0.0);
  using K = ScalarOpKind;
  switch (op) {
    case K::Add: return b.CreateFAdd(a, c);
    case K::Sub: return b.CreateFSub(a, c);
    case K::Mul: return b.CreateFMul(a, c);
    case K::TrueDiv: return b.CreateFDiv(a, c);
    case K::FloorDiv: return float_floor_div(b, a, c);
    case K::Mod: return float_mod(b, a, c);
    case K::Pow: return libm(e, "pow", {a, c});
    case K::Neg: return b.CreateFNeg(a);
    case K::Abs: return intrinsic1(b, llvm::Intrinsic::fabs, a);
    case K::Sign: {
      Value* s = b.CreateSelect(b.CreateFCmpOGT(a, zero), dconst(b, 1.0),
                                b.CreateSelect(b.CreateFCmpOLT(a, zero), dconst(b, -1.0), zero));
      return b.CreateSelect(b.CreateFCmpUNO(a, a), a, s);
    }
    case K::Lt: return b.CreateFCmpOLT(a, c);
    case K::Le: return b.CreateFCmpOLE(a, c);
    case K::Gt: return b.CreateFCmpOGT(a, c);
    case K::Ge: return b.CreateFCmpOGE(a, c);
    case K::Eq: return b.CreateFCmpOEQ(a, c);
    case K::Neq: return b.CreateFCmpUNE(a, c);
    case K::LogicalAnd: return b.CreateAnd(b.CreateFCmpUNE(a, zero), b.CreateFCmpUNE(c, zero));
    case K::LogicalOr: return b.CreateOr(b.CreateFCmpUNE(a, zero), b.CreateFCmpUNE(c, zero));
    case K::LogicalXor: return b.CreateXor(b.CreateFCmpUNE(a, zero), b.CreateFCmpUNE(c, zero));
    case K::LogicalNot: return b.CreateFCmpOEQ(a, zero);
    case K::Exp: return libm(e, "exp", {a});
    case K::Exp2: return libm(e, "exp2", {a});
    case K::Expm1: return libm(e, "expm1", {a});
    case K::Log: return libm(e, "log", {a});
    case K::Log2: return libm(e, "log2", {a});
    case K::Log10: return libm(e, "log10", {a});
    case K::Log1p: return libm(e, "log1p", {a});
    case K::Sqrt: return intrinsic1(b, llvm::Intrinsic::sqrt, a);
    case K::Rsqrt: return b.CreateFDiv(dconst(b, 1.0), intrinsic1(b, llvm::Intrinsic::sqrt, a));
    case K::Square: return b.CreateFMul(a, a);
    case K::Sin: return libm(e, "sin", {a});
    case K::Cos: return libm(e, "cos", {a});
    case K::Tan: return libm(e, "tan", {a});
    case K::Tanh: return libm(e, "tanh", {a});
    case K::Sinh: return libm(e, "sinh", {a});
    case K::Cosh: return libm(e, "cosh", {a});
    case K::Arcsin: return libm(e, "asin", {a});
    case K::Arccos: return libm(e, "acos", {a});
    case K::Arctan: return libm(e, "atan", {a});
    case K::Arctan2: return libm(e, "atan2", {a, c});
    case K::Erf: return libm(e, "erf", {a});
    case K::Erfc: return libm(e, "erfc", {a});
    case K::Sigmoid: {
      // exp(-|x|) is the reference's exp(-x) for x >= 0 and exp(x) below; NaN takes the
      // second branch, as there.
      Value* t = libm(e, "exp", {b.CreateFNeg(intrinsic1(b, llvm::Intrinsic::fabs, a))});
      Value* one_plus = b.CreateFAdd(dconst(b, 1.0), t);
      return b.CreateSelect(b.CreateFCmpOGE(a, zero), b.CreateFDiv(dconst(b, 1.0), one_plus),
                            b.CreateFDiv(t, one_plus));
    }
    case K::Softplus: {
      Value* t = libm(e, "exp", {b.CreateFNeg(intrinsic1(b, llvm::Intrinsic::fabs, a))});
      Value* l = libm(e, "log1p", {t});
      return b.CreateSelect(b.CreateFCmpOGT(a, zero), b.CreateFAdd(a, l), l);
    }
    case K::Floor: return intrinsic1(b, llvm::Intrinsic::floor, a);
    case K::Ceil: return intrinsic1(b, llvm::Intrinsic::ceil, a);
    case K::Round: return intrinsic1(b, llvm::Intrinsic::roundeven, a);
    case K::Trunc: return intrinsic1(b, llvm::Intrinsic::trunc, a);
    case K::Clip: return float_min(b, float_max(b, a, c), d);
    case K::Maximum: return float_max(b, a, c);
    case K::Minimum: return float_min(b, a, c);
    case K::Where: return b.CreateSelect(b.CreateFCmpUNE(a, zero), c, d);
    case K::Cast: return a;
    case K::IsNan: return b.CreateFCmpUNO(a, a);
    case K::IsInf:
      return b.CreateFCmpOEQ(intrinsic1(b, llvm::Intrinsic::fabs, a),
                             dconst(b, std::numeric_limits<double>::infinity()));
  }
  TGC_INTERNAL_CHECK(false, "unhandled scalar op in the float domain");
  return nullptr;
}

// Integer power by squaring, as a loop over the exponent's bits (at most 64 trips, fewer for
// small exponents): the reference's int_pow step for step, so results wrap identically. An
// unrolled version kept the elementwise loop vectorizable but took LLVM ~2.5 s to compile
// per pow; the loop compiles in ~0.1 s (docs/cpu-backend.md). A negative exponent raises
// the error bit (the reference's ValueError); its bits run the loop like any other value.
Value* int_pow(ScalarEmitter& e, Value* base, Value* exponent) {
  llvm::IRBuilder<>& b = e.b;
  raise_error(e, b.CreateICmpSLT(exponent, iconst(b, 0)), kNegativeIntPower);
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* pre = b.GetInsertBlock();
  llvm::BasicBlock* step = llvm::BasicBlock::Create(b.getContext(), "ipow.step", f);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(b.getContext(), "ipow.done", f);
  b.CreateCondBr(b.CreateICmpNE(exponent, iconst(b, 0)), step, done);

  b.SetInsertPoint(step);
  llvm::PHINode* result = b.CreatePHI(b.getInt64Ty(), 2, "ipow.result");
  llvm::PHINode* power = b.CreatePHI(b.getInt64Ty(), 2, "ipow.power");
  llvm::PHINode* bits = b.CreatePHI(b.getInt64Ty(), 2, "ipow.bits");
  Value* odd = b.CreateICmpNE(b.CreateAnd(bits, iconst(b, 1)), iconst(b, 0));
  Value* next_result = b.CreateSelect(odd, b.CreateMul(result, power), result);
  Value* next_power = b.CreateMul(power, power);
  Value* next_bits = b.CreateLShr(bits, iconst(b, 1));
  result->addIncoming(iconst(b, 1), pre);
  result->addIncoming(next_result, step);
  power->addIncoming(base, pre);
  power->addIncoming(next_power, step);
  bits->addIncoming(exponent, pre);
  bits->addIncoming(next_bits, step);
  b.CreateCondBr(b.CreateICmpNE(next_bits, iconst(b, 0)), step, done);

  b.SetInsertPoint(done);
  llvm::PHINode* out = b.CreatePHI(b.getInt64Ty(), 2, "ipow");
  out->addIncoming(iconst(b, 1), pre);
  out->addIncoming(next_result, step);
  return out;
}

// The row in the integer domain: operands and result are i64 (comparisons yield i1).
Value* int_row(ScalarEmitter& e, ScalarOpKind op, Value* a, Value* c, Value* d) {
  llvm::IRBuilder<>& b = e.b;
  Value* zero = iconst(b, 0);
  Value* one = iconst(b, 1);
  using K = ScalarOpKind;
  switch (op) {
    case K::Add: return b.CreateAdd(a, c);
    case K::Sub: return b.CreateSub(a, c);
    case K::Mul: return b.CreateMul(a, c);
    case K::FloorDiv:
    case K::Mod: {
      Value* by_zero = b.CreateICmpEQ(c, zero);
      raise_error(e, by_zero, kIntDivisionByZero);
      Value* by_minus_one = b.CreateICmpEQ(c, iconst(b, -1));
      // A divisor of 0 (an error) or -1 (INT64_MIN / -1 traps) divides by 1 instead.
      Value* safe = b.CreateSelect(b.CreateOr(by_zero, by_minus_one), one, c);
      Value* q = b.CreateSDiv(a, safe);
      Value* r = b.CreateSRem(a, safe);
      if (op == K::FloorDiv) {
        Value* signs_differ = b.CreateICmpNE(b.CreateICmpSLT(a, zero), b.CreateICmpSLT(c, zero));
        Value* adjust = b.CreateAnd(b.CreateICmpNE(r, zero), signs_differ);
        q = b.CreateSelect(adjust, b.CreateSub(q, one), q);
        return b.CreateSelect(by_minus_one, b.CreateSub(zero, a), q);
      }
      Value* signs_differ = b.CreateICmpNE(b.CreateICmpSLT(r, zero), b.CreateICmpSLT(c, zero));
      Value* adjust = b.CreateAnd(b.CreateICmpNE(r, zero), signs_differ);
      r = b.CreateSelect(adjust, b.CreateAdd(r, c), r);
      return b.CreateSelect(by_minus_one, zero, r);
    }
    case K::Pow: return int_pow(e, a, c);
    case K::Neg: return b.CreateSub(zero, a);
    case K::Abs: return b.CreateSelect(b.CreateICmpSLT(a, zero), b.CreateSub(zero, a), a);
    case K::Sign:
      return b.CreateSub(b.CreateZExt(b.CreateICmpSGT(a, zero), b.getInt64Ty()),
                         b.CreateZExt(b.CreateICmpSLT(a, zero), b.getInt64Ty()));
    case K::Lt: return b.CreateICmpSLT(a, c);
    case K::Le: return b.CreateICmpSLE(a, c);
    case K::Gt: return b.CreateICmpSGT(a, c);
    case K::Ge: return b.CreateICmpSGE(a, c);
    case K::Eq: return b.CreateICmpEQ(a, c);
    case K::Neq: return b.CreateICmpNE(a, c);
    case K::LogicalAnd: return b.CreateAnd(b.CreateICmpNE(a, zero), b.CreateICmpNE(c, zero));
    case K::LogicalOr: return b.CreateOr(b.CreateICmpNE(a, zero), b.CreateICmpNE(c, zero));
    case K::LogicalXor: return b.CreateXor(b.CreateICmpNE(a, zero), b.CreateICmpNE(c, zero));
    case K::LogicalNot: return b.CreateICmpEQ(a, zero);
    case K::Square: return b.CreateMul(a, a);
    case K::Round: return a;
    case K::Clip:
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, c), d);
    case K::Maximum: return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, c);
    case K::Minimum: return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a, c);
    case K::Where: return b.CreateSelect(b.CreateICmpNE(a, zero), c, d);
    case K::Cast: return a;
    // Rows without an integer function compute in the float domain (scalar_domain).
    case K::TrueDiv: case K::Exp: case K::Exp2: case K::Expm1: case K::Log: case K::Log2:
    case K::Log10: case K::Log1p: case K::Sqrt: case K::Rsqrt: case K::Sin: case K::Cos:
    case K::Tan: case K::Tanh: case K::Sinh: case K::Cosh: case K::Arcsin: case K::Arccos:
    case K::Arctan: case K::Arctan2: case K::Erf: case K::Erfc: case K::Sigmoid:
    case K::Softplus: case K::Floor: case K::Ceil: case K::Trunc: case K::IsNan: case K::IsInf:
      break;
  }
  TGC_INTERNAL_CHECK(false, "scalar op " + std::string(scalar_op_name(op)) + " has no integer domain");
  return nullptr;
}

Value* to_int64(llvm::IRBuilder<>& b, Value* v, DType t) {
  if (t == DType::Bool || is_unsigned_integer(t)) return b.CreateZExt(v, b.getInt64Ty());
  return b.CreateSExt(v, b.getInt64Ty());  // a no-op for int64
}

// int64 domain result -> the output dtype (convert_value<Out>(int64_t)).
Value* from_int64(llvm::IRBuilder<>& b, Value* i, DType out) {
  if (out == DType::Bool) return b.CreateICmpNE(i, iconst(b, 0));
  if (out == DType::BFloat16) return bfloat16_from_double(b, b.CreateSIToFP(i, b.getDoubleTy()));
  if (is_float(out)) return b.CreateSIToFP(i, register_type(out, b.getContext()));
  return b.CreateTrunc(i, register_type(out, b.getContext()));  // wraps; a no-op for int64
}

// An i1 result (comparisons, logic) -> the output dtype.
Value* from_bool(llvm::IRBuilder<>& b, Value* v, DType out) {
  if (out == DType::Bool) return v;
  if (out == DType::BFloat16) return bfloat16_from_float(b, b.CreateUIToFP(v, b.getFloatTy()));
  if (is_float(out)) return b.CreateUIToFP(v, register_type(out, b.getContext()));
  return b.CreateZExt(v, register_type(out, b.getContext()));
}

}  // namespace

llvm::Type* register_type(DType t, llvm::LLVMContext& ctx) {
  switch (t) {
    case DType::Bool: return llvm::Type::getInt1Ty(ctx);
    case DType::Int8:
    case DType::UInt8: return llvm::Type::getInt8Ty(ctx);
    case DType::Int16: return llvm::Type::getInt16Ty(ctx);
    case DType::Int32: return llvm::Type::getInt32Ty(ctx);
    case DType::Int64: return llvm::Type::getInt64Ty(ctx);
    case DType::Float32: return llvm::Type::getFloatTy(ctx);
    case DType::Float64: return llvm::Type::getDoubleTy(ctx);
    case DType::Float16: return llvm::Type::getHalfTy(ctx);
    case DType::BFloat16: return llvm::Type::getInt16Ty(ctx);  // raw bits
  }
  return nullptr;
}

llvm::Type* memory_type(DType t, llvm::LLVMContext& ctx) {
  return t == DType::Bool ? llvm::Type::getInt8Ty(ctx) : register_type(t, ctx);
}

// A stored bool is read as "nonzero", like the reference's bool loads.
Value* from_memory(llvm::IRBuilder<>& b, Value* loaded, DType t) {
  return t == DType::Bool ? b.CreateICmpNE(loaded, b.getInt8(0)) : loaded;
}

Value* to_memory(llvm::IRBuilder<>& b, Value* v, DType t) {
  return t == DType::Bool ? b.CreateZExt(v, b.getInt8Ty()) : v;
}

Value* emit_constant(llvm::IRBuilder<>& b, const KernelValue& v) {
  llvm::Type* type = register_type(v.dtype, b.getContext());
  if (v.dtype == DType::BFloat16) return b.getInt16(bfloat16_t(v.constant).bits);
  if (is_float(v.dtype)) return llvm::ConstantFP::get(type, v.constant);
  if (v.dtype == DType::Bool) return b.getInt1(v.int_constant != 0);
  return llvm::ConstantInt::get(type, static_cast<uint64_t>(v.int_constant), /*IsSigned=*/true);
}

Value* to_double(llvm::IRBuilder<>& b, Value* v, DType t) {
  switch (t) {
    case DType::Float64: return v;
    case DType::Float16: return b.CreateFPExt(v, b.getDoubleTy());
    case DType::BFloat16: return b.CreateFPExt(bfloat16_to_float(b, v), b.getDoubleTy());
    case DType::Float32: return b.CreateFPExt(v, b.getDoubleTy());
    case DType::Bool:
    case DType::UInt8: return b.CreateUIToFP(v, b.getDoubleTy());
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64: return b.CreateSIToFP(v, b.getDoubleTy());
  }
  return nullptr;
}

// convert_value<Out>(double): rounds to float32, saturates to integers (NaN -> 0), and is
// "nonzero" for bool (NaN is true).
Value* from_double(llvm::IRBuilder<>& b, Value* d, DType out) {
  llvm::Type* type = register_type(out, b.getContext());
  switch (out) {
    case DType::Float64: return d;
    case DType::Float32: return b.CreateFPTrunc(d, type);
    case DType::Float16: return b.CreateFPTrunc(d, type);  // rounds once (__truncdfhf2)
    case DType::BFloat16: return bfloat16_from_double(b, d);
    case DType::Bool: return b.CreateFCmpUNE(d, dconst(b, 0.0));
    case DType::UInt8:
      return b.CreateIntrinsic(llvm::Intrinsic::fptoui_sat, {type, b.getDoubleTy()}, {d});
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
      return b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {type, b.getDoubleTy()}, {d});
  }
  return nullptr;
}

Value* emit_scalar_op(ScalarEmitter& e, const KernelValue& v, std::span<Value* const> args,
                      std::span<const DType> arg_dtypes) {
  llvm::IRBuilder<>& b = e.b;
  const DType floatx = is_float(v.dtype) ? v.dtype : DType::Float32;  // see Kernel::validate
  const std::optional<DType> cast_to = v.op == ScalarOpKind::Cast ? std::optional(v.dtype) : std::nullopt;
  const ScalarSignature sig = scalar_signature(v.op, arg_dtypes, floatx, cast_to);
  if (e.float32_math && v.dtype == DType::Float32) {
    // Only when every operand is float32: an integer operand's conversion to float could
    // round, and the reference converts it to double exactly.
    const char* name = float32_libm_name(v.op);
    bool all_float32 = true;
    for (DType t : arg_dtypes) all_float32 = all_float32 && t == DType::Float32;
    if (name && all_float32) return libm_call(e, b.getFloatTy(), name, llvm::ArrayRef<Value*>(args.data(), args.size()));
  }
  Value* in[3] = {nullptr, nullptr, nullptr};
  if (scalar_domain(v.op, sig) == ScalarDomain::Float) {
    for (size_t i = 0; i < 3; ++i)
      in[i] = i < args.size() ? to_double(b, args[i], arg_dtypes[i]) : dconst(b, 0.0);
    Value* r = float_row(e, v.op, in[0], in[1], in[2]);
    return r->getType()->isIntegerTy(1) ? from_bool(b, r, v.dtype) : from_double(b, r, v.dtype);
  }
  for (size_t i = 0; i < 3; ++i) in[i] = i < args.size() ? to_int64(b, args[i], arg_dtypes[i]) : iconst(b, 0);
  Value* r = int_row(e, v.op, in[0], in[1], in[2]);
  return r->getType()->isIntegerTy(1) ? from_bool(b, r, v.dtype) : from_int64(b, r, v.dtype);
}

}  // namespace tgc::cpu
