// The device-op rule table without a device: find_rule's order and reasons, the shared
// families, and GpuBackend's answers (runs_on_device, self_contained, host_reason) read from
// the rules it was given, over a device that only names itself.
#include "backends/gpu/device_op_rules.h"

#include <gtest/gtest.h>

#include "backends/gpu/blas_thunk.h"
#include "backends/gpu/core_rules.h"
#include "backends/gpu/fallback_kernel_rules.h"
#include "backends/gpu/gpu_backend.h"
#include "ops/blas/dot.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/transfer/transfer.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using gpu::DeviceOpRule;
using gpu::find_rule;
using testing::AddConst;

using testing::add_const;

bool is_add_const(const Node& n) { return dynamic_cast<const AddConst*>(&n.op()) != nullptr; }
bool never(const Node&) { return false; }
std::string negative_constants(const Node& n) {
  return static_cast<const AddConst&>(n.op()).value() < 0 ? "negative constants stay on the host" : "";
}
std::string always(const Node&) { return "the first rule declines"; }

TEST(DeviceOpRules, FirstCoveringRuleThatDoesNotDeclineWins) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  const VarPtr p = add_const(x, 1), m = add_const(x, -1);  // a node lives while its outputs do
  const Node& pos = *p->owner();
  const Node& neg = *m->owner();
  const DeviceOpRule rules[] = {
      {"unrelated", never, nullptr, nullptr, true},
      {"add_const", is_add_const, negative_constants, nullptr, true},
  };
  std::string why = "unchanged";
  EXPECT_EQ(find_rule(rules, pos, &why), &rules[1]);
  EXPECT_EQ(why, "unchanged") << "a match leaves the reason alone";
  EXPECT_EQ(find_rule(rules, neg, &why), nullptr);
  EXPECT_EQ(why, "negative constants stay on the host");
  EXPECT_EQ(find_rule(rules, neg, nullptr), nullptr);

  // A later rule may run what an earlier one declines; the reason is the first one's.
  const DeviceOpRule fallback[] = {
      {"picky", is_add_const, always, nullptr, true},
      {"any add_const", is_add_const, nullptr, nullptr, false},
  };
  EXPECT_EQ(find_rule(fallback, neg, &why), &fallback[1]);
  EXPECT_EQ(find_rule(std::span<const DeviceOpRule>(fallback, 1), neg, &why), nullptr);
  EXPECT_EQ(why, "the first rule declines");
  EXPECT_EQ(find_rule({}, neg, &why), nullptr);
  EXPECT_EQ(why, "no device implementation of AddConst");
}

TEST(DeviceOpRules, HalfTensorsRunOnlyWhereTheRuleTakesThem) {
  auto x = Variable::input(Type::unknown(DType::BFloat16, 1), "x");
  const VarPtr p = apply1(std::make_shared<Elemwise>(ScalarOpKind::Exp), {x});
  const Node& node = *p->owner();
  auto is_elemwise = [](const Node& n) { return dynamic_cast<const Elemwise*>(&n.op()) != nullptr; };
  const DeviceOpRule plain[] = {{"elemwise", is_elemwise, nullptr, nullptr, true}};
  std::string why;
  EXPECT_EQ(find_rule(plain, node, &why), nullptr);
  EXPECT_EQ(why, "elemwise on the device takes no bfloat16 tensors yet");
  const DeviceOpRule takes_halves[] = {{"elemwise", is_elemwise, nullptr, nullptr, true, 0, true}};
  EXPECT_EQ(find_rule(takes_halves, node, &why), &takes_halves[0]);
}

TEST(DeviceOpRules, SharedTableHoldsEachFamilyInOrderAndCoversTransfers) {
  const std::span<const DeviceOpRule> shared = gpu::shared_device_op_rules();
  const std::span<const DeviceOpRule> core = gpu::core_device_op_rules();
  ASSERT_GE(shared.size(), core.size());
  for (size_t i = 0; i < core.size(); ++i) EXPECT_EQ(shared[i].name, core[i].name) << "core rules come first";
  for (const DeviceOpRule& r : shared) {
    EXPECT_NE(r.covers, nullptr) << r.name;
    EXPECT_NE(r.make, nullptr) << r.name;
  }
  auto x = Variable::input(Type::unknown(DType::Float32, 2), "x");
  const VarPtr moved = apply1(std::make_shared<HostToDevice>(), {x});
  const DeviceOpRule* rule = find_rule(shared, *moved->owner(), nullptr);
  ASSERT_NE(rule, nullptr);
  EXPECT_EQ(rule->name, "HostToDevice");
  EXPECT_TRUE(rule->self_contained);
  std::string why;
  const VarPtr y = add_const(Variable::input(Type::unknown(DType::Float64, 1), "y"), 1);
  EXPECT_EQ(find_rule(shared, *y->owner(), &why), nullptr);
  EXPECT_EQ(why, "no device implementation of AddConst");
}

// A GpuDevice that does nothing: GpuBackend's decisions never touch the device.
class NamedDevice final : public gpu::GpuDevice {
 public:
  DeviceKind kind() const override { return DeviceKind::OpenCL; }
  std::string name() const override { return "test:0"; }
  void* allocate(size_t, Stream&) override { return nullptr; }
  void deallocate(void*, size_t, Stream&) override {}
  void copy_to_host(void*, const void*, size_t, Stream&) override {}
  void copy_from_host(void*, const void*, size_t, Stream&) override {}
  void copy_on_device(void*, const void*, size_t, Stream&) override {}
  Stream& default_stream() override { return host_device().default_stream(); }
  cfam::Dialect dialect() const override { return cfam::Dialect::OpenCL; }
  cfam::DeviceLimits limits() const override { return {}; }
  std::unique_ptr<gpu::GpuModule> load_module(gpu::ModuleSource) override { return nullptr; }
  void fill_zero(void*, size_t) override {}
  int read_int(const void*) override { return 0; }
};

TEST(GpuBackend, AnswersFromItsRules) {
  NamedDevice device;
  const DeviceOpRule blas[] = {{"blas", gpu::blas_covers, gpu::blas_declines, nullptr, false}};
  gpu::GpuBackend backend("test", device, Config{}, gpu::device_op_rules_with(blas));
  EXPECT_EQ(backend.name(), "test");
  EXPECT_EQ(backend.device(), &device);
  EXPECT_EQ(backend.device_kind(), DeviceKind::OpenCL);
  // The shared rules, the library's, then tgc's own kernels for what a library may run.
  EXPECT_EQ(backend.rules().size(), gpu::shared_device_op_rules().size() + 1 + gpu::fallback_kernel_rules().size());
  EXPECT_EQ(backend.rules()[gpu::shared_device_op_rules().size()].name, "blas");

  auto x = Variable::input(Type::unknown(DType::Float32, 1), "x");
  const VarPtr moved = apply1(std::make_shared<HostToDevice>(), {x});
  const Node& up = *moved->owner();
  EXPECT_TRUE(backend.runs_on_device(up));
  EXPECT_TRUE(backend.self_contained(up));
  EXPECT_EQ(backend.host_reason(up), "");

  auto f = Variable::input(Type::unknown(DType::Float64, 1), "f");
  const VarPtr g = add_const(f, 1);
  const Node& host = *g->owner();
  EXPECT_FALSE(backend.runs_on_device(host));
  EXPECT_FALSE(backend.self_contained(host));
  EXPECT_EQ(backend.host_reason(host), "no device implementation of AddConst");
  EXPECT_THROW(backend.make_thunk(host), InternalError);

  // A library rule: float dots run (not self-contained), integer ones say why not.
  const VarPtr fd = apply1(std::make_shared<Dot>(), {x, x});
  const Node& fdot = *fd->owner();
  EXPECT_TRUE(backend.runs_on_device(fdot));
  EXPECT_FALSE(backend.self_contained(fdot));
  auto i = Variable::input(Type::unknown(DType::Int32, 1), "i");
  const VarPtr id = apply1(std::make_shared<Dot>(), {i, i});
  const Node& idot = *id->owner();
  EXPECT_FALSE(backend.runs_on_device(idot));
  EXPECT_EQ(backend.host_reason(idot), "BLAS on the device takes float operands, not int32");
}

}  // namespace
}  // namespace tgc
