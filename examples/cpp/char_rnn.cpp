// A character-level recurrent network written with scan(): reads the bundled text
// (examples/data/char_rnn.txt), learns to predict the next character with a tanh RNN and
// backpropagation through time, and prints the falling loss. Runs on the configured device
// (TGC_FLAGS=device=cuda for a GPU).
//   char_rnn [text file] [steps]
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <tgc/tgc.h>

int main(int argc, char** argv) {
  using namespace tgc;
  const std::string path = argc > 1 ? argv[1] : TGC_EXAMPLE_DATA "/char_rnn.txt";
  const int steps = argc > 2 ? std::stoi(argv[2]) : 150;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::map<char, int64_t> vocab;
  for (char c : text) vocab.emplace(c, 0);
  int64_t next_id = 0;
  for (auto& [c, id] : vocab) id = next_id++;
  const int64_t V = next_id, H = 64, T = 32, B = 16;
  std::vector<int64_t> ids;
  for (char c : text) ids.push_back(vocab.at(c));
  std::printf("%zu characters, %lld distinct\n", text.size(), static_cast<long long>(V));

  // The model: h[t] = tanh(x[t] Wxh + h[t-1] Whh + bh), next-character logits h[t] Why + by.
  RandomState rng(1);
  auto param = [&](Shape shape, double scale, const char* name) {
    return shared(rng.uniform(-scale, scale, shape).astype(floatX()), name);
  };
  Shared wxh = param({V, H}, 0.1, "Wxh"), whh = param({H, H}, 0.1, "Whh"), why = param({H, V}, 0.1, "Why");
  Shared bh = shared(Tensor::zeros(floatX(), {H}), "bh"), by = shared(Tensor::zeros(floatX(), {V}), "by");
  Var tokens = matrix("tokens", DType::Int64);   // (T + 1, B): inputs and, shifted by one, targets
  Var inputs = tokens[{slice(0, T)}], targets = tokens[{slice(1, T + 1)}];
  Var x = eye(V, std::nullopt, 0, floatX())[inputs];  // one-hot, (T, B, V)
  ScanResult rnn = scan([&](const std::vector<Var>& a) { return ScanStep{tanh(dot(a[0], wxh) + dot(a[1], whh) + bh)}; },
                        {x}, {OutputInfo(zeros({B, H}))}, {}, {.name = "rnn"});
  Var logits = dot(rnn[0].reshape({T * B, H}), why) + by;
  Var logp = log_softmax(logits);
  Var flat_targets = targets.reshape({T * B});
  Var loss = (-logp[{arange(0, T * B, 1, DType::Int64), flat_targets}].mean()).as("loss");
  std::vector<Shared> params{wxh, whh, why, bh, by};
  std::vector<Var> wrt(params.begin(), params.end());
  std::vector<Var> g = grad(loss, wrt);
  Updates updates;
  for (size_t i = 0; i < params.size(); ++i) updates.push_back({params[i], params[i] - 0.5 * clip(g[i], -5.0, 5.0)});
  Function train = function({tokens}, {loss}, updates, {.name = "train"});

  // Batches: B windows of T + 1 characters at random places.
  double first = 0, last = 0, average = 0;
  for (int step = 0; step < steps; ++step) {
    std::vector<int64_t> batch(static_cast<size_t>((T + 1) * B));
    for (int64_t b = 0; b < B; ++b) {
      const int64_t start = static_cast<int64_t>(rng.next_uint32() % static_cast<uint32_t>(ids.size() - T - 1));
      for (int64_t t = 0; t <= T; ++t) batch[static_cast<size_t>(t * B + b)] = ids[static_cast<size_t>(start + t)];
    }
    const double l = train(Tensor::from_vector(batch, {T + 1, B}))[0].astype(DType::Float64).item<double>();
    average = step == 0 ? l : 0.9 * average + 0.1 * l;
    if (step == 0) first = l;
    last = average;
    if (step % 25 == 0 || step == steps - 1) std::printf("step %4d  loss %.4f\n", step, average);
  }
  std::printf("loss fell from %.3f to %.3f (log of the vocabulary: %.3f)\n", first, last, std::log(double(V)));
  std::printf("%s\n", last < 0.8 * first ? "the network is learning" : "the loss did not fall enough");
  return last < 0.8 * first ? 0 : 1;
}
