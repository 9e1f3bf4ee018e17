// LeNet-5 in C++ (the twin of examples/lenet.tg; issue 24, docs/conv.md): ten classes of
// generated 28x28 "digits" (a random pattern per class seen through noise), batch 64;
// conv 5x5 (6, same) -> relu -> 2x2 average pool -> conv 5x5 (16) -> relu -> 2x2 average pool
// -> dense 400-120-84-10 with relus, softmax cross-entropy, SGD. Prints the loss and the
// accuracy on a second batch of the same digits every 20 steps.
#include <cstdio>

#include <tgc/tgc.h>

int main() {
  using namespace tgc;
  const int64_t N = 64, classes = 10, side = 28;
  RandomState data(5);
  const Tensor digits = data.randn({classes, 1, side, side});
  // A batch: each image its class's pattern plus noise, and the one-hot labels.
  auto batch = [&](Tensor& images, Tensor& onehot) {
    const std::vector<int64_t> labels = data.randint(0, classes, {N}).to_vector<int64_t>();
    const Tensor noise = data.randn({N, 1, side, side});
    images = Tensor::empty(DType::Float64, {N, 1, side, side});
    onehot = Tensor::zeros(DType::Float64, {N, classes});
    const int64_t pixels = side * side;
    for (int64_t i = 0; i < N; ++i) {
      onehot.data<double>()[i * classes + labels[i]] = 1;
      for (int64_t j = 0; j < pixels; ++j)
        images.data<double>()[i * pixels + j] =
            digits.data<double>()[labels[i] * pixels + j] + 0.8 * noise.data<double>()[i * pixels + j];
    }
    images = images.astype(DType::Float32);
    onehot = onehot.astype(DType::Float32);
  };
  Tensor images, onehot, test_images, test_onehot;
  batch(images, onehot);
  batch(test_images, test_onehot);
  Shared x = shared(images, "x"), y1h = shared(onehot, "y1h");
  Shared x_test = shared(test_images, "x_test"), y_test = shared(test_onehot, "y_test");

  auto weights = [&](Shape shape, double scale, const char* name) {
    return shared(data.normal(0, scale, shape).astype(DType::Float32), name);
  };
  auto zeros = [](int64_t n, const char* name) { return shared(Tensor::zeros(DType::Float32, {n}), name); };
  Shared w1 = weights({6, 1, 5, 5}, 0.2, "w1"), b1 = zeros(6, "b1");
  Shared w3 = weights({16, 6, 5, 5}, 0.08, "w3"), b3 = zeros(16, "b3");
  Shared w5 = weights({400, 120}, 0.05, "w5"), b5 = zeros(120, "b5");
  Shared w6 = weights({120, 84}, 0.09, "w6"), b6 = zeros(84, "b6");
  Shared w7 = weights({84, 10}, 0.1, "w7"), b7 = zeros(10, "b7");

  Conv2dOptions same;
  same.padding = ConvPadding::same();
  auto relu = [](const Var& t) { return maximum(t, 0.0); };
  auto channel = [](const Var& b) { return dimshuffle(b, {-1, 0, -1, -1}); };  // (C,) -> (1, C, 1, 1)
  auto lenet = [&](const Var& in) {
    Var s2 = avg_pool2d(relu(conv2d(in, w1, same) + channel(b1)), {2, 2});  // (N, 6, 14, 14)
    Var s4 = avg_pool2d(relu(conv2d(s2, w3) + channel(b3)), {2, 2});        // (N, 16, 5, 5)
    Var f5 = relu(dot(flatten(s4, 2), w5) + b5);                            // (N, 120)
    Var f6 = relu(dot(f5, w6) + b6);                                        // (N, 84)
    return dot(f6, w7) + b7;                                                // (N, 10)
  };
  Var loss = -mean(sum(y1h * log_softmax(lenet(x)), 1));
  Var accuracy = mean(eq(argmax(lenet(x_test), 1), argmax(y_test, 1)));
  const std::vector<Shared> params = {w1, b1, w3, b3, w5, b5, w6, b6, w7, b7};
  const std::vector<Var> g = grad(loss, std::vector<Var>(params.begin(), params.end()));
  Updates updates;
  for (size_t i = 0; i < params.size(); ++i) updates.push_back({params[i], params[i] - 0.05 * g[i]});
  Function train = function({}, {loss, accuracy}, updates, {.name = "train"});

  double first = 0, last = 0, acc = 0;
  for (int step = 0; step <= 60; ++step) {
    std::vector<Tensor> r = train();
    last = r[0].item<double>();
    acc = r[1].item<double>();
    if (step == 0) first = last;
    if (step % 20 == 0) std::printf("step %3d  loss %.4f  accuracy on the second batch %.3f\n", step, last, acc);
  }
  if (last < first / 2 && acc > 0.8) std::printf("the network is learning\n");
  return 0;
}
