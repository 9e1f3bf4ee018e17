// The codec of the custom family: a CudaSourceOp is never saved (its type, shape and launch
// rules are C++ functions), and saving says so with the kernel's name instead of "no codec";
// a file naming one is an IOError.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ops/core/op_codec.h"
#include "ops/custom/cuda_source_op.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using testing::MemoryOpContext;

CudaSourceOp copy_op() {
  CudaKernelSpec spec;
  spec.name = "MyCopy";
  spec.source = R"(extern "C" __global__ void my_copy(const float* x, float* z) { z[0] = x[0]; })";
  spec.entry = "my_copy";
  spec.output_types = [](const std::vector<Type>& in) { return std::vector<Type>{in.at(0)}; };
  spec.output_shapes = [](const std::vector<Shape>& in) { return std::vector<Shape>{in.at(0)}; };
  spec.launch = [](const std::vector<Tensor>&, const std::vector<Tensor>&) { return CudaLaunchConfig{}; };
  return CudaSourceOp(std::make_shared<const CudaKernelSpec>(std::move(spec)));
}

TEST(CustomCodec, SavingACudaSourceOpNamesTheKernelAndWhy) {
  const CudaSourceOp op = copy_op();
  EXPECT_TRUE(has_op_codec(op));
  MemoryOpContext ctx;
  try {
    write_op(op, ctx);
    FAIL() << "a CudaSourceOp was written";
  } catch (const ValueError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("MyCopy"), std::string::npos) << what;
    EXPECT_NE(what.find("cannot be saved"), std::string::npos) << what;
    EXPECT_EQ(what.find("no codec"), std::string::npos) << what;
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(CustomCodec, AFileNamingACudaSourceOpIsAnIOError) {
  MemoryOpContext ctx;
  EXPECT_THROW(read_op(Json{{"op", "CudaSourceOp"}, {"fields", Json::object()}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "CudaSourceOp"}, {"fields", {{"name", "MyCopy"}, {"source", "x"}}}}, ctx),
               IOError);
}

}  // namespace
}  // namespace tgc
