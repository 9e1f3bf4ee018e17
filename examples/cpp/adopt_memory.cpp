// A function working on memory the program owns (docs/api.md, "Memory from other
// libraries"): a buffer of the program's own, here a std::vector standing in for another
// library's array, becomes a tgc Tensor without a copy; a compiled function reads it in place
// and returns a view of it; tgc hands the memory back when it is done with it.
#include <tgc/tgc.h>

#include <cstdio>
#include <vector>

int main() {
  using namespace tgc;
  std::vector<float> owned = {1, 2, 3, 4, 5, 6};  // the other library's array, 2x3
  bool handed_back = false;
  {
    Tensor t = adopt_memory(owned.data(), DType::Float32, {2, 3}, {3, 1}, host_device(),
                            [&] { handed_back = true; });
    Var x = matrix("x", DType::Float32);
    FunctionOptions options;
    options.borrow_outputs = true;  // results may be views of the arguments
    Function f = function({x}, {x.T(), sum(x * 2)}, {}, options);
    std::vector<Tensor> r = f({t});
    std::printf("x.T is a view of the program's buffer: %s\n",
                r[0].raw_data() == static_cast<void*>(owned.data()) ? "yes" : "no");
    std::printf("sum(2x) = %.1f\n", r[1].to_vector<float>()[0]);
    owned[0] = 100;  // the view sees the program's own writes
    std::printf("x.T[0, 0] after the program wrote 100 there: %.1f\n", r[0].to_vector<float>()[0]);
  }
  std::printf("memory handed back: %s\n", handed_back ? "yes" : "no");
  return handed_back ? 0 : 1;
}
