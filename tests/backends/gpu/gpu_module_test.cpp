// GpuDevice and GpuModule on each GPU API: a small unit of C-family source loaded and
// launched through LaunchArgs (operands at element offsets, a whole buffer, values), the
// state helpers fill_zero and read_int, and when each API renders and builds its entries.
#include "backends/gpu/gpu_device.h"

#include <gtest/gtest.h>

#include <fmt/format.h>


#include "backends/c_family/dialect.h"
#include "gpu_test_device.h"

namespace tgc {
namespace {

// y[i] = a * x[i] for i < n; state[0] = n. Entry 1 only writes the state. Operands follow
// the C-family ABI (OpenCL: element offsets after every other argument).
std::string render_unit(cfam::Dialect dialect, int only_entry) {
  const cfam::DialectHooks d(dialect);
  const std::string offsets = d.cuda() ? "" : fmt::format(", {0} x_off, {0} y_off", d.u64());
  const std::string moved = d.cuda() ? "" : "  x += x_off;\n  y += y_off;\n";
  std::string s = d.prelude();
  if (only_entry < 0 || only_entry == 0)
    s += fmt::format("{} tgc_test_scale({}, {}, {}, {} n, float a{}) {{\n{}", d.entry_qualifier(),
                     d.global_param("float", true, "x"), d.global_param("float", false, "y"),
                     d.global_param("int", false, "state"), d.i64(), offsets, moved) +
         fmt::format("  const {} i = ({}){} * {} + {};\n", d.i64(), d.i64(), d.block_index(), d.block_size(),
                     d.thread_index()) +
         "  if (i < n) y[i] = a * x[i];\n  if (i == 0) state[0] = (int)n;\n}\n";
  if (only_entry < 0 || only_entry == 1)
    s += fmt::format("{} tgc_test_mark({}) {{ state[0] = 7; }}\n", d.entry_qualifier(),
                     d.global_param("int", false, "state"));
  return s;
}

TEST(GpuModule, LaunchArgsFollowTheABIAndEachAPIBuildsWhatItNeeds) {
  TGC_REQUIRE_GPU();
  gpu::GpuDevice& dev = gpu_test::device();
  auto rendered = std::make_shared<std::vector<int>>();
  gpu::ModuleSource source;
  source.label = "test unit";
  source.entries = {"tgc_test_scale", "tgc_test_mark"};
  source.render = [dialect = dev.dialect(), rendered](int only_entry) {
    rendered->push_back(only_entry);
    return render_unit(dialect, only_entry);
  };
  std::unique_ptr<gpu::GpuModule> module = dev.load_module(std::move(source));

  const int64_t n = 1000;
  const Tensor x = Tensor::from_vector(std::vector<float>(n + 5, 1.5f)).to(dev);
  Tensor y = Tensor::zeros(DType::Float32, {n + 5}).to(dev);
  void* state = dev.allocate(sizeof(int), dev.default_stream());
  dev.fill_zero(state, sizeof(int));
  EXPECT_EQ(dev.read_int(state), 0);
  // x and y from their 5th and 2nd elements: operands inside their buffers.
  const void* xp = static_cast<const float*>(x.raw_data()) + 5;
  void* yp = static_cast<float*>(y.raw_data()) + 2;
  const float a = 2;
  const gpu::LaunchArg args[] = {gpu::LaunchArg::operand(xp, sizeof(float)), gpu::LaunchArg::operand(yp, sizeof(float)),
                                 gpu::LaunchArg::buffer(state), gpu::LaunchArg::value(&n, sizeof n),
                                 gpu::LaunchArg::value(&a, sizeof a)};
  module->launch(0, (n + 127) / 128, 128, 0, args);
  EXPECT_EQ(dev.read_int(state), n);
  const Tensor got = y.to(host_device());
  for (int64_t i = 0; i < n + 5; ++i)
    ASSERT_EQ(got.data<float>()[i], i >= 2 && i < n + 2 ? 3.0f : 0.0f) << "element " << i;

  // CUDA compiles the whole unit once; OpenCL renders and builds an entry on its first launch.
  const bool cuda = dev.dialect() == cfam::Dialect::Cuda;
  EXPECT_EQ(*rendered, cuda ? std::vector<int>{-1} : std::vector<int>{0});
  const gpu::LaunchArg mark[] = {gpu::LaunchArg::buffer(state)};
  module->launch(1, 1, 1, 0, mark);
  module->launch(1, 1, 1, 0, mark);
  EXPECT_EQ(dev.read_int(state), 7);
  EXPECT_EQ(*rendered, (cuda ? std::vector<int>{-1} : std::vector<int>{0, 1})) << "each entry built once";
  dev.fill_zero(state, sizeof(int));
  EXPECT_EQ(dev.read_int(state), 0);
  dev.deallocate(state, sizeof(int), dev.default_stream());
}

}  // namespace
}  // namespace tgc
