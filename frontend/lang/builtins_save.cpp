// The .tg builtins of saved functions and checkpoints (docs/save.md): save(functions, path),
// load_function(path, name=None), save_shared(variables, path), load_shared(variables, path).
// Relative paths start at the .tg file's folder, as load()'s do.
#include <fmt/format.h>

#include <filesystem>

#include <tgc/save.h>

#include "frontend/lang/builtins.h"
#include "frontend/lang/context.h"
#include "frontend/lang/value.h"
#include "ops/core/graph.h"
#include "runtime/error.h"

namespace tgc::lang {

namespace {

std::string file_path(Args& a, const char* what) {
  if (!a.ctx.limits.allow_load) a.fail("path", std::string(what) + " is disabled here", "this evaluation may not touch files");
  std::filesystem::path p(a.string("path"));
  if (p.is_relative() && !a.ctx.base_dir.empty()) p = std::filesystem::path(a.ctx.base_dir) / p;
  return p.string();
}

// Runs `body`, turning tgc's errors into the call's SourceError at `arg`.
template <class F>
auto at_arg(Args& a, std::string_view arg, F&& body) {
  try {
    return body();
  } catch (const SourceError&) {
    throw;
  } catch (const Error& e) {
    a.fail(arg, e.what_part(), e.hint().empty() ? "docs/save.md describes saved functions" : e.hint());
  }
}

std::vector<Shared> shared_list(Args& a, std::string_view name) {
  std::vector<Shared> out;
  for (const Var& v : a.vars(name)) {
    if (v.ptr()->kind() != Variable::Kind::Shared)
      a.fail(name, fmt::format("'{}' is not a shared variable", v.ptr()->label()), "give variables made by shared()");
    out.push_back(Shared(v.ptr()));
  }
  return out;
}

Value save_(Args& a) {
  const Value& v = a.value("functions");
  std::vector<const Function*> fns;
  auto add = [&](const Value& f) {
    if (!f.is_function()) a.fail("functions", "save takes a function or a list of functions", "save(train, \"model.tgf\")");
    fns.push_back(&a.ctx.program->functions.at(static_cast<size_t>(f.as_function().index)).function);
  };
  if (v.is_sequence())
    for (const Value& f : v.items()) add(f);
  else
    add(v);
  const std::string path = file_path(a, "save()");
  at_arg(a, "path", [&] { save(fns, path); });
  return Value();
}

Value load_function_(Args& a) {
  const std::string path = file_path(a, "load_function()");
  const std::string name = a.opt_string("name").value_or("");
  Function f = at_arg(a, "path", [&] {
    LoadOptions options;
    options.config = a.ctx.options.config;
    return load_function(path, name, options);
  });
  std::vector<std::string> inputs, outputs;
  const Graph& raw = f.raw_graph();
  for (size_t i = 0; i < raw.inputs().size(); ++i)
    inputs.push_back(raw.inputs()[i]->name().empty() ? fmt::format("input{}", i) : raw.inputs()[i]->name());
  for (size_t i = 0; i < f.num_outputs(); ++i) outputs.push_back(raw.outputs()[i]->label());
  const std::string bound = a.bound_name.empty() ? f.name() : a.bound_name;
  a.ctx.program->functions.push_back(
      TgFunction{bound, std::move(inputs), std::move(outputs), a.ctx.src.loc(a.pos), std::move(f)});
  return FunctionRef{static_cast<int>(a.ctx.program->functions.size()) - 1};
}

Value save_shared_(Args& a) {
  std::vector<Shared> vars = shared_list(a, "variables");
  const std::string path = file_path(a, "save_shared()");
  at_arg(a, "path", [&] { save_shared(vars, path); });
  return Value();
}

Value load_shared_(Args& a) {
  std::vector<Shared> vars = shared_list(a, "variables");
  const std::string path = file_path(a, "load_shared()");
  at_arg(a, "path", [&] { load_shared(vars, path); });
  return Value();
}

}  // namespace

std::vector<BuiltinRow> save_builtins() {
  return {
      {"save", "functions, path",
       "writes a function (or a list of functions sharing their variables) to a file that load_function and "
       "`tgc run` load without compiling (docs/save.md)",
       save_},
      {"load_function", "path, name=None",
       "a function saved by save or `tgc compile` (name: which one, when the file holds several)", load_function_},
      {"save_shared", "variables, path", "writes the values of named shared variables (a checkpoint)", save_shared_},
      {"load_shared", "variables, path", "sets named shared variables from a checkpoint, all or none", load_shared_},
  };
}

}  // namespace tgc::lang
