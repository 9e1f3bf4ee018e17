// The .tg builtins of saved functions and checkpoints (docs/save.md): save(functions, path),
// load_function(path, name=None), save_shared(variables, path), load_shared(variables, path),
// and op(tag, fields, *inputs), any op by its codec (what programs written from C++ graphs use).
// Relative paths start at the .tg file's folder, as load()'s do.
#include <fmt/format.h>

#include <filesystem>

#include <tgc/save.h>

#include "frontend/lang/builtins.h"
#include "frontend/lang/context.h"
#include "frontend/lang/value.h"
#include "ops/core/apply.h"
#include "ops/core/graph.h"
#include "ops/core/op_codec.h"
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
  std::string bound = a.bound_name.empty() ? f.name() : a.bound_name;
  a.ctx.program->functions.push_back(as_program_function(std::move(f), std::move(bound), a.ctx.src.loc(a.pos)));
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

// The context of op(): its fields are plain JSON; an op holding a tensor or a graph (a loop)
// has no text form.
class TextOpContext final : public OpReadContext {
 public:
  Tensor tensor(const Json&) override { throw IOError("this op holds a tensor, which op() cannot be given"); }
  Subgraph graph(const Json&) override { throw IOError("this op holds a graph (a loop), which op() cannot be given"); }
};

// op(tag, fields, *inputs): any op of tgc by its codec's tag and fields (JSON text), applied to
// the inputs: what write_tg_program prints for the ops the language has no call for (a
// gradient's SumToLike, a random draw's state). One output gives a tensor, several a tuple.
Value op_(Args& a) {
  const std::string tag = a.string("tag");
  Json fields;
  try {
    fields = Json::parse(a.string("fields"));
  } catch (const Json::exception& e) {
    a.fail("fields", std::string("the fields are not JSON: ") + e.what(), "give them as the text of a JSON object: '{\"axis\": 1}'");
  }
  std::shared_ptr<const Op> op = at_arg(a, "tag", [&] {
    TextOpContext ctx;
    return read_op(Json{{"op", tag}, {"fields", fields}}, ctx);
  });
  std::vector<VarPtr> inputs;
  for (const ArgValue& v : a.rest()) {
    if (!v.value.is_var() && !v.value.is_tensor())
      a.fail_at(v.pos, "an input of op() is " + v.value.describe(), "give tensors");
    inputs.push_back(v.value.is_var() ? v.value.as_var().ptr() : Var(constant(v.value.as_tensor())).ptr());
  }
  std::vector<VarPtr> outs = at_arg(a, "tag", [&] { return apply(op, inputs); });
  if (outs.size() == 1) return Var(outs[0]);
  std::vector<Value> items;
  for (const VarPtr& o : outs) items.push_back(Var(o));
  return Value::tuple(std::move(items));
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
      {"op", "tag, fields, *inputs",
       "any op by its saved-function tag and fields (JSON text), applied to inputs: what a program written from "
       "C++ graphs (write_tg_program) uses where the language has no call: op('SumToLike', '{}', g, w)",
       op_},
  };
}

}  // namespace tgc::lang
