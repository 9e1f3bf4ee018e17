// cuda_graphs=auto on the tutorial's training step: the data and parameters live on the GPU
// in shared variables, so from its second call the step is recorded as a CUDA graph and
// replayed with one launch. Trains the same model twice, with cuda_graphs=auto and off, and
// prints the time per step, the calls replayed and that both trained to the same bits.
// Needs device=cuda; elsewhere it says why.
#include <chrono>
#include <cstdio>
#include <string>

#include <tgc/tgc.h>

namespace {

struct Trained {
  double us_per_step = 0;
  int replays = 0;
  tgc::Tensor w;
};

Trained train(const std::string& cuda_graphs, int steps) {
  using namespace tgc;
  RandomState rng(22);
  Shared x = shared(rng.randn({400, 784}).astype(DType::Float32), "x");
  Shared y = shared(rng.randint(0, 2, {400}).astype(DType::Float32), "y");
  Shared w = shared(rng.randn({784}).astype(DType::Float32), "w");
  Shared b = shared(Tensor::full(DType::Float32, {}, 0.0), "b");
  Var p_1 = 1 / (1 + exp(-dot(x, w) - b));
  Var xent = -y * log(p_1) - (1 - y) * log(1 - p_1);
  Var cost = mean(xent) + 0.01 * sum(pow(w, 2));
  std::vector<Var> g = grad(cost, {w, b});
  Function step = function({}, {p_1 > 0.5, xent}, {{w, w - 0.1 * g[0]}, {b, b - 0.1 * g[1]}},
                           {.name = "train", .config = {{"device", "cuda"}, {"cuda_graphs", cuda_graphs}}});
  step();  // moves the shared variables to the GPU
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1; i < steps; ++i) step();  // each call returns the outputs on the host
  const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
  return {took.count() / (steps - 1), step.cuda_graph_replays(), w.get_value()};
}

}  // namespace

int main() {
  try {
    const int steps = 2000;
    Trained graphs = train("auto", steps), nodes = train("off", steps);
    std::printf("cuda_graphs=auto: %.1f us per step, %d of %d calls replayed\n", graphs.us_per_step,
                graphs.replays, steps);
    std::printf("cuda_graphs=off:  %.1f us per step, %d calls replayed\n", nodes.us_per_step, nodes.replays);
    const bool same = graphs.w.to_host().to_vector<float>() == nodes.w.to_host().to_vector<float>();
    std::printf("the trained weights are %s\n", same ? "identical" : "DIFFERENT");
    return same ? 0 : 1;
  } catch (const tgc::ConfigError& e) {
    std::printf("CUDA is not usable here: %s\n", e.what());
  }
  return 0;
}
