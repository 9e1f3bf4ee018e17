// The logistic regression of Theano's "Using the GPU" tutorial (the exercise) in C++:
// 400 random examples of 784 features, trained for 10000 steps with grad() and
// shared-variable updates; prints the training accuracy and the final cost.
#include <cstdio>

#include <tgc/tgc.h>

int main() {
  using namespace tgc;
  const int64_t N = 400;
  const int64_t feats = 784;
  const int training_steps = 10000;

  RandomState rng(22);
  Tensor data_x = rng.randn({N, feats}).astype(floatX());
  Tensor data_y = rng.randint(0, 2, {N}).astype(floatX());

  // Declare the symbolic variables.
  Var x = matrix("x");
  Var y = vector("y");
  Shared w = shared(rng.randn({feats}).astype(floatX()), "w");
  Shared b = shared(Tensor::full(floatX(), {}, 0.0), "b");

  // Construct the expression graph.
  Var p_1 = (1 / (1 + exp(-dot(x, w) - b))).as("p_1");                // probability of a one
  Var prediction = (p_1 > 0.5).as("prediction");                      // the prediction: 0 or 1
  // On this data p_1 rounds to 1.0 for some examples, where log(1 - p_1) is -inf as
  // written; grad() and function() use the stabilized form (-softplus(z) for that log).
  Var xent = (-y * log(p_1) - (1 - y) * log(1 - p_1)).as("xent");    // cross-entropy
  Var cost = (mean(xent) + 0.01 * sum(pow(w, 2))).as("cost");         // the cost to minimise
  std::vector<Var> g = grad(cost, {w, b});
  Var gw = g[0], gb = g[1];

  // Compile.
  Function train = function({x, y}, {prediction, xent}, {{w, w - 0.01 * gw}, {b, b - 0.01 * gb}},
                            {.name = "train"});
  Function predict = function({x}, {prediction}, {}, {.name = "predict"});
  Function cost_of = function({x, y}, {cost}, {}, {.name = "cost"});

  for (int i = 0; i < training_steps; ++i) train(data_x, data_y);

  std::printf("target values for D\n%s\n", data_y.str().c_str());
  Tensor predicted = predict(data_x)[0];
  std::printf("prediction on D\n%s\n", predicted.str().c_str());
  std::vector<double> p = predicted.astype(DType::Float64).to_vector<double>();
  std::vector<double> t = data_y.astype(DType::Float64).to_vector<double>();
  int64_t correct = 0;
  for (int64_t i = 0; i < N; ++i) correct += p[i] == t[i];
  std::printf("training accuracy: %.4f (%lld of %lld)\n", static_cast<double>(correct) / N,
              static_cast<long long>(correct), static_cast<long long>(N));
  std::printf("final cost: %.6f\n", cost_of(data_x, data_y)[0].astype(DType::Float64).item<double>());
  return 0;
}
