// Uses the installed tgc: x + 0.5 on a float32 vector, printed; and tgc's version, which is a
// function of the library, not a macro in the consumer's flags. With CONSUMER_OWN_HEADERS, a
// header of the consumer's own has the path of one of tgc's (include/runtime/dtype.h), and
// both are used.
#include <cstdio>

#include <tgc/tgc.h>

#ifdef CONSUMER_OWN_HEADERS
#include "runtime/dtype.h"
#endif

// The library's version is its own definition (frontend/api/version.cpp), not the consumer's.
#ifdef TGC_VERSION
#error "TGC_VERSION leaked into a consumer's compile flags"
#endif

int main() {
  tgc::Var x = tgc::vector("x", tgc::DType::Float32);
  tgc::Function f = tgc::function({x}, {x + 0.5});
  auto out = f(tgc::Tensor::from_vector(std::vector<float>{1, 2, 3}))[0].to_vector<float>();
  std::printf("consumer: %g %g %g (tgc %s)\n", out[0], out[1], out[2], tgc::version());
#ifdef CONSUMER_OWN_HEADERS
  std::printf("beside %s\n", consumer::own_dtype_header());
#endif
  return 0;
}
