// Saved functions (<tgc/save.h>, docs/save.md): a loaded function computes the same bits as
// the one saved, from the saved values, without compiling when its kernels are in the file;
// several functions share their variables; checkpoints; and every refusal names what and why.
#include <tgc/tgc.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/core/apply.h"
#include "runtime/compile_log.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

class SaveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tgc_save_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

Tensor f32(std::vector<float> v, Shape shape) { return Tensor::from_vector(v).reshape(shape); }

// The tutorial's logistic regression on a tiny data set: a step with updates, a prediction.
struct Logreg {
  Shared w = shared(f32({0.1f, -0.2f, 0.3f}, {3}), "w");
  Shared b = shared(Tensor::scalar(0.05f), "b");
  Var x = matrix("x"), y = vector("y");
  Var p = sigmoid(dot(x, w) + b);
  Var cost = mean(-y * log(p) - (1 - y) * log(1 - p));
  std::vector<Var> g = grad(cost, {w, b});
  Function train = function({x, y}, {cost}, {{w, w - 0.5 * g[0]}, {b, b - 0.5 * g[1]}}, {.name = "train"});
  Function predict = function({x}, {p > 0.5}, {}, {.name = "predict"});
};

const Tensor kX = f32({1, 2, 0, -1, 0.5f, 2, 3, -1, 1, 0, 0, 1}, {4, 3});
const Tensor kY = f32({1, 0, 1, 0}, {4});

void expect_same_bits(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  Tensor ca = a.to_host().contiguous(), cb = b.to_host().contiguous();
  EXPECT_EQ(0, std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()));
}

TEST_F(SaveTest, ALoadedTrainingStepGivesTheSavedFunctionsBits) {
  Logreg m;
  save(m.train, path("train.tgf"));
  Function loaded = load_function(path("train.tgf"));
  EXPECT_EQ(loaded.name(), "train");
  for (int step = 0; step < 5; ++step) expect_same_bits(m.train(kX, kY)[0], loaded(kX, kY)[0]);
  // The loaded function trains variables of its own, named as the saved ones.
  std::vector<Shared> vars = loaded.shared_variables();
  ASSERT_EQ(vars.size(), 2u);
  for (const Shared& v : vars) {
    const Shared& mine = v.name() == "w" ? m.w : m.b;
    expect_same_bits(v.get_value(), mine.get_value());
  }
}

TEST_F(SaveTest, KernelsComeFromTheFileNotTheCompiler) {
  Logreg m;
  save(m.train, path("train.tgf"));
  // A cache directory of its own, empty: the file's kernels are all there is.
  Function loaded = load_function(path("train.tgf"), "", {.config = {{"cache_dir", path("cache")}}});
  EXPECT_EQ(loaded.compile_phases().kernels_compiled, 0) << "a kernel was compiled at load";
  EXPECT_GT(loaded.compile_phases().load_s, 0.0);
  expect_same_bits(m.train(kX, kY)[0], loaded(kX, kY)[0]);
}

TEST_F(SaveTest, FunctionsSavedTogetherShareTheirVariables) {
  Logreg m;
  save({&m.train, &m.predict}, path("both.tgf"));
  EXPECT_EQ(saved_function_names(path("both.tgf")), (std::vector<std::string>{"train", "predict"}));
  std::vector<Function> fns = load_functions(path("both.tgf"));
  ASSERT_EQ(fns.size(), 2u);
  for (int step = 0; step < 20; ++step) {
    m.train(kX, kY);
    fns[0](kX, kY);
  }
  expect_same_bits(m.predict(kX)[0], fns[1](kX)[0]);
  // The prediction reads what the loaded training wrote.
  EXPECT_EQ(fns[1].shared_variables()[0].get_value().to_vector<float>(),
            fns[0].shared_variables()[0].get_value().to_vector<float>());
  try {
    load_function(path("both.tgf"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("holds 2 functions (train, predict); say which"));
  }
  EXPECT_THROW(load_function(path("both.tgf"), "fit"), InputError);
}

TEST_F(SaveTest, LoadCanBindTheProcesssOwnVariables) {
  Logreg m;
  save(m.predict, path("predict.tgf"));
  Shared w = shared(f32({5, 5, 5}, {3}), "w");
  Function loaded = load_function(path("predict.tgf"), "", {.shared = {w}});
  m.w.set_value(f32({5, 5, 5}, {3}));
  expect_same_bits(m.predict(kX)[0], loaded(kX)[0]);
  w.set_value(f32({-5, -5, -5}, {3}));  // the loaded function reads this process's w
  m.w.set_value(f32({-5, -5, -5}, {3}));
  expect_same_bits(m.predict(kX)[0], loaded(kX)[0]);
  Shared wrong = shared(Tensor::scalar(1.0), "w");
  EXPECT_THROW(load_function(path("predict.tgf"), "", {.shared = {wrong}}), TypeError);
}

TEST_F(SaveTest, ANewShapeAfterLoadingCompilesForIt) {
  Shared v = shared(f32({1, 2, 3}, {3}), "v");
  Function f = function({}, {sum(v * 2)}, {}, {.name = "twice"});
  save(f, path("f.tgf"));
  Function loaded = load_function(path("f.tgf"));
  EXPECT_EQ(loaded().at(0).to_vector<float>(), std::vector<float>{12});
  loaded.shared_variables()[0].set_value(f32({1, 2, 3, 4}, {4}));
  EXPECT_EQ(loaded().at(0).to_vector<float>(), std::vector<float>{20});
  EXPECT_EQ(loaded.compiled_programs(), 2);
}

TEST_F(SaveTest, CheckpointsSetValuesByNameAllOrNothing) {
  Logreg m;
  save_shared({m.w, m.b}, path("ckpt.tgc"));
  Shared w = shared(f32({0, 0, 0, 0}, {4}), "w"), b = shared(Tensor::scalar(0.0f), "b");
  load_shared({w, b}, path("ckpt.tgc"));
  expect_same_bits(w.get_value(), m.w.get_value());
  expect_same_bits(b.get_value(), m.b.get_value());

  Shared c = shared(Tensor::scalar(0.0f), "c");
  try {
    load_shared({w, c}, path("ckpt.tgc"));
    FAIL();
  } catch (const IOError& e) {
    EXPECT_THAT(e.what(), HasSubstr("has no value for shared variable 'c'"));
    EXPECT_THAT(e.hint(), HasSubstr("w, b"));
  }
  Shared w64 = shared(Tensor::from_vector(std::vector<double>{1, 2}), "w"), b2 = shared(Tensor::scalar(7.0f), "b");
  EXPECT_THROW(load_shared({b2, w64}, path("ckpt.tgc")), TypeError);
  EXPECT_EQ(b2.get_value().to_vector<float>(), std::vector<float>{7});  // nothing was set
  Shared unnamed = shared(Tensor::scalar(1.0f));
  EXPECT_THROW(save_shared({unnamed}, path("x.tgc")), InputError);
  // A checkpoint is not a function, nor the other way round.
  try {
    load_function(path("ckpt.tgc"));
    FAIL();
  } catch (const IOError& e) {
    EXPECT_THAT(e.what(), HasSubstr("is not a saved function"));
  }
  save(m.train, path("train.tgf"));
  EXPECT_THROW(load_shared({w}, path("train.tgf")), IOError);
}

TEST_F(SaveTest, WhatAFileCannotHoldIsRefusedByName) {
  Var x = vector("x", DType::Float64);
  Function f = function({x}, {Var(apply1(std::make_shared<testing::AddConst>(1.0), {x.ptr()}))}, {}, {.name = "own"});
  try {
    save(f, path("own.tgf"));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("AddConst"));
    EXPECT_THAT(e.what(), HasSubstr("cannot be saved"));
  }
  EXPECT_FALSE(std::filesystem::exists(path("own.tgf")));
  try {
    load_function(path("missing.tgf"));
    FAIL();
  } catch (const IOError& e) {
    EXPECT_THAT(e.what(), HasSubstr("missing.tgf"));
  }
}

TEST_F(SaveTest, ADamagedFileIsRefusedBeforeAnythingIsMade) {
  Logreg m;
  save(m.train, path("train.tgf"));
  std::string bytes;
  {
    std::ifstream in(path("train.tgf"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (size_t at : {size_t{3}, size_t{20}, bytes.size() / 2, bytes.size() - 5}) {
    std::string damaged = bytes;
    damaged[at] ^= 0x01;
    std::ofstream(path("damaged.tgf"), std::ios::binary) << damaged;
    EXPECT_THROW(load_function(path("damaged.tgf")), IOError) << "byte " << at;
  }
  std::ofstream(path("short.tgf"), std::ios::binary) << bytes.substr(0, bytes.size() - 100);
  EXPECT_THROW(load_function(path("short.tgf")), IOError);
}

}  // namespace
}  // namespace tgc
