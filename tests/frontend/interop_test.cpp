// <tgc/interop.h>: a Tensor over memory the caller owns is read in place, handed back (release)
// once nothing uses it, never written by an update in place, and refused with a ValueError
// (release called too) where its layout cannot be a tgc tensor.
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Interop, AFunctionReadsAdoptedMemoryInPlaceAndHandsItBack) {
  std::vector<double> owned = {1, 2, 3, 4, 5, 6};
  int released = 0;
  {
    Tensor t = adopt_memory(owned.data(), DType::Float64, {2, 3}, {3, 1}, host_device(), [&] { ++released; });
    EXPECT_EQ(t.raw_data(), owned.data());
    Var x = matrix("x", DType::Float64);
    FunctionOptions options;
    options.borrow_outputs = true;
    Function f = function({x}, {x.T(), sum(x)}, {}, options);
    std::vector<Tensor> r = f({t});
    EXPECT_EQ(r[0].raw_data(), owned.data()) << "x.T is a view of the caller's memory";
    EXPECT_THAT(r[1].to_vector<double>(), ElementsAre(21));
    t = Tensor();
    EXPECT_EQ(released, 0) << "the view still uses the memory";
  }
  EXPECT_EQ(released, 1);
}

TEST(Interop, StridesAreTheCallersOwn) {
  std::vector<float> owned = {1, 2, 3, 4, 5, 6};
  // Every other element of the 6: a strided view, no copy.
  Tensor t = adopt_memory(owned.data(), DType::Float32, {3}, {2}, host_device(), nullptr);
  EXPECT_THAT(t.to_vector<float>(), ElementsAre(1, 3, 5));
}

TEST(Interop, AnUpdateNeverWritesAdoptedMemory) {
  std::vector<double> owned = {1, 2};
  Shared w = shared(adopt_memory(owned.data(), DType::Float64, {2}, {1}, host_device(), nullptr), "w",
                    /*borrow=*/true);
  Function f = function({}, {}, {{w, w * 2}});
  for (int call = 0; call < 3; ++call) f({});
  EXPECT_THAT(owned, ElementsAre(1, 2)) << "the caller's memory was written";
  EXPECT_THAT(w.get_value().to_vector<double>(), ElementsAre(8, 16));
}

TEST(Interop, LayoutsATensorCannotHaveAreRefused) {
  std::vector<double> owned = {1, 2, 3};
  int released = 0;
  try {
    adopt_memory(owned.data() + 2, DType::Float64, {3}, {-1}, host_device(), [&] { ++released; });
    FAIL() << "a negative stride was taken";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("dim 0 has stride -1"));
    EXPECT_THAT(e.what(), HasSubstr("copy the array first"));
  }
  EXPECT_THROW(adopt_memory(reinterpret_cast<char*>(owned.data()) + 1, DType::Float64, {2}, {1}, host_device(),
                            [&] { ++released; }),
               ValueError);
  EXPECT_THROW(adopt_memory(owned.data(), DType::Float64, {3}, {}, host_device(), [&] { ++released; }), ValueError);
  EXPECT_THROW(adopt_memory(owned.data(), DType::Float64, {-1}, {1}, host_device(), [&] { ++released; }), ValueError);
  EXPECT_EQ(released, 4) << "refused memory is handed back too";
}

TEST(Interop, TheHostHasNoNativeStream) { EXPECT_EQ(native_stream(host_device()), 0u); }

}  // namespace
}  // namespace tgc
