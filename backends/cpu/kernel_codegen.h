// Kernel IR -> LLVM IR: the loop nest of one kernel as a function of its run-time shape,
// operand pointers and element strides (the dims collapsed by the launcher; see kernel_abi.h).
#pragma once

#include <memory>
#include <string>

#include "backends/cpu/codegen_options.h"
#include "backends/cpu/kernel_abi.h"
#include "backends/cpu/llvm_includes.h"
#include "compiler/kernel/kernel_ir.h"

namespace tgc::cpu {

// Builds the module holding `symbol`. Its innermost loop comes in two versions chosen at run
// time: a unit-stride one (operands broadcast along the inner dim by their static shapes read
// once, all others contiguous), which the loop vectorizer turns into SIMD code, and a general
// strided one. `options.fast_math` puts LLVM's fast-math flags on every float instruction;
// `options.float32_math` computes float32 transcendental rows in float (float32_math.h).
std::unique_ptr<llvm::Module> render_kernel(const Kernel& kernel, llvm::LLVMContext& ctx,
                                            const std::string& symbol, const CodegenOptions& options);

}  // namespace tgc::cpu
