// What evaluating a .tg program carries along: the source (for errors), the options and
// limits it was loaded with, where load() looks for files, and the default random stream.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "frontend/lang/source_text.h"
#include "frontend/lang/tg_program.h"
#include "frontend/lang/value.h"

namespace tgc::lang {

struct Context {
  Context(const SourceText& source, const FunctionOptions& opts, const LoadLimits& lim);

  const SourceText& src;
  FunctionOptions options;  // for every function() of the file
  LoadLimits limits;
  int64_t loop_steps = 0;   // counted against limits.max_loop_steps (comprehensions, range)
  DType floatx;             // options' floatX if set, else the global one
  std::string base_dir;     // relative load() paths start here: the .tg file's folder
  // Generators called without seed= draw from this stream, seeded with 0 so runs repeat.
  RandomState stream{0};
  TgProgram* program = nullptr;  // null when evaluating a lone value (eval_value)
  // Calls a lambda with positional arguments (set by the evaluator: builtins such as scan()
  // call the user's lambdas). `pos` is the call that errors point at.
  std::function<Value(const Lambda& fn, const std::vector<Value>& args, Pos pos)> call_lambda;
};

}  // namespace tgc::lang
