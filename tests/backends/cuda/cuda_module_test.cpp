// CudaModule (backends/cuda/cuda_module.h; label gpu): a composite's module is built in two
// parts, its 64-bit-index entries apart (gpu::ModuleSource::late). The late part is built and
// loaded on the first launch that needs one — operands of 2^31 elements or more — and then
// computes what the host does: an elementwise kernel and a reduction over 2^31 + 64 bytes.
#include <gtest/gtest.h>
#include <tgc/tgc.h>

#include "cuda_test_util.h"

namespace tgc {
namespace {

TEST(CudaModule, WideEntriesAreBuiltOnTheirFirstLaunchAndCompute) {
  TGC_REQUIRE_CUDA();
  Device& gpu = gpu_device();
  // Narrow first: the same kernels on a small operand launch the parts built with the module.
  const Tensor small = nd::full({100}, 3, DType::UInt8, gpu);
  EXPECT_EQ((small + 1).eval().to_host().to_vector<uint8_t>(), std::vector<uint8_t>(100, 4));
  const int64_t n = (int64_t{1} << 31) + 64;  // element offsets past int32: the 64-bit entries
  const Tensor a = nd::full({n}, 3, DType::UInt8, gpu);
  const Tensor b = (a + 1).eval();  // the elementwise kernel's late part
  EXPECT_EQ(&b.device(), &gpu);
  EXPECT_EQ(index(b, {0}).to_host().to_vector<uint8_t>(), std::vector<uint8_t>{4});
  EXPECT_EQ(index(b, {n - 1}).to_host().to_vector<uint8_t>(), std::vector<uint8_t>{4});
  // A reduction over all of it (its late part too): every element counted once.
  const Tensor total = eager([](const std::vector<Var>& v) { return sum(cast(v[0], DType::Int64)); }, {b});
  EXPECT_EQ(total.to_host().to_vector<int64_t>(), std::vector<int64_t>{4 * n});
}

}  // namespace
}  // namespace tgc
