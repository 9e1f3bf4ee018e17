// Kernel IR: printing, the structural hash and validate()'s invariants, on kernels built by
// hand and by lowering.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "kernel_test_util.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using Kind = KernelValue::Kind;

KernelValue load(int input, DType dtype = DType::Float32) {
  KernelValue v;
  v.kind = Kind::Load;
  v.input = input;
  v.dtype = dtype;
  return v;
}

KernelValue op(ScalarOpKind kind, DType dtype, std::vector<int> args) {
  KernelValue v;
  v.kind = Kind::Op;
  v.op = kind;
  v.dtype = dtype;
  v.args = std::move(args);
  return v;
}

KernelValue reduce(KernelReduceOp r, DType dtype, int arg) {
  KernelValue v;
  v.kind = Kind::Reduce;
  v.reduce_op = r;
  v.dtype = dtype;
  v.args = {arg};
  return v;
}

KernelValue float_constant(double c, DType dtype = DType::Float32) {
  KernelValue v;
  v.kind = Kind::Constant;
  v.dtype = dtype;
  v.constant = c;
  return v;
}

KernelInput input(DType dtype, std::vector<int64_t> shape, bool output_space = false) {
  return KernelInput{dtype, static_cast<int>(shape.size()), shape, output_space};
}

// out0 = i0 + i1, out1 = i0 - i1 over float32 matrices.
Kernel add_sub() {
  Kernel k;
  k.ndim = 2;
  k.inputs = {input(DType::Float32, {-1, -1}), input(DType::Float32, {-1, -1})};
  k.values = {load(0), load(1), op(ScalarOpKind::Add, DType::Float32, {0, 1}),
              op(ScalarOpKind::Sub, DType::Float32, {0, 1})};
  k.outputs = {{2, DType::Float32}, {3, DType::Float32}};
  return k;
}

// out0 = sum(i0 * i0, axis=1) / 4.0 + i1, i1 read in the output space.
Kernel sum_epilogue() {
  Kernel k;
  k.ndim = 2;
  k.inputs = {input(DType::Float32, {-1, -1}), input(DType::Float32, {-1}, true)};
  k.values = {load(0),
              op(ScalarOpKind::Mul, DType::Float32, {0, 0}),
              reduce(KernelReduceOp::Sum, DType::Float32, 1),
              float_constant(4),
              op(ScalarOpKind::TrueDiv, DType::Float32, {2, 3}),
              load(1),
              op(ScalarOpKind::Add, DType::Float32, {4, 5})};
  k.outputs = {{6, DType::Float32}};
  k.reduce_axes = {1};
  return k;
}

TEST(KernelIr, PrintsAListingAndInlinedExpressions) {
  Kernel k = add_sub();
  k.validate();
  EXPECT_EQ(k.str(),
            "kernel(i0: float32[?,?], i1: float32[?,?]) loop rank 2\n"
            "  v0 = load i0; v1 = load i1; v2 = add(v0, v1); v3 = sub(v0, v1)\n"
            "  out0 = v2; out1 = v3");
  EXPECT_EQ(k.expression_str(), "add(i0,i1), sub(i0,i1)");

  Kernel r = sum_epilogue();
  r.validate();
  EXPECT_EQ(r.str(),
            "kernel(i0: float32[?,?], i1: float32[?] (output space)) loop rank 2, reduce axes [1]\n"
            "  v0 = load i0; v1 = mul(v0, v0); v2 = sum(v1); v3 = float32(4.0); v4 = true_div(v2, v3); "
            "v5 = load i1; v6 = add(v4, v5)\n"
            "  out0 = v6");
  EXPECT_EQ(r.expression_str(), "add(true_div(sum{axis=[1]}(mul(i0,i0)),4.0),i1)");
  EXPECT_TRUE(r.is_reduction());
  EXPECT_FALSE(k.is_reduction());
  EXPECT_EQ(r.output_ndim(), 1);
  EXPECT_EQ(r.epilogue_mask(), (std::vector<bool>{false, false, true, false, true, true, true}));
  r.keepdims = true;
  EXPECT_EQ(r.output_ndim(), 2);
  EXPECT_THAT(r.expression_str(), HasSubstr("sum{axis=[1],keepdims=True}"));
}

TEST(KernelIr, LoweredExpressionsShowCastsAndConstants) {
  Var i = matrix("i", DType::Int32), f = matrix("f"), x = matrix("x");
  auto expr = [](const std::vector<Var>& in, const std::vector<Var>& out) {
    return lower_group(test::whole_group(in, out).group).kernel.expression_str();
  };
  EXPECT_EQ(expr({i, f}, {i + f}), "add(Cast{float32}(i0),i1)");
  EXPECT_EQ(expr({x}, {x * 2 + 0.5}), "add(mul(i0,2.0),0.5)");
  EXPECT_EQ(expr({i}, {i * 3}), "mul(i0,3)");
  EXPECT_EQ(expr({x}, {sum(sqr(x), 1)}), "sum{axis=[1]}(square(i0))");
  EXPECT_EQ(expr({i}, {sum(i)}), "sum{axis=[0,1]}(Cast{int64}(i0))");
  EXPECT_EQ(expr({x}, {where(x > 0, x, 0)}), "where(gt(i0,0.0),i0,0.0)");
  EXPECT_EQ(expr({x}, {x * (constant(3, DType::Int32) + constant(4, DType::Int32))}), "mul(i0,Cast{float32}(add(3,4)))");
  EXPECT_EQ(expr({i}, {i > 0, neq(i, 0)}), "gt(i0,0), neq(i0,0)");
}

TEST(KernelIr, HashIsStructural) {
  Var x = matrix("x"), y = matrix("y");
  auto kernel_of = [&](const std::vector<Var>& out) { return lower_group(test::whole_group({x, y}, out).group).kernel; };
  const Kernel a = kernel_of({x + y, x - y});
  const Kernel b = kernel_of({x + y, x - y});  // built again, other nodes and variables
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(add_sub().hash(), add_sub().hash());
  std::vector<Kernel> different{kernel_of({x * y, x - y}), kernel_of({x + y}), kernel_of({x + y * 2}),
                                kernel_of({x + y * 3}), kernel_of({sum(x * y, 1)}), kernel_of({sum(x * y, 1, true)}),
                                kernel_of({sum(x * y, 0)})};
  different.push_back(a);
  different.back().inputs[0].static_shape = {3, -1};
  different.push_back(a);
  different.back().values[0].dtype = different.back().inputs[0].dtype = DType::Float64;
  for (size_t m = 0; m < different.size(); ++m) {
    EXPECT_NE(different[m].hash(), a.hash()) << different[m].str();
    for (size_t n = m + 1; n < different.size(); ++n) EXPECT_NE(different[m].hash(), different[n].hash());
  }
}

// Each entry breaks one invariant of a valid kernel; validate() must say which.
struct Broken {
  const char* message;
  std::function<void(Kernel&)> edit;
};

TEST(KernelIr, ValidateRejectsBrokenKernels) {
  const std::vector<Broken> elementwise = {
      {"not an earlier value", [](Kernel& k) { k.values[2].args = {0, 3}; }},
      {"arity", [](Kernel& k) { k.values[2].args = {0}; }},
      {"a Cast value is missing", [](Kernel& k) { k.inputs[1].dtype = k.values[1].dtype = DType::Int32; }},
      {"yields float32, the value says float64", [](Kernel& k) { k.values[2].dtype = DType::Float64; }},
      {"out1 is float64", [](Kernel& k) { k.outputs[1].dtype = DType::Float64; }},
      {"out1 writes v9", [](Kernel& k) { k.outputs[1].value = 9; }},
      {"v3 is never used", [](Kernel& k) { k.outputs.pop_back(); }},
      {"loaded 2 times", [](Kernel& k) { k.values[1].input = 0; }},
      {"loads input 2", [](Kernel& k) { k.values[1].input = 2; }},
      {"loads i1 as float64", [](Kernel& k) { k.values[1].dtype = DType::Float64; }},
      {"2 static dims", [](Kernel& k) { k.inputs[0].ndim = 3; }},
      {"more than its space's rank", [](Kernel& k) { k.ndim = 1; }},
      {"without Reduce values", [](Kernel& k) { k.reduce_axes = {0}; }},
      {"output space of a kernel without reduction", [](Kernel& k) { k.inputs[1].in_output_space = true; }},
      {"sets op", [](Kernel& k) { k.values[0].op = ScalarOpKind::Exp; }},
      {"sets constant", [](Kernel& k) { k.values[0].constant = 1; }},
      {"no outputs", [](Kernel& k) { k.outputs.clear(); }},
      {"cannot hold", [](Kernel& k) { k.values[3] = float_constant(0.1, DType::Float32); }},
  };
  for (const Broken& b : elementwise) {
    Kernel k = add_sub();
    b.edit(k);
    InternalError e = test::catch_error<InternalError>([&] { k.validate(); });
    EXPECT_THAT(e.what(), HasSubstr(b.message)) << b.message;
  }
  const std::vector<Broken> reduction = {
      {"reduce axis 2 outside", [](Kernel& k) { k.reduce_axes = {2}; }},
      {"not sorted and unique", [](Kernel& k) { k.reduce_axes = {1, 1}; }},
      {"accumulates float64 but reads float32", [](Kernel& k) { k.values[2].dtype = DType::Float64; }},
      {"sum cannot yield int32",
       [](Kernel& k) {
         k.inputs[0].dtype = k.values[0].dtype = k.values[1].dtype = k.values[2].dtype = DType::Int32;
         k.values[3] = float_constant(4, DType::Float64);
         k.values[4].dtype = DType::Float64;
       }},
      {"computed before the reduction", [](Kernel& k) { k.outputs[0].value = 1; }},
      {"reads v1, computed before it", [](Kernel& k) { k.values[6].args = {4, 1}; }},
      {"of rank 1, the loop rank is 2", [](Kernel& k) { k.inputs[0] = input(DType::Float32, {-1}); }},
      {"more than its space's rank", [](Kernel& k) { k.inputs[1] = input(DType::Float32, {-1, -1}, true); }},
  };
  for (const Broken& b : reduction) {
    Kernel k = sum_epilogue();
    b.edit(k);
    InternalError e = test::catch_error<InternalError>([&] { k.validate(); });
    EXPECT_THAT(e.what(), HasSubstr(b.message)) << b.message;
  }
}

}  // namespace
}  // namespace tgc
