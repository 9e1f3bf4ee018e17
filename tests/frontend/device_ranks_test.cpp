// What the ranks of a function over several devices share (frontend/api/device_ranks.h): the
// threads run every rank at once and report each one's failure, the commit vote says yes only
// when every rank said yes, the reported failure is the cause rather than its echo, and a rank's
// part of a batch is a view of equal size.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <barrier>
#include <stdexcept>

#include <tgc/tgc.h>

#include "frontend/api/device_ranks.h"

namespace tgc {
namespace {

TEST(RankThreads, RunsEveryRankAtOnceAndReportsEachFailure) {
  RankThreads threads(3);
  for (int round = 0; round < 3; ++round) {
    std::barrier<> all(3);  // passes only when the three ranks run at the same time
    std::vector<int> ran(3, 0);
    const std::vector<std::exception_ptr> failures = threads.run([&](int r) {
      all.arrive_and_wait();
      ran[static_cast<size_t>(r)] = 1;
      if (r == 2 && round == 1) throw std::runtime_error("rank 2 failed");
    });
    EXPECT_EQ(ran, (std::vector<int>{1, 1, 1}));
    ASSERT_EQ(failures.size(), 3u);
    EXPECT_FALSE(failures[0]);
    EXPECT_FALSE(failures[1]);
    EXPECT_EQ(failures[2] != nullptr, round == 1) << "round " << round;
  }
}

TEST(CommitVote, YesOnlyWhenEveryRankSaysYes) {
  RankThreads threads(3);
  CommitVote vote(3);
  for (int failing : {-1, 0, 2}) {
    vote.begin_call();
    std::vector<int> result(3, -1);
    threads.run([&](int r) { result[static_cast<size_t>(r)] = vote.vote(r, r != failing) ? 1 : 0; });
    const int want = failing < 0 ? 1 : 0;
    EXPECT_EQ(result, (std::vector<int>(3, want))) << "failing rank " << failing;
    for (int r = 0; r < 3; ++r) EXPECT_TRUE(vote.voted(r));
  }
}

TEST(FirstRootFailure, PrefersTheCauseToItsEcho) {
  auto fail = [](auto e) {
    try {
      throw e;
    } catch (...) {
      return std::current_exception();
    }
  };
  const std::exception_ptr echo = fail(PeerRankFailed("another rank failed"));
  const std::exception_ptr cause = fail(ShapeError("the cause"));
  EXPECT_EQ(first_root_failure({nullptr, nullptr}), nullptr);
  EXPECT_EQ(first_root_failure({echo, cause}), cause);
  EXPECT_EQ(first_root_failure({echo, nullptr}), echo);
}

TEST(RankPartOf, EqualPartsAreViewsAndUnevenOnesNameTheValue) {
  std::vector<double> v(12);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  const Tensor whole = Tensor::from_vector(v, Shape{6, 2});
  const Tensor part = rank_part_of(whole, 0, 2, 3, "x", "f");
  EXPECT_TRUE(part.shares_buffer(whole));
  EXPECT_EQ(part.shape(), (Shape{2, 2}));
  EXPECT_EQ(part.at({0, 0}), 8.0);
  EXPECT_THAT([&] { rank_part_of(whole, 0, 0, 4, "input 'x'", "f"); },
              ::testing::ThrowsMessage<ShapeError>(::testing::HasSubstr("input 'x' has 6 elements along its split axis 0")));
}

}  // namespace
}  // namespace tgc
