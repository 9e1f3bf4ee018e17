// Data-parallel training over several devices of this process from one function
// (data_parallel.devices, docs/distributed.md#several-devices-from-one-call): a 784-256-256-10
// relu MLP on 1,024 generated examples of 10 classes, the whole batch given to each call and
// split among the devices, the gradients summed over them before the updates.
//
//   data_parallel_devices                 one rank on the CPU (runs anywhere)
//   data_parallel_devices cuda:0 cuda:1   two GPUs (NCCL), the same losses to rounding
//
// Prints the loss every 20 steps, whether it fell, and the training accuracy.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <tgc/tgc.h>

int main(int argc, char** argv) {
  using namespace tgc;
  std::vector<std::string> devices(argv + 1, argv + argc);
  if (devices.empty()) devices = {"cpu"};
  const int64_t n = 1024, features = 784, hidden = 256, classes = 10;
  const int steps = 100;

  // Each class is a random centre plus noise; the one-hot labels say which.
  RandomState rng(4);
  const std::vector<float> centres = rng.randn({classes, features}).astype(DType::Float32).to_vector<float>();
  const std::vector<int64_t> label = rng.randint(0, classes, {n}).to_vector<int64_t>();
  std::vector<float> xs = rng.randn({n, features}).astype(DType::Float32).to_vector<float>();
  std::vector<float> ys(static_cast<size_t>(n * classes), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < features; ++j) xs[i * features + j] += 0.5f * centres[label[i] * features + j];
    ys[i * classes + label[i]] = 1.0f;
  }
  const Tensor data_x = Tensor::from_vector(xs, Shape{n, features});
  const Tensor data_y = Tensor::from_vector(ys, Shape{n, classes});

  Var x = matrix("x", DType::Float32), y = matrix("y", DType::Float32);
  auto layer = [&](int64_t in, int64_t out, const std::string& name) {
    return shared((rng.randn({in, out}) * std::sqrt(2.0 / static_cast<double>(in))).astype(DType::Float32), name);
  };
  Shared w1 = layer(features, hidden, "w1"), w2 = layer(hidden, hidden, "w2"), w3 = layer(hidden, classes, "w3");
  Shared b1 = shared(Tensor::zeros(DType::Float32, {hidden}), "b1"), b2 = shared(Tensor::zeros(DType::Float32, {hidden}), "b2"),
         b3 = shared(Tensor::zeros(DType::Float32, {classes}), "b3");
  Var h1 = maximum(dot(x, w1) + b1, 0.0f);
  Var h2 = maximum(dot(h1, w2) + b2, 0.0f);
  Var logits = dot(h2, w3) + b3;
  Var loss = -mean(sum(y * log_softmax(logits), 1));
  const std::vector<Var> params = {w1, b1, w2, b2, w3, b3};
  const std::vector<Var> g = grad(loss, params);
  Updates updates;
  for (size_t i = 0; i < params.size(); ++i) updates.emplace_back(Shared(params[i].ptr()), params[i] - 0.1f * g[i]);

  FunctionOptions o;
  o.name = "train";
  o.data_parallel = {.split = {{x, 0}, {y, 0}}, .devices = devices};
  Function train = function({x, y}, {loss}, updates, o);
  // The trained parameters are the user's shared variables: any function reads them.
  Function accuracy = function({x, y}, {mean(eq(argmax(logits, 1), argmax(y, 1)).astype(DType::Float32))}, {}, {.name = "accuracy"});

  std::printf("devices:");
  for (const std::string& d : devices) std::printf(" %s", d.c_str());
  std::printf("\n");
  double first = 0, last = 0;
  for (int s = 0; s < steps; ++s) {
    last = train(data_x, data_y)[0].item<double>();
    if (s == 0) first = last;
    if (s % 20 == 0 || s == steps - 1) std::printf("step %3d  loss %.4f\n", s, last);
  }
  std::printf("loss fell from %.3f to %.3f: %s\n", first, last, last < 0.5 * first ? "yes" : "no");
  std::printf("training accuracy: %.3f\n", accuracy(data_x, data_y)[0].item<double>());
  return 0;
}
