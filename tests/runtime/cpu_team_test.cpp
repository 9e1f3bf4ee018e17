// The team governor: teams on a quiet machine, one thread for a period after a team that lost
// (its speed-up over one thread below kMinTeamSpeedup), periods that double while teams keep
// losing, and a winning team that ends them. Periods are checked against the clock from
// before the report, so a test thread that the machine's load delays cannot fail them.
#include "runtime/cpu_team.h"

#include <gtest/gtest.h>

namespace tgc {
namespace {

// Reports a losing team of two and returns how long (ns, from just before the report) the
// governor then kept answering 1.
int64_t solo_period_after_a_loss() {
  const int64_t before = team_clock_ns();
  for (int i = 0; i < kLossesForAPeriod; ++i)
    report_team(2, 1'000'000, 1'100'000);  // busy 1.1x the wall time: no speed-up to speak of
  while (team_threads(2) == 1) {
  }
  return team_clock_ns() - before;
}

TEST(CpuTeam, OneLossAloneStartsNoPeriod) {
  reset_team_governor();
  report_team(2, 1'000'000, 1'000'000);  // a team that woke sleeping workers, say
  EXPECT_EQ(team_threads(2), 2);
  report_team(2, 1'000'000, 1'900'000);  // the next one won: the count starts again
  report_team(2, 1'000'000, 1'000'000);
  EXPECT_EQ(team_threads(2), 2);
  report_team(2, 1'000'000, 1'000'000);  // the second in a row
  EXPECT_EQ(team_threads(2), 1);
  reset_team_governor();
}

TEST(CpuTeam, QuietMachineKeepsTheTeam) {
  reset_team_governor();
  EXPECT_EQ(team_threads(4), 4);
  EXPECT_EQ(team_threads(1), 1);
  report_team(2, 1'000'000, 1'900'000);  // 1.9x: a team that paid off
  EXPECT_EQ(team_threads(2), 2);
}

TEST(CpuTeam, ALossMeansOneThreadForAPeriodThatDoublesWhileTeamsLose) {
  reset_team_governor();
  const int64_t first = solo_period_after_a_loss();
  EXPECT_GE(first, kFirstSoloNs);
  const int64_t second = solo_period_after_a_loss();
  EXPECT_GE(second, 2 * kFirstSoloNs);
  EXPECT_EQ(team_threads(8), 8);  // the period is over: the next region tries a team again
  reset_team_governor();
}

TEST(CpuTeam, AWinEndsThePeriodAndItsDoubling) {
  reset_team_governor();
  for (int i = 0; i < 20; ++i) report_team(2, 1'000'000, 1'000'000);  // the next period: the longest
  EXPECT_EQ(team_threads(2), 1);
  report_team(3, 1'000'000, 2'900'000);  // a team (of another host thread, say) that won
  EXPECT_EQ(team_threads(2), 2);
  EXPECT_LT(solo_period_after_a_loss(), kMaxSoloNs / 2) << "after a win a loss starts again from the first period";
  reset_team_governor();
}

TEST(CpuTeam, PeriodsStopDoublingAtTheLongest) {
  reset_team_governor();
  // Losses reported back to back double the next period each time: 2 ms * 2^40 uncapped.
  for (int i = 0; i < 40; ++i) report_team(2, 1'000'000, 1'000'000);
  const int64_t before = team_clock_ns();
  while (team_threads(2) == 1 && team_clock_ns() - before < kMaxSoloNs + 2'000'000'000) {
  }
  EXPECT_EQ(team_threads(2), 2) << "still on one thread long after the longest period";
  reset_team_governor();
}

}  // namespace
}  // namespace tgc
