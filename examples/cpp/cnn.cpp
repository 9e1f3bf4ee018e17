// A tiny CNN in C++ (the twin of examples/cnn.tg; docs/conv.md): two classes of 8x8 images,
// each a random pattern seen through noise; conv 3x3 (same) -> batch norm -> relu -> 2x2 max
// pool -> conv 3x3 + bias + relu -> dense, softmax cross-entropy, SGD. The batch norm's running
// statistics are updated by the training function; the evaluation uses them. Prints the loss
// every 20 steps and the accuracy of the inference form at the end.
#include <cstdio>

#include <tgc/tgc.h>

int main() {
  using namespace tgc;
  const int64_t N = 32;
  RandomState data(24);
  Tensor patterns = data.randn({2, 1, 8, 8});
  Tensor labels = data.randint(0, 2, {N});
  Tensor images = Tensor::empty(DType::Float64, {N, 1, 8, 8});
  Tensor noise = data.randn({N, 1, 8, 8});
  Tensor onehot = Tensor::zeros(DType::Float64, {N, 2});
  for (int64_t i = 0; i < N; ++i) {
    const int64_t c = labels.to_vector<int64_t>()[i];
    onehot.data<double>()[i * 2 + c] = 1;
    for (int64_t j = 0; j < 64; ++j)
      images.data<double>()[i * 64 + j] = patterns.data<double>()[c * 64 + j] + 0.5 * noise.data<double>()[i * 64 + j];
  }
  auto f32 = [](const Tensor& t) { return t.astype(DType::Float32); };
  Shared x = shared(f32(images), "x"), y1h = shared(f32(onehot), "y1h");
  Shared w1 = shared(f32(data.normal(0, 0.3, {4, 1, 3, 3})), "w1");
  Shared gamma = shared(Tensor::full(DType::Float32, {4}, 1.0), "gamma"), beta = shared(Tensor::zeros(DType::Float32, {4}), "beta");
  Shared running_mean = shared(Tensor::zeros(DType::Float32, {4}), "running_mean");
  Shared running_var = shared(Tensor::full(DType::Float32, {4}, 1.0), "running_var");
  Shared w2 = shared(f32(data.normal(0, 0.2, {8, 4, 3, 3})), "w2"), b2 = shared(Tensor::zeros(DType::Float32, {8}), "b2");
  Shared w3 = shared(f32(data.normal(0, 0.1, {32, 2})), "w3"), b3 = shared(Tensor::zeros(DType::Float32, {2}), "b3");

  Conv2dOptions same;
  same.padding = ConvPadding::same();
  Var c1 = conv2d(x, w1, same);  // (N, 4, 8, 8)
  auto head = [&](const Var& h1) {
    Var p = max_pool2d(maximum(h1, 0.0), {2, 2});                                       // (N, 4, 4, 4)
    Var h2 = maximum(conv2d(p, w2) + dimshuffle(b2, {-1, 0, -1, -1}), 0.0);            // (N, 8, 2, 2)
    return dot(flatten(h2, 2), w3) + b3;                                                // (N, 2)
  };
  BatchNormTrain bn = batch_normalization_train(c1, gamma, beta, running_mean, running_var);
  Var loss = -mean(sum(y1h * log_softmax(head(bn.y)), 1));
  std::vector<Shared> params = {w1, gamma, beta, w2, b2, w3, b3};
  std::vector<Var> g = grad(loss, std::vector<Var>(params.begin(), params.end()));
  Updates updates = bn.updates;
  for (size_t i = 0; i < params.size(); ++i) updates.push_back({params[i], params[i] - 0.05 * g[i]});
  Function train = function({}, {loss}, updates, {.name = "train"});
  Var clean = head(batch_normalization_test(c1, gamma, beta, running_mean, running_var));
  Function evaluate = function({}, {mean(eq(argmax(clean, 1), argmax(y1h, 1)))}, {}, {.name = "evaluate"});

  double first = 0, last = 0;
  for (int step = 0; step < 100; ++step) {
    last = train()[0].item<double>();
    if (step == 0) first = last;
    if (step % 20 == 0) std::printf("step %3d  loss %.4f\n", step, last);
  }
  std::printf("loss %.4f -> %.4f\n", first, last);
  std::printf("accuracy with the running statistics: %.3f\n", evaluate()[0].item<double>());
  if (last < first / 2) std::printf("the network is learning\n");
  return 0;
}
