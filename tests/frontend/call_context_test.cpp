// CallContextPool: a call alone always gets the same context (its kept buffers stay warm),
// overlapping calls get distinct ones, and every context starts with the constants filled.
#include "frontend/api/call_context.h"

#include <gtest/gtest.h>

#include <optional>

namespace tgc {
namespace {

Program program_with_a_constant() {
  Program p;
  p.num_slots = 3;
  p.constants.push_back({1, Tensor::scalar<double>(7)});
  return p;
}

TEST(CallContextPool, ACallAloneAlwaysGetsTheSameContext) {
  const Program p = program_with_a_constant();
  CallContextPool pool(p);
  CallContext* first = nullptr;
  for (int i = 0; i < 3; ++i) {
    CallContextPool::Lease lease(pool);
    if (!first) first = &*lease;
    EXPECT_EQ(&*lease, first);
  }
}

TEST(CallContextPool, OverlappingCallsGetDistinctContextsWithTheConstants) {
  const Program p = program_with_a_constant();
  CallContextPool pool(p);
  std::optional<CallContextPool::Lease> a(std::in_place, pool), b(std::in_place, pool), c(std::in_place, pool);
  EXPECT_NE(&**a, &**b);
  EXPECT_NE(&**b, &**c);
  EXPECT_NE(&**a, &**c);
  for (CallContext* ctx : {&**a, &**b, &**c}) {
    ASSERT_EQ(ctx->slots.size(), 3u);
    EXPECT_EQ(ctx->slots[1].item<double>(), 7.0);
    EXPECT_FALSE(ctx->slots[0].defined());
  }
  // Given back and taken again: the pool reuses them instead of making more.
  CallContext* second = &**b;
  b.reset();
  b.emplace(pool);
  EXPECT_EQ(&**b, second);
}

}  // namespace
}  // namespace tgc
