// ResNet-18 at CIFAR size (He et al. 2016; issue 24, docs/conv.md): 32x32 RGB images of ten
// generated classes (a random pattern per class seen through noise). A 3x3 stem conv (64),
// then four stages of two basic blocks (64, 128, 256, 512 channels; the first block of each
// later stage strides 2 and projects its shortcut with a 1x1 conv), each conv followed by
// batch normalization (running statistics kept as updates), relu after each block's sum,
// global average pooling, a dense layer to the ten classes; softmax cross-entropy, SGD with
// momentum 0.9. Prints the loss of each step and the time per step after the first two. The
// device is the configured one: TGC_FLAGS=device=cuda runs it on a GPU. --channels-last lays
// activations out as (N, H, W, C) and weights as (O, KH, KW, C) (PyTorch's channels_last; what
// tensor-core convolutions read directly).
//   build/examples/resnet18 [STEPS [BATCH]] [--channels-last]     (default 20 steps of batch 32)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tgc/tgc.h>

namespace {

using namespace tgc;

// The network's parameters, made as the layers are, with what SGD and batch norm update.
struct Params {
  ConvLayout layout = ConvLayout::NCHW;
  RandomState rng{18};
  std::vector<Shared> trained;  // conv weights, batch norms' gamma and beta, the dense layer
  Updates running;              // the batch norms' running statistics

  Shared conv_weight(int64_t out, int64_t in, int64_t k) {
    const double he = std::sqrt(2.0 / static_cast<double>(in * k * k));  // He initialisation
    const Shape shape = layout == ConvLayout::NHWC ? Shape{out, k, k, in} : Shape{out, in, k, k};
    trained.push_back(shared(rng.normal(0, he, shape).astype(DType::Float32), "w" + std::to_string(trained.size())));
    return trained.back();
  }
  // conv (no bias: the batch norm's beta is one) then batch normalization, training form.
  Var conv_bn(const Var& x, int64_t in, int64_t out, int64_t k, int64_t stride) {
    Conv2dOptions o;
    o.layout = layout;
    o.stride = {stride, stride};
    o.padding = ConvPadding(k / 2);
    Var c = conv2d(x, conv_weight(out, in, k), o);
    const std::string n = std::to_string(trained.size());
    trained.push_back(shared(Tensor::full(DType::Float32, {out}, 1.0), "gamma" + n));
    Shared gamma = trained.back();
    trained.push_back(shared(Tensor::zeros(DType::Float32, {out}), "beta" + n));
    Shared beta = trained.back();
    Shared mean = shared(Tensor::zeros(DType::Float32, {out}), "running_mean" + n);
    Shared var = shared(Tensor::full(DType::Float32, {out}, 1.0), "running_var" + n);
    BatchNormTrain bn = batch_normalization_train(c, gamma, beta, mean, var, {.layout = layout});
    running.insert(running.end(), bn.updates.begin(), bn.updates.end());
    return bn.y;
  }
  // A basic block: two 3x3 conv-bn, the shortcut (projected when the shape changes), relu.
  Var block(const Var& x, int64_t in, int64_t out, int64_t stride) {
    Var h = maximum(conv_bn(x, in, out, 3, stride), 0.0);
    h = conv_bn(h, out, out, 3, 1);
    Var shortcut = stride == 1 && in == out ? x : conv_bn(x, in, out, 1, stride);
    return maximum(h + shortcut, 0.0);
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> numbers;
  bool channels_last = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--channels-last") channels_last = true;
    else numbers.push_back(a);
  }
  const int steps = numbers.size() > 0 ? std::atoi(numbers[0].c_str()) : 20;
  const int64_t N = numbers.size() > 1 ? std::atoll(numbers[1].c_str()) : 32, classes = 10;
  if (steps < 1 || N < 2 || numbers.size() > 2) {
    std::fprintf(stderr, "usage: resnet18 [STEPS >= 1 [BATCH >= 2]] [--channels-last]\n");
    return 2;
  }
  RandomState data(7);
  const Tensor patterns = data.randn({classes, 3, 32, 32});
  const std::vector<int64_t> labels = data.randint(0, classes, {N}).to_vector<int64_t>();
  const Tensor noise = data.randn({N, 3, 32, 32});
  Tensor images = Tensor::empty(DType::Float64, {N, 3, 32, 32}), onehot = Tensor::zeros(DType::Float64, {N, classes});
  const int64_t pixels = 3 * 32 * 32;
  for (int64_t i = 0; i < N; ++i) {
    onehot.data<double>()[i * classes + labels[i]] = 1;
    for (int64_t j = 0; j < pixels; ++j)
      images.data<double>()[i * pixels + j] =
          patterns.data<double>()[labels[i] * pixels + j] + noise.data<double>()[i * pixels + j];
  }
  if (channels_last) images = images.transpose({0, 2, 3, 1}).copy();  // (N, 32, 32, 3)
  Shared x = shared(images.astype(DType::Float32), "x"), y1h = shared(onehot.astype(DType::Float32), "y1h");

  Params p;
  p.layout = channels_last ? ConvLayout::NHWC : ConvLayout::NCHW;
  Var h = maximum(p.conv_bn(x, 3, 64, 3, 1), 0.0);  // (N, 64, 32, 32)
  int64_t channels = 64;
  for (int64_t width : {64, 128, 256, 512}) {      // to (N, 512, 4, 4)
    h = p.block(h, channels, width, width == channels ? 1 : 2);
    h = p.block(h, width, width, 1);
    channels = width;
  }
  Var pooled = channels_last ? mean(h, {1, 2}) : mean(h, {2, 3});  // global average pooling: (N, 512)
  p.trained.push_back(shared(p.rng.normal(0, 0.01, {512, classes}).astype(DType::Float32), "dense_w"));
  Shared dense_w = p.trained.back();
  p.trained.push_back(shared(Tensor::zeros(DType::Float32, {classes}), "dense_b"));
  Shared dense_b = p.trained.back();
  Var loss = -mean(sum(y1h * log_softmax(dot(pooled, dense_w) + dense_b), 1));

  // SGD with momentum: v = 0.9 v - lr g; w = w + v.
  const std::vector<Var> g = grad(loss, std::vector<Var>(p.trained.begin(), p.trained.end()));
  Updates updates = p.running;
  for (size_t i = 0; i < p.trained.size(); ++i) {
    Shared v = shared(Tensor::zeros(DType::Float32, p.trained[i].get_value().shape()), "velocity" + std::to_string(i));
    Var v_next = 0.9 * v - 0.05 * g[i];
    updates.push_back({v, v_next});
    updates.push_back({p.trained[i], p.trained[i] + v_next});
  }
  Function train = function({}, {loss}, updates, {.name = "resnet18 step"});
  std::printf("ResNet-18: %zu parameter tensors, batch %lld, %s\n", p.trained.size(), static_cast<long long>(N),
              channels_last ? "channels last (NHWC)" : "NCHW");

  double first = 0, last = 0;
  // The steps after the first two (which compile and tune): their time per step.
  std::chrono::steady_clock::time_point t0;
  for (int step = 0; step < steps; ++step) {
    if (step == 2) t0 = std::chrono::steady_clock::now();
    last = train()[0].item<double>();
    if (step == 0) first = last;
    std::printf("step %3d  loss %.4f\n", step, last);
  }
  if (steps > 2)
    std::printf("%.2f ms per step (steps 2 to %d)\n",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / (steps - 2),
                steps - 1);
  if (steps > 1 && last < first / 2) std::printf("the network is learning\n");
  return 0;
}
