// tgc launch through the built binary: the ranks' variables, a failing rank stopping the
// others (SIGTERM, then SIGKILL after the grace period) with its status as the launch's,
// Ctrl-C reaching every rank, errors; and the same launch through mpirun where it is found.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>

#include "backends/cuda/nccl_entry.h"
#include "cli/cli_runner.h"
#include "frontend/cli/launch_processes.h"

namespace tgc::test {
namespace {

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

struct Timed {
  CliResult result;
  double seconds;
};

Timed timed_tgc(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  const auto start = std::chrono::steady_clock::now();
  CliResult r = run_tgc(args, env);
  return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

const char* const kEcho = "echo rank=$TGC_RANK size=$TGC_WORLD_SIZE local=$TGC_LOCAL_RANK/$TGC_LOCAL_WORLD_SIZE "
                          "nvls=$NCCL_NVLS_ENABLE";

TEST(LaunchCommand, EveryRankGetsItsVariables) {
  CliResult r = run_tgc({"launch", "-n", "3", "--mpirun", "off", "--", "sh", "-c", kEcho},
                        {"TGC_RANK=7", "OMPI_COMM_WORLD_RANK=5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(sorted_lines(r.out), (std::vector<std::string>{"rank=0 size=3 local=0/3 nvls=0",
                                                           "rank=1 size=3 local=1/3 nvls=0",
                                                           "rank=2 size=3 local=2/3 nvls=0"}));
  EXPECT_EQ(r.err, "");
}

// Ranks started without MPI exchange NCCL's unique id through their environment: the
// launcher makes one id (and hosts NCCL's bootstrap root) and every rank gets the same.
TEST(LaunchCommand, EveryRankGetsTheSameNcclUniqueId) {
  if (nccl_devices_description().find("available  (") == std::string::npos)
    GTEST_SKIP() << "NCCL cannot be loaded here: " << nccl_devices_description();
  CliResult r = run_tgc({"launch", "-n", "2", "--mpirun", "off", "--", "sh", "-c", "echo $TGC_NCCL_UNIQUE_ID"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> ids = sorted_lines(r.out);
  ASSERT_EQ(ids.size(), 2u) << r.out;
  EXPECT_EQ(ids[0].size(), 256u) << "an ncclUniqueId in hex";
  EXPECT_EQ(ids[0], ids[1]);
}

TEST(LaunchCommand, KeepsTheUsersNvlsSettingAndTheProgramsArguments) {
  // The arguments after PROGRAM are PROGRAM's, global tgc flags included.
  CliResult r = run_tgc({"launch", "-n", "1", "--mpirun", "off", "sh", "-c", "echo $NCCL_NVLS_ENABLE $0 $1", "--profile", "x"},
                        {"NCCL_NVLS_ENABLE=1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1 --profile x\n");
}

TEST(LaunchCommand, RanksMayBeTgcItself) {
  CliResult r = run_tgc({"launch", "-n", "2", "--mpirun", "off", "--", TGC_CLI_PATH, "run", example("sumsq.tg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t results = 0;
  for (size_t at = r.out.find("Result is 16000000.0"); at != std::string::npos; at = r.out.find("Result is", at + 1))
    ++results;
  EXPECT_EQ(results, 2u) << r.out;
}

TEST(LaunchCommand, AFailingRankStopsTheOthers) {
  Timed t = timed_tgc({"launch", "-n", "3", "--mpirun", "off", "--grace", "1", "--", "sh", "-c",
                       "if [ $TGC_RANK = 1 ]; then exit 3; fi; sleep 30"});
  EXPECT_EQ(t.result.exit_code, 3);
  EXPECT_NE(t.result.err.find("tgc launch: rank 1 of 3 (pid "), std::string::npos) << t.result.err;
  EXPECT_NE(t.result.err.find(") exited with status 3; the other ranks were stopped"), std::string::npos) << t.result.err;
  EXPECT_LT(t.seconds, 10);  // not the 30 s of the others' sleep
}

TEST(LaunchCommand, RanksThatIgnoreSigtermAreKilledAfterTheGracePeriod) {
  Timed t = timed_tgc({"launch", "-n", "2", "--mpirun", "off", "--grace", "0.5", "--", "sh", "-c",
                       "trap '' TERM; if [ $TGC_RANK = 0 ]; then sleep 0.2; exit 4; fi; sleep 30"});
  EXPECT_EQ(t.result.exit_code, 4);
  EXPECT_NE(t.result.err.find("rank 0 of 2"), std::string::npos) << t.result.err;
  EXPECT_LT(t.seconds, 10);
}

TEST(LaunchCommand, ARankKilledByASignalIsReported) {
  CliResult r = run_tgc({"launch", "-n", "2", "--mpirun", "off", "--grace", "1", "--", "sh", "-c",
                         "if [ $TGC_RANK = 1 ]; then kill -KILL $$; fi; sleep 30"});
  EXPECT_EQ(r.exit_code, 128 + 9);
  EXPECT_NE(r.err.find("rank 1 of 2 (pid "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("was killed by signal 9"), std::string::npos) << r.err;
}

// Rank 0 signals tgc launch itself, as a terminal's Ctrl-C or a batch system would; tgc
// passes the signal on to every rank and exits with 128 + its number.
void expect_signal_reaches_every_rank(const char* name, int number) {
  Timed t = timed_tgc({"launch", "-n", "2", "--mpirun", "off", "--", "sh", "-c",
                       fmt::format("if [ $TGC_RANK = 0 ]; then kill -{} $PPID; fi; sleep 30", name)});
  EXPECT_EQ(t.result.exit_code, 128 + number) << t.result.err;
  EXPECT_NE(t.result.err.find("tgc launch: interrupted"), std::string::npos) << t.result.err;
  EXPECT_LT(t.seconds, 10);
}

TEST(LaunchCommand, CtrlCReachesEveryRank) {
  // A shell starts background jobs with SIGINT ignored, and tgc keeps an ignored signal
  // ignored (as nohup's SIGHUP): then there is no Ctrl-C to pass on.
  struct sigaction current = {};
  sigaction(SIGINT, nullptr, &current);
  if (current.sa_handler == SIG_IGN) GTEST_SKIP() << "SIGINT is ignored in this test's process";
  expect_signal_reaches_every_rank("INT", SIGINT);
}

TEST(LaunchCommand, SigtermReachesEveryRank) { expect_signal_reaches_every_rank("TERM", SIGTERM); }

TEST(LaunchCommand, ErrorsAreTheUsers) {
  CliResult missing = run_tgc({"launch", "-n", "2", "--mpirun", "off", "--", "no-such-program-of-tgc"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot start 'no-such-program-of-tgc' for rank 0: No such file or directory"),
            std::string::npos)
      << missing.err;
  CliResult none = run_tgc({"launch", "-n", "2"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no program to launch"), std::string::npos) << none.err;
  CliResult no_n = run_tgc({"launch", "--mpirun", "off", "true"});
  EXPECT_EQ(no_n.exit_code, 2);
  EXPECT_NE(no_n.err.find("give it with -n N"), std::string::npos) << no_n.err;
  CliResult bad = run_tgc({"launch", "-n", "0", "true"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(LaunchCommand, WithoutMpirunOnThePathTgcStartsTheRanks) {
  ScratchDir bin;  // a PATH with a shell and no mpirun
  std::filesystem::create_symlink("/bin/sh", bin.path() + "/sh");
  const std::string path = "PATH=" + bin.path();
  CliResult r = run_tgc({"launch", "-n", "2", "--", "sh", "-c", "echo $TGC_RANK ${OMPI_COMM_WORLD_SIZE:-no-mpi}"}, {path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(sorted_lines(r.out), (std::vector<std::string>{"0 no-mpi", "1 no-mpi"}));
  CliResult on = run_tgc({"launch", "-n", "2", "--mpirun", "on", "--", "sh", "-c", "true"}, {path});
  EXPECT_EQ(on.exit_code, 2);
  EXPECT_NE(on.err.find("--mpirun on, and mpirun is not on the PATH"), std::string::npos) << on.err;
}

TEST(LaunchCommand, RankEnvironmentReplacesLauncherVariables) {
  auto env = cli::rank_environment({"PATH=/bin", "TGC_RANK=9", "TGC_WORLD_SIZE_X=1", "OMPI_COMM_WORLD_SIZE=4",
                                    "OMPI_MCA_x=1"},
                                   1, 2);
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/bin", "TGC_WORLD_SIZE_X=1", "OMPI_MCA_x=1", "TGC_RANK=1",
                                           "TGC_WORLD_SIZE=2", "TGC_LOCAL_RANK=1", "TGC_LOCAL_WORLD_SIZE=2",
                                           "NCCL_NVLS_ENABLE=0"}));
}

#ifdef TGC_CLI_TEST_MPIRUN
// Open MPI refuses root without both variables (CI containers run as root).
const std::vector<std::string> kMpiEnv = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};

TEST(LaunchCommand, ThroughMpirunEveryRankGetsItsVariables) {
  CliResult r = run_tgc({"launch", "-n", "2", "--mpirun", "on", "--", "sh", "-c",
                         std::string(kEcho) + " mpi=$OMPI_COMM_WORLD_RANK/$OMPI_COMM_WORLD_SIZE"},
                        kMpiEnv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(sorted_lines(r.out), (std::vector<std::string>{"rank=0 size=2 local=0/2 nvls=0 mpi=0/2",
                                                           "rank=1 size=2 local=1/2 nvls=0 mpi=1/2"}));
}

TEST(LaunchCommand, ThroughMpirunAFailingRankFailsTheLaunch) {
  Timed t = timed_tgc({"launch", "-n", "2", "--", "sh", "-c", "if [ $TGC_RANK = 1 ]; then exit 3; fi; sleep 30"},
                      kMpiEnv);
  EXPECT_NE(t.result.exit_code, 0);
  EXPECT_LT(t.seconds, 20);
}
#endif

}  // namespace
}  // namespace tgc::test
