// The .tg language's entry points: a .tg file is parsed, checked and evaluated into named
// symbolic variables, shared variables and compiled functions, which the CLI runs, shows
// and emits. The language describes graphs only: no loops, no user-defined functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tgc/tgc.h>

namespace tgc::lang {

// A position in a .tg source: 1-based line and column (columns count UTF-8 code points).
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;
};

// Every user error in a .tg file: syntax, unknown names, wrong arity or keywords, type and
// shape errors of the ops, bad values. what() reads
//   check1.tg:3:9: error: unknown function 'expp'
//       y = expp(x)
//           ^
//     hint: did you mean 'exp'?
// The CLI prints it and exits with code 2.
class SourceError : public Error {
 public:
  SourceError(SourceLoc loc, std::string message, std::string source_line, std::string hint);
  const SourceLoc& loc() const { return loc_; }
  const std::string& message() const { return message_; }
  // The whole report above: location, message, source line, caret and hint.
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  SourceLoc loc_;
  std::string message_;
  std::string text_;
};

struct TgFunction {
  std::string name;                  // the name it is bound to in the file
  std::vector<std::string> inputs;   // input variable names, in order
  std::vector<std::string> outputs;  // output expressions as written (for printing)
  SourceLoc loc;                     // where function(...) is called
  Function function;                 // compiled with the options given to load_*
};

struct TgProgram {
  std::string file;
  std::vector<TgFunction> functions;  // in definition order
  std::map<std::string, Var> variables;  // every name bound to a symbolic or shared variable

  // The function called `name`; SourceError-free: returns nullptr when absent.
  TgFunction* find(std::string_view name);
  // The default function of `tgc run`: the only one, else the last one defined. nullptr
  // when the file defines none.
  TgFunction* default_function();
};

// Parses, checks and evaluates a .tg file and compiles each function() with `options`
// (their `name` is set to the bound name). Throws SourceError for every user error in the
// file, IOError when the file cannot be read. The path "-" reads the program from standard
// input (named kStdinName in errors; its relative load() paths start at the current folder).
inline constexpr const char* kStdinName = "<stdin>";
TgProgram load_file(const std::string& path, const FunctionOptions& options = {});
// A function made elsewhere (loaded from a saved file) as a program's function called `name`:
// its inputs named as its graph names them ("input<i>" for an unnamed one), its outputs
// labelled by their expressions as the graph prints them.
TgFunction as_program_function(Function f, std::string name, SourceLoc loc = {});
TgProgram load_source(std::string_view source, std::string_view file_name,
                      const FunctionOptions& options = {});

// Bounds on what a .tg file may ask for, so that untrusted input (the fuzzer) cannot
// exhaust memory or read arbitrary files. The defaults allow any realistic program.
struct LoadLimits {
  // Elements of one value a generator makes (zeros, rand, arange, ...) or of a static
  // shape given to alloc/tensor.
  int64_t max_elements = int64_t{1} << 34;
  bool allow_load = true;  // whether load("file.npy") may read files
  // Nodes of one function's graph (before optimization): compile time grows with it, and
  // nested grad() calls grow graphs geometrically.
  int64_t max_function_nodes = int64_t{1} << 24;
  // Bytes of one source file: a program is text a person wrote (`tgc run /dev/zero` must end
  // with an error, not read until memory runs out).
  int64_t max_source_bytes = int64_t{64} << 20;
  // Items of one list or tuple the program builds (`a = a + a` repeated doubles it).
  int64_t max_list_items = int64_t{1} << 22;
  // Steps of every comprehension's loops and items of every range() of one program, together:
  // nested comprehensions multiply, and a filter that keeps nothing still loops.
  int64_t max_loop_steps = int64_t{1} << 22;
};
TgProgram load_source(std::string_view source, std::string_view file_name,
                      const FunctionOptions& options, const LoadLimits& limits);

// Evaluates a value expression of the language (a generator call or a literal), as the CLI's
// --input NAME=EXPR uses it: "randn(400, 784, seed=1)", "zeros(3, 4)", "2.5". `file_name`
// labels errors (e.g. "--input x"). A number or a (nested) list of numbers becomes a tensor of
// `literal_dtype` when one is given, straight from the decimal text ("0.1" for a float64
// input is the double nearest 0.1, not a float32 widened); otherwise of floatX (ints: int64).
// Throws SourceError.
Tensor eval_value(std::string_view expr, std::string_view file_name,
                  std::optional<DType> literal_dtype = std::nullopt);

}  // namespace tgc::lang
