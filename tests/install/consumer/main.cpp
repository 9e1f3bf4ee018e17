// Uses the installed tgc: x + 0.5 on a float32 vector, printed.
#include <cstdio>

#include <tgc/tgc.h>

int main() {
  tgc::Var x = tgc::vector("x", tgc::DType::Float32);
  tgc::Function f = tgc::function({x}, {x + 0.5});
  auto out = f(tgc::Tensor::from_vector(std::vector<float>{1, 2, 3}))[0].to_vector<float>();
  std::printf("consumer: %g %g %g\n", out[0], out[1], out[2]);
  return 0;
}
