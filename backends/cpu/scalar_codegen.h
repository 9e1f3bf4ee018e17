// Rendering of the scalar-op table to LLVM IR: one function per value kind that reproduces
// the table's reference functions (ops/elemwise/scalar_op.cpp) bit for bit where LLVM can
// (arithmetic, comparisons, rounding, casts) and within libm's error where it calls libm.
#pragma once

#include <span>

#include "backends/cpu/llvm_includes.h"
#include "compiler/kernel/kernel_ir.h"

namespace tgc::cpu {

// Error bits a kernel returns; the launcher re-runs the interpreter to raise the
// reference's exact ValueError.
enum KernelErrorBit : uint32_t {
  kIntDivisionByZero = 1,  // floor_div / mod by an integer 0
  kNegativeIntPower = 2,   // pow of integers with a negative exponent
};

// What scalar rendering needs: the builder, the module (for libm declarations) and the
// function's error word (an i32 alloca that ops OR their error bits into), and whether
// float32 transcendental rows compute in float (config float32_math, float32_math.h).
struct ScalarEmitter {
  llvm::IRBuilder<>& b;
  llvm::Module& module;
  llvm::Value* error_slot;
  bool float32_math = false;
};

// A value's type in registers (bool is i1) and in memory (bool is one byte, 0 or 1).
llvm::Type* register_type(DType t, llvm::LLVMContext& ctx);
llvm::Type* memory_type(DType t, llvm::LLVMContext& ctx);
llvm::Value* from_memory(llvm::IRBuilder<>& b, llvm::Value* loaded, DType t);
llvm::Value* to_memory(llvm::IRBuilder<>& b, llvm::Value* v, DType t);

// A Constant value in its register type.
llvm::Value* emit_constant(llvm::IRBuilder<>& b, const KernelValue& v);

// An Op value from its (register-typed) arguments: converts the operands to the row's
// domain (double or int64, as scalar_domain says), applies the row, converts to `v.dtype`.
// With `e.float32_math`, a transcendental row of float32 operands and result calls the
// float libm function instead (expf: one rounding inside libm, none after).
llvm::Value* emit_scalar_op(ScalarEmitter& e, const KernelValue& v, std::span<llvm::Value* const> args,
                            std::span<const DType> arg_dtypes);

// Extends the domain value `x` (double or i64 or i1) to double / int64 conversions used
// by reductions as well.
llvm::Value* to_double(llvm::IRBuilder<>& b, llvm::Value* v, DType t);
llvm::Value* from_double(llvm::IRBuilder<>& b, llvm::Value* d, DType out);

}  // namespace tgc::cpu
