// The PyCUDA notes' comparison program in C++: the sum of squares of a 4000x4000 float32
// matrix of ones, as one compiled function.
#include <chrono>
#include <cstdio>

#include <tgc/tgc.h>

int main() {
  using namespace tgc;
  Var a = matrix("a", DType::Float32);
  Function sum_sq = function({a}, {sum(a * a)}, {}, {.name = "sum_of_squares"});

  Tensor ones = Tensor::full(DType::Float32, {4000, 4000}, 1.0);
  auto t0 = std::chrono::steady_clock::now();
  Tensor result = sum_sq(ones)[0];
  auto t1 = std::chrono::steady_clock::now();
  std::printf("%s\n", result.str().c_str());
  std::printf("cost time:%f\n", std::chrono::duration<double>(t1 - t0).count());
  return 0;
}
