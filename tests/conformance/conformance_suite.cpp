// The one conformance suite, instantiated once per built backend (the cases and the harness
// live in the conformance_cases object library, shared with tests/backends/cuda).
#include "conformance/conformance.h"

namespace tgc::conformance {
// AllBackends/Conformance.<Test>/<backend>.
INSTANTIATE_TEST_SUITE_P(AllBackends, Conformance, ::testing::ValuesIn(suite_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
}  // namespace tgc::conformance
