// Saving a trained model and serving it (docs/save.md): the tutorial's logistic regression is
// trained for a while and saved, training and prediction together, into one file; "the
// server" loads that file (no optimizing, its kernels come from the file), checks that its
// predictions are the trainer's, and keeps training in step with it, bit for bit. A
// checkpoint of the weights is written and read back into fresh variables.
//   build/examples/save_load [DIR]     (DIR: where the files go, default the temp folder)
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <tgc/tgc.h>

#include "runtime/compile_log.h"  // Function::compile_phases(): what the load compiled

namespace {

bool same_bits(const tgc::Tensor& a, const tgc::Tensor& b) {
  tgc::Tensor x = a.to_host().contiguous(), y = b.to_host().contiguous();
  return x.dtype() == y.dtype() && x.shape() == y.shape() && std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tgc;
  const std::filesystem::path dir = argc > 1 ? argv[1] : std::filesystem::temp_directory_path();
  const std::string model = (dir / "logreg.tgf").string(), weights = (dir / "logreg_weights.tgc").string();

  RandomState rng(22);
  Tensor data_x = rng.randn({400, 784}).astype(floatX());
  Tensor data_y = rng.randint(0, 2, {400}).astype(floatX());
  Var x = matrix("x"), y = vector("y");
  Shared w = shared(rng.randn({784}).astype(floatX()), "w");
  Shared b = shared(Tensor::full(floatX(), {}, 0.0), "b");
  Var p_1 = 1 / (1 + exp(-dot(x, w) - b));
  Var cost = mean(-y * log(p_1) - (1 - y) * log(1 - p_1)) + 0.01 * sum(pow(w, 2));
  std::vector<Var> g = grad(cost, {w, b});
  Function train = function({x, y}, {cost}, {{w, w - 0.1 * g[0]}, {b, b - 0.1 * g[1]}}, {.name = "train"});
  Function predict = function({x}, {p_1 > 0.5}, {}, {.name = "predict"});
  for (int i = 0; i < 100; ++i) train(data_x, data_y);

  // Both functions in one file: loaded together, the server's predict reads what its train writes.
  save({&train, &predict}, model);
  std::printf("saved %s (%ju bytes)\n", std::filesystem::path(model).filename().c_str(),
              static_cast<uintmax_t>(std::filesystem::file_size(model)));

  std::vector<Function> served = load_functions(model);
  Function& served_train = served[0];
  Function& served_predict = served[1];
  std::printf("loaded %s and %s; kernels compiled at load: %s\n", served_train.name().c_str(),
              served_predict.name().c_str(), served_train.compile_phases().kernels_compiled > 0 ? "some" : "none");
  std::printf("same predictions: %s\n", same_bits(predict(data_x)[0], served_predict(data_x)[0]) ? "yes" : "no");
  bool in_step = true;
  for (int i = 0; i < 10; ++i) in_step = in_step && same_bits(train(data_x, data_y)[0], served_train(data_x, data_y)[0]);
  std::printf("10 more steps, the same costs bit for bit: %s\n", in_step ? "yes" : "no");

  // A checkpoint holds values only, found by name.
  save_shared(served_train.shared_variables(), weights);
  Shared w2 = shared(Tensor::zeros(floatX(), {784}), "w"), b2 = shared(Tensor::full(floatX(), {}, 0.0), "b");
  load_shared({w2, b2}, weights);
  std::printf("checkpoint read back: %s\n", same_bits(w2.get_value(), w.get_value()) ? "yes" : "no");
  std::filesystem::remove(model);
  std::filesystem::remove(weights);
  return 0;
}
