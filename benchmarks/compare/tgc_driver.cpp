// tgc_compare_driver: one workload of benchmarks/compare/ through the C++ API, driven over
// stdin/stdout by the Python harness so that its runs interleave with the peers' in one process
// tree. It compiles once, then answers "run N" (N calls, timed), "save DIR" (the last call's
// outputs), "params DIR" (the trained parameters now), "profile" and "quit".
//
//   tgc_compare_driver --workload chain --data DIR [--device cpu|cuda]
//
// Every reply is one JSON line: {"ready":true,"compile_s":...} after compiling, then
// {"seconds":...} for each run, {"saved":N} for save and params, {"profile":"..."} for profile
// (the function's profile report: TGC_FLAGS=profile=true turns profiling on); a failure prints
// {"error":"..."} and exits 2.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <tgc/tgc.h>

namespace {

using namespace tgc;
using Clock = std::chrono::steady_clock;

// The workload's inputs, every .npy file of its folder by stem, read before the compile timer starts.
using Inputs = std::map<std::string, Tensor>;

Inputs read_inputs(const std::filesystem::path& dir) {
  Inputs inputs;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".npy") inputs[entry.path().stem().string()] = read_npy(entry.path().string());
  return inputs;
}

// Borrowed: the compile time should not include copying a 256 MB input.
Shared input(const Inputs& inputs, const std::string& name) {
  auto it = inputs.find(name);
  if (it == inputs.end())
    throw InputError("input '" + name + ".npy' is missing", "tgc_compare_driver --data",
                     "benchmarks/compare/run writes the inputs; run it rather than the driver alone");
  return shared(it->second, name, /*borrow=*/true);
}

// A compiled workload and the shared variables it trains (empty for the stateless ones), in
// the order of the harness's Workload.params.
struct Built {
  Function fn;
  std::vector<Shared> params;
};

// Mean softmax cross-entropy of logits against one-hot rows y1h.
Var softmax_xent(const Var& logits, const Var& y1h) { return -mean(sum(y1h * log_softmax(logits), 1)); }

// One SGD step with rate 0.1 on every parameter.
Updates sgd(const Var& loss, const std::vector<Shared>& params) {
  std::vector<Var> wrt(params.begin(), params.end());
  std::vector<Var> g = grad(loss, wrt);
  Updates updates;
  for (size_t i = 0; i < params.size(); ++i) updates.push_back({params[i], params[i] - 0.1 * g[i]});
  return updates;
}

// The graphs, written as the .tg programs and the peers write them (same data, same order).
Built build(const std::string& kind, const Inputs& in, const std::string& device) {
  FunctionOptions opts{.name = kind, .config = {{"device", device}}};
  if (kind == "check1" || kind == "check2") {
    Shared x = input(in, "x");
    Var out = kind == "check1" ? exp(x) : gpu_from_host(exp(x));
    return {function({}, {out}, {}, opts), {}};
  }
  if (kind == "logreg") {  // the tutorial's logistic regression, one gradient step per call
    Shared x = input(in, "x"), y = input(in, "y");
    Shared w = input(in, "w"), b = input(in, "b");
    Var p_1 = 1 / (1 + exp(-dot(x, w) - b));
    Var prediction = p_1 > 0.5;
    Var xent = -y * log(p_1) - (1 - y) * log(1 - p_1);
    Var cost = mean(xent) + 0.01 * sum(pow(w, 2));
    std::vector<Var> g = grad(cost, {w, b});
    return {function({}, {prediction, xent}, {{w, w - 0.01 * g[0]}, {b, b - 0.01 * g[1]}}, opts), {w, b}};
  }
  // The compute-bound workloads leave their results on the device (no copy back per call).
  opts.device_result = true;
  if (kind == "chain") {
    Shared a = input(in, "a"), b = input(in, "b"), c = input(in, "c");
    return {function({}, {a * exp(-b) + c * tanh(a) - 0.5 * b * c}, {}, opts), {}};
  }
  if (kind == "sumsq") {
    Shared a = input(in, "a");
    return {function({}, {sum(a * a)}, {}, opts), {}};
  }
  if (kind == "sgemm") {
    Shared x = input(in, "x"), y = input(in, "y");
    return {function({}, {dot(x, y)}, {}, opts), {}};
  }
  if (kind == "mlp" || kind == "bigmlp") {
    // mlp: 784 -> 512 (relu) -> 10; bigmlp: 784 -> H (relu) -> H (relu) -> 10. Softmax
    // cross-entropy, SGD with rate 0.1.
    const int layers = kind == "mlp" ? 2 : 3;
    Shared x = input(in, "x"), y1h = input(in, "y1h");
    std::vector<Shared> params;
    Var a = x;
    for (int i = 1; i <= layers; ++i) {
      Shared w = input(in, "w" + std::to_string(i)), b = input(in, "b" + std::to_string(i));
      params.insert(params.end(), {w, b});
      a = i < layers ? maximum(dot(a, w) + b, 0.0) : dot(a, w) + b;
    }
    Var loss = softmax_xent(a, y1h);
    return {function({}, {loss, a}, sgd(loss, params), opts), params};
  }
  if (kind == "bow") {
    // Bag of words: the embedding rows of each example's tokens, their mean and max over the
    // tokens side by side, a dense layer; the table's gradient is a scatter-add
    // (inc_subtensor) of the rows used.
    Shared tokens = input(in, "tokens"), y1h = input(in, "y1h");
    Shared emb = input(in, "emb"), w = input(in, "w"), b = input(in, "b");
    Var rows = take(emb, tokens, 0);  // (batch, tokens, dim)
    Var feat = concatenate({mean(rows, 1), max(rows, 1)}, 1);
    Var logits = dot(feat, w) + b;
    Var loss = softmax_xent(logits, y1h);
    std::vector<Shared> params{emb, w, b};
    return {function({}, {loss, logits}, sgd(loss, params), opts), params};
  }
  throw ValueError("unknown workload '" + kind + "'", "tgc_compare_driver --workload",
                   "one of check1, check2, logreg, chain, sumsq, sgemm, mlp, bigmlp, bow");
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void reply(const nlohmann::json& j) { std::cout << j.dump() << std::endl; }

void save_all(const std::string& dir, const std::string& stem, const std::vector<Tensor>& tensors) {
  std::filesystem::create_directories(dir);
  for (size_t i = 0; i < tensors.size(); ++i)
    write_npy((std::filesystem::path(dir) / (stem + "_" + std::to_string(i) + ".npy")).string(),
              tensors[i].to_host());
}

// Serves the harness's commands until "quit" or end of input.
void serve(Built& built) {
  Function& fn = built.fn;
  std::vector<Tensor> last;
  std::string cmd;
  while (std::cin >> cmd) {
    if (cmd == "run") {
      long n = 0;
      std::cin >> n;
      if (n < 1) throw ValueError("run needs a count >= 1", "tgc_compare_driver", "send 'run N'");
      auto start = Clock::now();
      for (long i = 0; i < n; ++i) last = fn();
      for (const Tensor& t : last) t.sync();  // device work is asynchronous: wait for it
      reply({{"seconds", seconds_since(start)}});
    } else if (cmd == "save") {
      std::string dir;
      std::cin >> dir;
      save_all(dir, "out", last);
      reply({{"saved", last.size()}});
    } else if (cmd == "params") {
      std::string dir;
      std::cin >> dir;
      std::vector<Tensor> values;
      for (const Shared& p : built.params) values.push_back(p.get_value());
      save_all(dir, "param", values);
      reply({{"saved", values.size()}});
    } else if (cmd == "profile") {
      reply({{"profile", fn.profile_report()}});
    } else if (cmd == "quit") {
      return;
    } else {
      throw ValueError("unknown command '" + cmd + "'", "tgc_compare_driver",
                       "run N, save DIR, params DIR, profile or quit");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tgc_compare_driver: one benchmarks/compare workload through the tgc C++ API"};
  std::string kind, data, device = "cpu";
  app.add_option("--workload", kind, "check1, check2, logreg, chain, sumsq, sgemm, mlp, bigmlp or bow")->required();
  app.add_option("--data", data, "folder of the workload's .npy inputs")->required()->check(CLI::ExistingDirectory);
  app.add_option("--device", device, "cpu or cuda[:N]");
  CLI11_PARSE(app, argc, argv);
  try {
    Inputs inputs = read_inputs(data);
    auto start = Clock::now();
    Built built = build(kind, inputs, device);
    reply({{"ready", true}, {"compile_s", seconds_since(start)}});
    serve(built);
  } catch (const std::exception& e) {
    reply({{"error", e.what()}});
    return 2;
  }
  return 0;
}
