// Routing tgc's messages into a program's own log (docs/api.md, "Messages"): warnings, notes,
// compile logs and profiles go to a sink the program sets, here a list it prints with its own
// prefix, instead of standard error.
#include <tgc/tgc.h>

#include <cstdio>
#include <string>
#include <vector>

int main() {
  using namespace tgc;
  std::vector<std::string> log;
  LogSink previous = set_log_sink([&](LogKind kind, const std::string& text) {
    log.push_back(std::string("[") + log_kind_name(kind) + "] " + text.substr(0, text.find('\n')));
  });

  Var x = vector("x", DType::Float64);
  FunctionOptions options;
  options.name = "softplus";
  options.config = {{"log_compiles", "true"}};
  Function f = function({x}, {log1p(exp(x))}, {}, options);
  const std::vector<double> y = f(Tensor::from_vector<double>({0.0, 1.0}))[0].to_vector<double>();
  std::printf("softplus(0) = %.6f, softplus(1) = %.6f\n", y[0], y[1]);

  // A gradient with respect to an input the cost does not use: a warning when asked for.
  GradOptions warn;
  warn.disconnected_inputs = DisconnectedInputs::Warn;
  Var a = scalar("a"), unused = scalar("unused");
  grad(a * a, {a, unused}, warn);

  set_log_sink(std::move(previous));  // standard error again
  std::printf("tgc said %zu thing(s):\n", log.size());
  for (const std::string& line : log) std::printf("  %s\n", line.c_str());
  return 0;
}
