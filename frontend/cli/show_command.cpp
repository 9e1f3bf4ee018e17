// tgc show: the raw or optimized graph of one function as text or Graphviz dot, and the
// optimizer's rewrites when asked.
#include "frontend/cli/show_command.h"

#include <fmt/core.h>

#include "frontend/api/graphs_only.h"
#include "frontend/cli/errors.h"
#include "frontend/cli/json_output.h"
#include "frontend/printing/graph_dot.h"
#include "frontend/printing/graph_text.h"
#include "frontend/cli/program.h"
#include "ops/core/graph.h"

namespace tgc::cli {

using printing::graph_dot;
using printing::graph_text;
using printing::HostReasonFn;
using printing::OutputLabel;

CLI::App* add_show_command(CLI::App& app, ShowArgs& args) {
  CLI::App* show = app.add_subcommand("show", "Print a function's graph (before or after optimization)");
  show->add_option("FILE", args.file, "the .tg program (- reads it from standard input)")->required()->type_name("");
  show->add_option("--fn", args.fn, "the function to show (default: the file's only or last one)")
      ->type_name("NAME");
  show->add_option("--stage", args.stage, "raw (as built) or optimized (as run; the default)")
      ->check(CLI::IsMember({"raw", "optimized"}))
      ->type_name("STAGE");
  show->add_option("--format", args.format,
                   "text (one line per node, in execution order; the default), dot (Graphviz) or json (for scripts)")
      ->check(CLI::IsMember({"text", "dot", "json"}))
      ->type_name("FORMAT");
  show->add_flag("--trace-rewrites", args.trace_rewrites,
                 "also list every replacement the optimizer made (to stderr with --format dot)");
  return show;
}

int show_command(const ShowArgs& args, const GlobalFlags& flags) {
  // The graphs are all show prints: the functions are optimized, not linked (no kernel is
  // generated, compiled or loaded for them).
  GraphsOnlyScope graphs_only;
  lang::TgProgram program = load_program(args.file, flags, LoadFor::Inspecting, args.trace_rewrites);
  const lang::TgFunction& fn = select_function(program, args.fn);
  const bool raw = args.stage == "raw";
  const Graph& graph = raw ? fn.function.raw_graph() : fn.function.graph();

  std::vector<OutputLabel> labels;
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    if (i < fn.outputs.size())
      labels.push_back({fmt::format("out{}", i), fn.outputs[i]});
    else  // the values of the shared-variable updates follow the outputs
      labels.push_back({fmt::format("update {}", i - fn.outputs.size()), ""});
  }
  const size_t nodes = graph.toposort().size();
  const std::string title = fmt::format("{}: {} graph, {} node{}", signature(fn), args.stage, nodes,
                                        nodes == 1 ? "" : "s");
  const bool dot = args.format == "dot";
  // show has its own --format (text is also its default); the global --format json asks the same.
  const bool json = args.format == "json" || (args.format == "text" && flags.json());
  // The optimized graph of a GPU function says why a node stays on the host.
  HostReasonFn reason;
  if (!raw) reason = [&fn](const Node& n) { return fn.function.host_reason(n); };
  if (json) {
    nlohmann::json doc = graph_json(signature(fn), args.stage, graph, labels, reason);
    if (args.trace_rewrites) doc["rewrites"] = fn.function.rewrite_trace();
    print_json(doc);
    return kExitOk;
  }
  if (dot)
    fmt::print("{}", graph_dot(graph, title, labels, reason));
  else
    fmt::print("# {}\n{}", title, graph_text(graph, labels, reason));

  if (args.trace_rewrites) {
    // Keep stdout a valid dot file.
    std::FILE* to = dot ? stderr : stdout;
    const std::vector<std::string>& trace = fn.function.rewrite_trace();
    fmt::print(to, "rewrites ({}):\n", trace.size());
    for (const std::string& line : trace) fmt::print(to, "  {}\n", line);
  }
  return kExitOk;
}

}  // namespace tgc::cli
