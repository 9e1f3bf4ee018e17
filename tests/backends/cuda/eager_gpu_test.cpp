// Eager operations on CUDA tensors (<tgc/eager.h>, docs/eager.md; label gpu): results stay on
// the device and equal the host's, chains are recorded and run as one call, creation fills
// on the device, device tensors are arguments of compiled functions without a copy, and
// mixing devices is an error naming both.
#include <gtest/gtest.h>
#include <tgc/tgc.h>

#include "cuda_test_util.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

Tensor host_vec(std::vector<float> v) { return Tensor::from_vector(v); }

TEST(CudaEager, ResultsStayOnTheDeviceAndEqualTheHosts) {
  TGC_REQUIRE_CUDA();
  Device& gpu = gpu_device();
  RandomState rng(7);
  const Tensor a = rng.uniform(-1, 1, {1000}).astype(DType::Float32), b = rng.uniform(-1, 1, {1000}).astype(DType::Float32);
  const Tensor ga = to_device(a, gpu), gb = to_device(b, gpu);
  const Tensor chain = ga * 2 + gb * 3 - ga * gb;
  EXPECT_TRUE(chain.is_pending());
  EXPECT_EQ(&chain.device(), &gpu);
  const Tensor want = a * 2 + b * 3 - a * b;
  EXPECT_TRUE(tensors_allclose(chain.to_host(), want.to_host(), 1e-6, 1e-6));
  EXPECT_EQ(&chain.eval().device(), &gpu);  // evaluated there, not on the host
  // Non-elementwise operations run at once, on the device.
  const Tensor m = to_device(rng.uniform(-1, 1, {64, 32}).astype(DType::Float32), gpu);
  const Tensor s = sum(exp(m), 1);
  EXPECT_FALSE(s.is_pending());
  EXPECT_EQ(&s.device(), &gpu);
  EXPECT_TRUE(tensors_allclose(s.to_host(), sum(exp(m.to_host()), 1).to_host(), 1e-5, 1e-5));
  const Tensor p = dot(m, m.transpose());
  EXPECT_TRUE(tensors_allclose(p.to_host(), dot(m.to_host(), m.to_host().transpose()).to_host(), 1e-4, 1e-4));
  EXPECT_TRUE(tensors_equal(argmax(m, 1).to_host(), argmax(m.to_host(), 1).to_host()));
  EXPECT_TRUE(tensors_equal(index(m, {3, slice(2, 9)}).to_host(), index(m.to_host(), {3, slice(2, 9)}).to_host()));
}

TEST(CudaEager, WritesGoIntoTheTensorsMemory) {
  TGC_REQUIRE_CUDA();
  // assign() on the device: a dense row, a strided column, a lazy result keeping old values.
  Tensor a = nd::arange(0, 12, 1, DType::Float32, gpu_device()).reshape({3, 4}).eval();
  const Tensor doubled = a * 2.0f;
  assign(a, {1}, 5.0);
  assign(a, {Slice{}, 3}, Tensor::from_vector<float>({-1, -2, -3}));
  EXPECT_EQ(a.to_host().contiguous().to_vector<float>(),
            (std::vector<float>{0, 1, 2, -1, 5, 5, 5, -2, 8, 9, 10, -3}));
  EXPECT_EQ(doubled.to_host().to_vector<float>()[5], 10.0f) << "computed before the write";
}

TEST(CudaEager, CreationFillsOnTheDevice) {
  TGC_REQUIRE_CUDA();
  const Tensor z = nd::zeros({3, 4}, DType::Float32, gpu_device());
  EXPECT_EQ(&z.device(), &gpu_device());
  EXPECT_EQ(z.to_host().to_vector<float>(), std::vector<float>(12, 0));
  EXPECT_EQ(nd::full({5}, 2.5, DType::Float64, gpu_device()).to_host().to_vector<double>(), std::vector<double>(5, 2.5));
  EXPECT_EQ(nd::arange(0, 5, 1, DType::Int64, gpu_device()).to_host().to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(&device("cuda:0"), &gpu_device());
}

TEST(CudaEager, RandomValuesAreTheHostsNumbers) {
  TGC_REQUIRE_CUDA();
  nd::seed(11);
  const Tensor gpu = nd::normal({4096}, 0, 1, DType::Float32, gpu_device());
  const Tensor host = nd::normal({4096}, 0, 1, DType::Float32);
  EXPECT_EQ(&gpu.device(), &gpu_device());
  // Box-Muller in double rounded once: the same bits on both (docs/random.md).
  EXPECT_TRUE(tensors_equal(gpu.to_host(), host));
}

TEST(CudaEager, DeviceTensorsAreArgumentsOfCompiledFunctions) {
  TGC_REQUIRE_CUDA();
  const Var x = vector("x");
  Function f = function({x}, {x * 10}, {}, FunctionOptions{.config = {{"device", "cuda"}}, .device_result = true});
  const Tensor gx = to_device(host_vec({1, 2}), gpu_device()) + 1;  // pending, on the device
  const Tensor r = f(gx).at(0);
  EXPECT_EQ(&r.device(), &gpu_device());
  EXPECT_EQ(r.to_host().to_vector<float>(), (std::vector<float>{20, 30}));
  // ...and a function's device result is an operand of eager operations.
  EXPECT_EQ((r - 20).to_host().to_vector<float>(), (std::vector<float>{0, 10}));
}

TEST(CudaEager, ASharedVariableKeepsADeviceValue) {
  TGC_REQUIRE_CUDA();
  const Tensor v = to_device(host_vec({1, 2}), gpu_device()) * 3;  // pending, on the device
  Shared s = shared(v, "s", /*borrow=*/true);
  EXPECT_EQ(&s.get_value(/*borrow=*/true).device(), &gpu_device());  // kept there, computed
  Function f = function({}, {s + 1}, {}, FunctionOptions{.config = {{"device", "cuda"}}});
  EXPECT_EQ(f().at(0).to_vector<float>(), (std::vector<float>{4, 7}));
  s.set_value(to_device(host_vec({5}), gpu_device()) * 2, /*borrow=*/true);
  EXPECT_EQ(f().at(0).to_vector<float>(), (std::vector<float>{11}));
}

TEST(CudaEager, MixingDevicesIsAnErrorNamingBoth) {
  TGC_REQUIRE_CUDA();
  const Tensor g = to_device(host_vec({1}), gpu_device());
  auto e = test::catch_error<ValueError>([&] { (void)(g + host_vec({1})); });
  const std::string what = e.what();
  EXPECT_NE(what.find("cuda:0"), std::string::npos) << what;
  EXPECT_NE(what.find("cpu"), std::string::npos) << what;
}

}  // namespace
}  // namespace tgc
