// The .tg entry points: load a file or a source text into a TgProgram, and evaluate a lone
// value expression for the CLI's --input.
#include "frontend/lang/tg_program.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "frontend/lang/context.h"
#include "ops/core/graph.h"
#include "frontend/lang/convert.h"
#include "frontend/lang/evaluator.h"
#include "frontend/lang/guarded.h"
#include "frontend/lang/parser.h"

namespace tgc::lang {

namespace {

DType floatx_of(const FunctionOptions& options) {
  auto it = options.config.find("floatX");
  if (it == options.config.end()) return floatX();
  Config c;
  c.set("floatX", it->second, "function options");
  return c.floatX;
}

}  // namespace

Context::Context(const SourceText& source, const FunctionOptions& opts, const LoadLimits& lim)
    : src(source), options(opts), limits(lim), floatx(floatx_of(opts)) {
  base_dir = std::filesystem::path(source.file()).parent_path().string();
}

TgFunction* TgProgram::find(std::string_view name) {
  for (TgFunction& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

TgFunction* TgProgram::default_function() { return functions.empty() ? nullptr : &functions.back(); }

TgProgram load_source(std::string_view source, std::string_view file_name, const FunctionOptions& options,
                      const LoadLimits& limits) {
  if (static_cast<int64_t>(source.size()) > limits.max_source_bytes)
    throw IOError(fmt::format("'{}' is larger than {} MiB ({} bytes), the limit of a .tg program", file_name,
                              limits.max_source_bytes >> 20, source.size()),
                  "", "a program is text; keep data in .npy files and load() them");
  SourceText src{std::string(file_name), std::string(source)};
  Module module = parse_module(src);
  TgProgram program;
  program.file = std::string(file_name);
  Context ctx(src, options, limits);
  ctx.program = &program;
  Evaluator(ctx).run(module);
  return program;
}

TgProgram load_source(std::string_view source, std::string_view file_name, const FunctionOptions& options) {
  return load_source(source, file_name, options, LoadLimits{});
}

namespace {

// The whole of `in`, reading at most one byte past the source limit (a device file such as
// /dev/zero, or a pipe that never ends, is not read to its end).
std::string read_source(std::istream& in, const std::string& label) {
  const int64_t limit = LoadLimits{}.max_source_bytes;
  std::string text;
  char chunk[1 << 16];
  while (in && static_cast<int64_t>(text.size()) <= limit) {
    in.read(chunk, sizeof chunk);
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw IOError("cannot read " + label, "", "check the file");
  if (static_cast<int64_t>(text.size()) > limit)
    throw IOError(fmt::format("{} is larger than {} MiB, the limit of a .tg program", label, limit >> 20), "",
                  "a program is text; keep data in .npy files and load() them");
  return text;
}

}  // namespace

TgFunction as_program_function(Function f, std::string name, SourceLoc loc) {
  std::vector<std::string> inputs, outputs;
  const Graph& raw = f.raw_graph();
  for (size_t i = 0; i < raw.inputs().size(); ++i)
    inputs.push_back(raw.inputs()[i]->name().empty() ? fmt::format("input{}", i) : raw.inputs()[i]->name());
  for (size_t i = 0; i < f.num_outputs(); ++i) outputs.push_back(raw.outputs()[i]->label());
  return TgFunction{std::move(name), std::move(inputs), std::move(outputs), loc, std::move(f)};
}

TgProgram load_file(const std::string& path, const FunctionOptions& options) {
  if (path == "-") {
    // The program on standard input (`tgc run -`, `cat f.tg | tgc show -`): errors name it
    // <stdin>, and its relative load() paths start at the current folder.
    return load_source(read_source(std::cin, "the program on standard input"), kStdinName, options);
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw IOError("cannot read '" + path + "': it is a directory", "", "give the path of a .tg file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("cannot read '" + path + "': no such file or not readable", "", "check the path");
  return load_source(read_source(in, "'" + path + "'"), path, options);
}

Tensor eval_value(std::string_view expr, std::string_view file_name, std::optional<DType> literal_dtype) {
  SourceText src{std::string(file_name), std::string(expr)};
  ExprPtr e = parse_expression(src);
  Context ctx(src, FunctionOptions{}, LoadLimits{});
  ctx.base_dir.clear();  // relative load() paths start at the current folder
  const Value v = Evaluator(ctx).eval(*e);
  if (!v.is_tensor() && !v.is_number() && !v.is_sequence() && !v.is_var())
    throw src.error(e->pos, "expected a value, got " + v.describe(),
                    "write a generator call such as randn(400, 784, seed=1), zeros(3, 4), load(\"x.npy\") or a number");
  return guarded(src, e->pos, [&] {
    if (literal_dtype && (v.is_number() || v.is_sequence())) return array_from(v, literal_dtype, ctx, e->pos);
    return to_tensor(v, ctx, e->pos, "the value");
  });
}

}  // namespace tgc::lang
