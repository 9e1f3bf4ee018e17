// Updates written into the shared variable's own buffer (compiler/update_in_place.h): the
// address of a variable repeats from call to call for elementwise, BLAS and increment updates;
// what a caller took with get_value() keeps its contents; nothing reads an old value after it
// was overwritten; and a call that fails in the updates leaves every variable as it was.
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor f64(std::vector<double> v) { return Tensor::from_vector(v); }
Tensor i64(std::vector<int64_t> v) { return Tensor::from_vector(v); }

const void* address(const Shared& s) { return s.get_value(/*borrow=*/true).raw_data(); }

TEST(UpdateInPlace, ElementwiseBlasAndIncrementUpdatesKeepTheVariablesBuffer) {
  for (const char* gc : {"true", "false"}) {
    Shared w = shared(f64({1, 2, 3, 4}).reshape({2, 2}), "w");
    Shared b = shared(f64({1, 2}), "b");
    Shared emb = shared(f64({0, 0, 0, 0, 0, 0}).reshape({3, 2}), "emb");
    Var x = matrix("x", DType::Float64), idx = vector("idx", DType::Int64);
    Function f = function({x, idx}, {},
                          {{w, w - 0.5 * dot(x.T(), x)},  // a Gemm into w
                           {b, b * 2 + 1},                // an elementwise kernel into b
                           {emb, inc_subtensor(emb[idx], x)}},
                          {.config = {{"allow_gc", gc}}});
    const void* addresses[] = {address(w), address(b), address(emb)};
    for (int call = 0; call < 3; ++call) f({f64({1, 0, 0, 1}).reshape({2, 2}), i64({2, -1})});
    EXPECT_EQ(address(w), addresses[0]) << "allow_gc=" << gc;
    EXPECT_EQ(address(b), addresses[1]) << "allow_gc=" << gc;
    EXPECT_EQ(address(emb), addresses[2]) << "allow_gc=" << gc;
    EXPECT_THAT(w.get_value().to_vector<double>(), ElementsAre(-0.5, 2, 3, 2.5));
    EXPECT_THAT(b.get_value().to_vector<double>(), ElementsAre(15, 23));
    // Both index entries name row 2: each call adds both rows of x into it.
    EXPECT_THAT(emb.get_value().to_vector<double>(), ElementsAre(0, 0, 0, 0, 3, 3));
  }
}

TEST(UpdateInPlace, WhatACallerTookKeepsItsContents) {
  Shared w = shared(f64({1, 2}), "w");
  Function f = function({}, {}, {{w, w + 1}});
  Tensor copy = w.get_value();  // a copy (the default)
  f();
  EXPECT_THAT(copy.to_vector<double>(), ElementsAre(1, 2));
  // A borrowed value: while the caller holds it, the update goes to a fresh buffer (on the
  // host; a recorded CUDA call writes the variable's buffer, see docs/api.md).
  Tensor borrowed = w.get_value(/*borrow=*/true);
  f();
  EXPECT_THAT(borrowed.to_vector<double>(), ElementsAre(2, 3));
  EXPECT_THAT(w.get_value().to_vector<double>(), ElementsAre(3, 4));
  const void* fresh = address(w);
  borrowed = Tensor();
  f();  // nobody else holds it now: in place again
  EXPECT_EQ(address(w), fresh);
  EXPECT_THAT(w.get_value().to_vector<double>(), ElementsAre(4, 5));
}

TEST(UpdateInPlace, NoNodeReadsAnOldValueAfterItWasOverwritten) {
  Shared a = shared(f64({1, 2}), "a");
  Shared b = shared(f64({10, 20}), "b");
  Shared c = shared(f64({5, 6}), "c");
  // Each update reads the other variable's old value (increments: nodes fusion keeps apart);
  // c's old value is also returned.
  Function f = function({}, {c * 1.0, c},
                        {{a, inc_subtensor(a[{slice(0, 2)}], b)}, {b, inc_subtensor(b[{slice(0, 2)}], a)}, {c, c * 3}});
  std::vector<Tensor> r = f();
  EXPECT_THAT(a.get_value().to_vector<double>(), ElementsAre(11, 22));
  EXPECT_THAT(b.get_value().to_vector<double>(), ElementsAre(11, 22));
  EXPECT_THAT(c.get_value().to_vector<double>(), ElementsAre(15, 18));
  EXPECT_THAT(r[0].to_vector<double>(), ElementsAre(5, 6));
  EXPECT_THAT(r[1].to_vector<double>(), ElementsAre(5, 6));
  // A returned new value is the caller's: the next call does not change it.
  Shared d = shared(f64({1}), "d");
  Var next = d + 1;
  Function g = function({}, {next}, {{d, next}});
  Tensor first = g()[0];
  g();
  EXPECT_THAT(first.to_vector<double>(), ElementsAre(2));
  EXPECT_THAT(d.get_value().to_vector<double>(), ElementsAre(3));
}

TEST(UpdateInPlace, AnArgumentSharingTheVariablesBufferIsNeverOverwritten) {
  Shared w = shared(f64({1, 2, 3, 4}), "w");
  Var v = vector("v", DType::Float64), idx = vector("idx", DType::Int64);
  Function f = function({v, idx}, {}, {{w, inc_subtensor(w[idx], v)}});
  Tensor same = w.get_value(/*borrow=*/true);
  f({same, i64({1, 0, 3, 2})});  // w[idx] += w, reading w as it was
  EXPECT_THAT(w.get_value().to_vector<double>(), ElementsAre(3, 3, 7, 7));
  EXPECT_THAT(same.to_vector<double>(), ElementsAre(1, 2, 3, 4));
}

TEST(UpdateInPlace, AFailureInTheUpdatesLeavesEveryVariableAsItWas) {
  // The updates run last, in the order given: without the check of all of them before the
  // first one writes, w (then emb) would already be changed when the later update raises.
  Shared w = shared(f64({1, 2}), "w");
  Shared emb = shared(f64({0, 0, 0}), "emb");
  Shared b = shared(f64({7, 8}), "b");
  Var idx = vector("idx", DType::Int64), y = vector("y", DType::Float64);
  Function f = function({idx, y}, {}, {{w, w * 2}, {emb, inc_subtensor(emb[idx], 1.0)}, {b, b + y}});
  const void* addresses[] = {address(w), address(emb), address(b)};
  auto unchanged = [&] {
    EXPECT_THAT(w.get_value().to_vector<double>(), ElementsAre(1, 2));
    EXPECT_THAT(emb.get_value().to_vector<double>(), ElementsAre(0, 0, 0));
    EXPECT_THAT(b.get_value().to_vector<double>(), ElementsAre(7, 8));
  };
  try {
    f({i64({0, 3}), f64({1, 1})});  // index 3 of 3 rows
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("index 3 is out of bounds"));
  }
  unchanged();
  EXPECT_THROW(f({i64({0, -3}), f64({1, 1, 1})}), ShapeError);  // b + y: lengths 2 and 3
  unchanged();
  f({i64({0, -3}), f64({1, 1})});  // and then a call that works, all in place
  EXPECT_THAT(w.get_value().to_vector<double>(), ElementsAre(2, 4));
  EXPECT_THAT(emb.get_value().to_vector<double>(), ElementsAre(2, 0, 0));
  EXPECT_THAT(b.get_value().to_vector<double>(), ElementsAre(8, 9));
  EXPECT_EQ(address(w), addresses[0]);
  EXPECT_EQ(address(emb), addresses[1]);
  EXPECT_EQ(address(b), addresses[2]);
}

}  // namespace
}  // namespace tgc
