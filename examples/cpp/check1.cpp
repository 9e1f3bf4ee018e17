// The first program of Theano's "Using the GPU" tutorial (check1.py) in C++: exp of a
// 230400-element shared vector, computed 1000 times.
#include <chrono>
#include <cstdio>
#include <string>

#include <tgc/tgc.h>

int main() {
  using namespace tgc;
  const int64_t vlen = 10 * 30 * 768;  // 10 x #cores x # threads per core
  const int iters = 1000;

  RandomState rng(22);
  Shared x = shared(rng.rand({vlen}).astype(floatX()), "x");
  Function f = function({}, {exp(x)});
  std::string nodes;
  for (const std::string& node : f.toposort()) nodes += (nodes.empty() ? "" : ", ") + node;
  std::printf("[%s]\n", nodes.c_str());

  auto t0 = std::chrono::steady_clock::now();
  std::vector<Tensor> r;
  for (int i = 0; i < iters; ++i) r = f();
  auto t1 = std::chrono::steady_clock::now();
  std::printf("Looping %d times took %f seconds\n", iters,
              std::chrono::duration<double>(t1 - t0).count());
  std::printf("Result is %s\n", r[0].str().c_str());
  bool on_cpu = false;
  // The tutorial looks for host Elemwise ops; tgc fuses them into Composite kernels.
  for (const std::string& node : f.toposort())
    on_cpu |= node.rfind("Elemwise", 0) == 0 || node.rfind("Composite", 0) == 0;
  std::printf("%s\n", on_cpu ? "Used the cpu" : "Used the gpu");
  return 0;
}
