// Links into ops_blas_dnnl_tests: the blas family's tests run with every float32 matrix
// product sent to oneDNN (ForcedProductLibraryForTests), so each of them checks that path too.
#include <gtest/gtest.h>

#include <memory>

#include "ops/blas/dnnl_gemm.h"
#include "ops/blas/product_library.h"

namespace tgc {
namespace {

class ForceOneDnn : public ::testing::Environment {
 public:
  void SetUp() override { force_ = std::make_unique<ForcedProductLibraryForTests>(ProductLibrary::OneDnn); }
  void TearDown() override { force_.reset(); }

 private:
  std::unique_ptr<ForcedProductLibraryForTests> force_;
};

const auto* const registered = ::testing::AddGlobalTestEnvironment(new ForceOneDnn);

}  // namespace
}  // namespace tgc
