// Collectives on the CUDA device's side stream (GpuDevice::run_beside, Config::comm_overlap;
// label `gpu`): a world of one's all_reduce is a copy on the side stream, large enough that a
// reader which did not wait for it would read the buffer before the copy landed. Its readers,
// the work beside it, a result returned as it is and the next calls all see the values the
// host computes, with the side stream and with collectives in line.
#include <gtest/gtest.h>

#include <cmath>

#include <tgc/printing.h>
#include <tgc/tgc.h>

#include "cuda_test_util.h"

namespace tgc {
namespace {

TEST(CudaSideStream, EveryReaderOfACollectiveSeesItsResult) {
  TGC_REQUIRE_CUDA();
  const int64_t n = int64_t{1} << 22;  // 16 MiB per float32 tensor
  Var x = vector("x", DType::Float32), w = vector("w", DType::Float32);
  Var s = all_reduce(exp(x));                 // beside the default stream
  Var beside = w * 3.0 + 1.0;                 // independent of it: runs meanwhile
  Var reader = s * 2.0 + beside;              // reads it: waits for it
  Var returned = all_reduce(x * 5.0);         // nobody reads it: joined at the end of the call
  for (bool overlap : {true, false}) {
    SCOPED_TRACE(overlap ? "comm_overlap=true" : "comm_overlap=false");
    FunctionOptions o;
    o.config = {{"device", "cuda"}, {"cuda_graphs", "off"}, {"comm_overlap", overlap ? "true" : "false"}};
    Function f = function({x, w}, {reader, returned}, {}, o);
    EXPECT_NE(graph_text(f).find("AllReduce"), std::string::npos) << graph_text(f);
    for (int call = 0; call < 3; ++call) {
      RandomState rng(100 + call);
      const Tensor xv = rng.uniform(-1.0, 1.0, {n}).astype(DType::Float32);
      const Tensor wv = rng.uniform(-1.0, 1.0, {n}).astype(DType::Float32);
      const std::vector<Tensor> out = f(xv, wv);
      const float* xs = xv.data<float>();
      const float* ws = wv.data<float>();
      const Tensor r = out[0].to_host(), t = out[1].to_host();
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) {
        const float want_r = std::exp(xs[i]) * 2.0f + (ws[i] * 3.0f + 1.0f);
        if (std::abs(r.data<float>()[i] - want_r) > 1e-5f * (1 + std::abs(want_r))) ++wrong;
        if (t.data<float>()[i] != xs[i] * 5.0f) ++wrong;
      }
      EXPECT_EQ(wrong, 0) << "call " << call;
    }
  }
}

}  // namespace
}  // namespace tgc
