// tgc emit: the Kernel IR (kir) or the LLVM IR (cpu) of every fused node of a function's
// optimized graph; a clear error for the code generators this build does not have.
#include "frontend/cli/emit_command.h"

#include "backends/c_family/kernel_render.h"

#include <fmt/core.h>

#include "backends/cpu/cpu_backend.h"
#include "compiler/kernel/composite_op.h"
#include "frontend/cli/errors.h"
#include "frontend/printing/graph_names.h"
#include "frontend/cli/program.h"
#include "ops/core/graph.h"
#include "runtime/error.h"

namespace tgc::cli {

using printing::GraphNames;

CLI::App* add_emit_command(CLI::App& app, EmitArgs& args) {
  CLI::App* emit = app.add_subcommand("emit", "Print the kernels generated for a function");
  emit->add_option("FILE", args.file, "the .tg program (- reads it from standard input)")->required()->type_name("");
  emit->add_option("--target", args.target,
                   "kir (Kernel IR, what every backend renders), cpu (LLVM), cuda or opencl")
      ->required()
      ->check(CLI::IsMember({"kir", "cpu", "llvm", "cuda", "opencl"}))
      ->type_name("TARGET");
  emit->add_option("--fn", args.fn, "the function (default: the file's only or last one)")->type_name("NAME");
  return emit;
}

namespace {

// The code generators of the design: kir, cuda and opencl always (the C-family renderer is
// device-agnostic: it needs no GPU, driver or toolkit), cpu (LLVM) when built with LLVM.
void check_target_built(const std::string& target) {
  if (target != "cpu" && target != "llvm") return;
  if (llvm_backend_available()) return;
  throw ConfigError("the cpu (LLVM) code generator is not built in this tgc (it is built when "
                    "LLVM 16 is found)",
                    "", "rebuild tgc with LLVM 16 installed (-DTGC_WITH_LLVM=ON); tgc emit --target "
                        "kir prints the Kernel IR that the backends render");
}

// The text of one kernel for the target: Kernel IR, LLVM IR, or CUDA C / OpenCL C with every
// entry point the backend compiles for it.
// The config's fast_math, float32_math (and on the CPU cpu_vector_width) shape the code as
// they do in the backends.
std::string render_kernel(const std::string& target, const Kernel& kernel, const Config& config, int index) {
  const bool float32_in_double = config.float32_math == "double";
  if (target == "kir") return kernel.str();
  if (target == "cpu" || target == "llvm") return emit_llvm_ir(kernel, config);
  cfam::RenderOptions options;
  options.dialect = target == "cuda" ? cfam::Dialect::Cuda : cfam::Dialect::OpenCL;
  options.fast_math = config.fast_math;
  options.float32_in_double = float32_in_double;
  options.name_prefix = "tgc_k" + std::to_string(index);
  return cfam::render(kernel, options).code;
}

}  // namespace

int emit_command(const EmitArgs& args, const GlobalFlags& flags) {
  check_target_built(args.target);
  lang::TgProgram program = load_program(args.file, flags, LoadFor::Inspecting);
  const lang::TgFunction& fn = select_function(program, args.fn);
  const std::vector<Node*> nodes = fn.function.graph().toposort();
  GraphNames names;
  int kernels = 0;
  for (Node* node : nodes) {
    // Every node is named, fused or not, so that t0, t1, ... match tgc show's listing.
    std::string lhs;
    for (int i = 0; i < node->num_outputs(); ++i) lhs += (i ? ", " : "") + names.of(node->output_raw(i));
    std::string args_text;
    for (size_t i = 0; i < node->inputs().size(); ++i)
      args_text += (i ? ", " : "") + names.of(node->inputs()[i].get());
    const auto* composite = dynamic_cast<const Composite*>(&node->op());
    if (!composite) continue;
    const std::string code = render_kernel(args.target, composite->kernel(), fn.function.config(), kernels);
    fmt::print("# kernel {}: {} = {}({})\n{}\n", kernels++, lhs, composite->name(), args_text, code);
  }
  if (kernels == 0)
    fmt::print("# {}: no fused kernel in the optimized graph; {} op by op (tgc show lists "
               "them)\n",
               signature(fn),
               nodes.size() == 1 ? "its one node runs" : fmt::format("its {} nodes run", nodes.size()));
  return kExitOk;
}

}  // namespace tgc::cli
