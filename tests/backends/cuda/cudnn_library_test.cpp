// cuDNN without a GPU (no `gpu` label: these run in CI): where the library is looked for, what
// the status and the `tgc devices` line say, and the rules' answers for the conv and pool ops
// (covered; declined with "cuDNN not found: ..." when it is not loaded; the average whose
// divisor cuDNN cannot give declined with its reason).
#include "backends/cuda/cudnn_library.h"

#include <gtest/gtest.h>

#include <tgc/devices.h>

#include "backends/cuda/cudnn_rules.h"
#include "ops/conv/conv2d.h"
#include "ops/conv/fused_conv2d.h"
#include "ops/core/apply.h"
#include "ops/pool/pool2d.h"
#include "runtime/config.h"
#include "support/scoped_env.h"

namespace tgc {
namespace {

using testing::ScopedEnv;

TEST(CudnnLibrary, VersionStrings) {
  EXPECT_EQ(cuda::cudnn_version_str(91900), "9.19.0");
  EXPECT_EQ(cuda::cudnn_version_str(90100), "9.1.0");
}

TEST(CudnnLibrary, TheOverrideIsTheOnlyCandidate) {
  ScopedEnv env("TGC_CUDNN_LIBRARY", "/opt/nowhere/libcudnn.so.9");
  EXPECT_EQ(cuda::cudnn_library_candidates(), std::vector<std::string>{"/opt/nowhere/libcudnn.so.9"});
}

TEST(CudnnLibrary, TheSearchPathComesFirstThenWheels) {
  ScopedEnv env("TGC_CUDNN_LIBRARY", nullptr);
  const std::vector<std::string> c = cuda::cudnn_library_candidates();
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c[0], "libcudnn.so.9");
  for (size_t i = 1; i < c.size(); ++i) {
    EXPECT_NE(c[i].find("nvidia/cudnn/lib/libcudnn.so.9"), std::string::npos) << c[i];
    for (size_t j = 0; j < i; ++j) EXPECT_NE(c[i], c[j]) << "tried twice";
  }
}

TEST(CudnnLibrary, StatusSaysWhereFromOrWhyNotAndTgcDevicesShowsIt) {
  const cuda::CudnnStatus& st = cuda::cudnn_status();
  const std::string line = cuda::cudnn_description();
  if (st.available) {
    EXPECT_GE(st.version, 90000u);
    EXPECT_EQ(line.rfind("cudnn    available  (cuDNN " + cuda::cudnn_version_str(st.version) + ", " + st.path, 0), 0u)
        << line;
  } else {
    EXPECT_FALSE(st.reason.empty());
    EXPECT_EQ(line, "cudnn    unavailable  (" + st.reason + ")");
  }
  const std::vector<std::string> lines = devices(Config{});
  EXPECT_NE(std::find(lines.begin(), lines.end(), line), lines.end()) << "tgc devices lacks the cudnn line";
}

// The rule that covers `v`'s node, and in `why` its reason when it declines.
const gpu::DeviceOpRule* rule_for(const VarPtr& v, std::string* why) {
  return gpu::find_rule(cuda::cudnn_op_rules(), *v->owner(), why);
}

TEST(CudnnRules, CoverEveryConvAndPoolOpAndSayWhyWhenCudnnIsMissing) {
  auto in4 = [](const char* name) { return Variable::input(Type::unknown(DType::Float32, 4), name); };
  auto x = in4("x"), w = in4("w"), dy = in4("dy");
  auto b = Variable::input(Type::unknown(DType::Float32, 1), "b");
  const Conv2dParams cp;
  const Pool2dParams pp;
  const std::vector<VarPtr> nodes = {
      apply1(std::make_shared<Conv2d>(cp), {x, w}),
      apply1(std::make_shared<Conv2dGradInput>(cp, false), {dy, w, x}),
      apply1(std::make_shared<Conv2dGradInput>(cp, true), {x, w}),  // conv_transpose2d
      apply1(std::make_shared<Conv2dGradWeights>(cp), {x, dy, w}),
      apply1(std::make_shared<FusedConv2d>(cp, true), {x, w, b}),
      apply1(std::make_shared<Pool2d>(pp), {x}),
      apply1(std::make_shared<Pool2dGrad>(pp), {x, dy}),
  };
  const cuda::CudnnStatus& st = cuda::cudnn_status();
  for (const VarPtr& v : nodes) {
    SCOPED_TRACE(v->owner()->op().name());
    std::string why;
    const gpu::DeviceOpRule* rule = rule_for(v, &why);
    if (st.available) {
      ASSERT_NE(rule, nullptr) << why;
      EXPECT_FALSE(rule->self_contained) << "the calls share the device's handle";
      EXPECT_EQ(rule->serial_domain, cuda::kCudnnDomain);
    } else {
      EXPECT_EQ(rule, nullptr);
      EXPECT_EQ(why, "cuDNN not found: " + st.reason);
    }
  }
}

TEST(CudnnRules, AnAverageCountingPaddingPastItInCeilModeIsDeclined) {
  if (!cuda::cudnn_status().available) GTEST_SKIP() << "needs cuDNN loaded: " << cuda::cudnn_status().reason;
  Pool2dParams p;
  p.mode = PoolMode::Avg;
  p.kernel = {3, 3};
  p.stride = {2, 2};
  p.pad = {1, 1};
  p.ceil_mode = true;
  auto known = Variable::input(Type(DType::Float32, {2, 3, 5, 6}), "x");     // width 6: a window past the padding
  auto fits = Variable::input(Type(DType::Float32, {2, 3, 5, 5}), "x");      // every window inside it
  auto unknown = Variable::input(Type::unknown(DType::Float32, 4), "x");     // cannot tell when compiled
  std::string why;
  EXPECT_EQ(rule_for(apply1(std::make_shared<Pool2d>(p), {known}), &why), nullptr);
  EXPECT_NE(why.find("cuDNN divides by the whole window"), std::string::npos) << why;
  EXPECT_NE(rule_for(apply1(std::make_shared<Pool2d>(p), {fits}), &why), nullptr) << why;
  EXPECT_EQ(rule_for(apply1(std::make_shared<Pool2d>(p), {unknown}), &why), nullptr);
  p.count_include_pad = false;  // cuDNN's divisor is PyTorch's then
  EXPECT_NE(rule_for(apply1(std::make_shared<Pool2d>(p), {known}), &why), nullptr) << why;
}

}  // namespace
}  // namespace tgc
