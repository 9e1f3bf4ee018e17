// The GPU layer's view thunks on each GPU API: a Flatten whose merged axes walk as one (a
// transposed view of stacked loop steps) is a view of its device input as it is, with no dense
// copy first; one whose axes do not is made dense on the device, then viewed.
#include "backends/gpu/transfer_thunks.h"

#include <gtest/gtest.h>

#include "gpu_test_device.h"
#include "ops/core/apply.h"
#include "ops/shape/flatten.h"

namespace tgc {
namespace {

Tensor iota(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return Tensor::from_vector(v, shape);
}

TEST(GpuViewThunks, AFlattenWhoseAxesWalkAsOneViewsItsDeviceInput) {
  TGC_REQUIRE_GPU();
  gpu::GpuDevice& dev = gpu_test::device();
  const auto x = Variable::input(Type::unknown(DType::Float32, 3), "x");
  const VarPtr flat = apply(std::make_shared<Flatten>(2), {x})[0];
  const ThunkFn thunk = gpu::make_view_thunk(dev, *flat->owner());

  // Stacked steps (T=4, m=3, k=5) seen as (k, T, m): flatten(2) merges (T, m) with one stride.
  const Tensor host = iota({4, 3, 5});
  const Tensor steps = host.to(dev).transpose({2, 0, 1});
  std::vector<Tensor> out(1);
  thunk({steps}, out);
  EXPECT_TRUE(out[0].shares_buffer(steps)) << "a dense copy was made first";
  EXPECT_EQ(out[0].shape(), (Shape{5, 12}));
  EXPECT_TRUE(tensors_equal(out[0].to(host_device()), host.transpose({2, 0, 1}).reshape({5, 12})));

  // (k, m, T): the merged (m, T) axes do not walk as one: a dense copy on the device.
  const Tensor crossed = host.to(dev).transpose({2, 1, 0});
  thunk({crossed}, out);
  EXPECT_FALSE(out[0].shares_buffer(crossed));
  EXPECT_TRUE(tensors_equal(out[0].to(host_device()), host.transpose({2, 1, 0}).contiguous().reshape({5, 12})));
}

}  // namespace
}  // namespace tgc
