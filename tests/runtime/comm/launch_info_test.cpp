// launch_info's reading of the launchers' variables: tgc launch's, mpirun's, both, none, and
// every malformed or inconsistent value named in a ConfigError.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "runtime/comm/world.h"
#include "runtime/error.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

using test::catch_error;
using Env = std::map<std::string, std::string>;

LaunchInfo read(const Env& env) {
  return read_launch_info([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

std::string error_of(const Env& env) { return catch_error<ConfigError>([&] { read(env); }).what(); }

TEST(LaunchInfo, AloneIsRankZeroOfOne) {
  LaunchInfo info = read({});
  EXPECT_EQ(info.rank, 0);
  EXPECT_EQ(info.size, 1);
  EXPECT_EQ(info.local_rank, 0);
  EXPECT_EQ(info.local_size, 1);
  EXPECT_EQ(info.launcher, "none");
  EXPECT_FALSE(info.mpi_world);
}

TEST(LaunchInfo, TgcLaunchVariables) {
  LaunchInfo info = read({{"TGC_RANK", "2"}, {"TGC_WORLD_SIZE", "4"}, {"TGC_LOCAL_RANK", "0"}, {"TGC_LOCAL_WORLD_SIZE", "2"}});
  EXPECT_EQ(info.rank, 2);
  EXPECT_EQ(info.size, 4);
  EXPECT_EQ(info.local_rank, 0);
  EXPECT_EQ(info.local_size, 2);
  EXPECT_EQ(info.launcher, "tgc launch");
  EXPECT_FALSE(info.mpi_world);  // processes tgc starts itself share no MPI world
}

TEST(LaunchInfo, LocalVariablesDefaultToTheWorldOnOneMachine) {
  LaunchInfo info = read({{"TGC_RANK", "1"}, {"TGC_WORLD_SIZE", "3"}});
  EXPECT_EQ(info.local_rank, 1);
  EXPECT_EQ(info.local_size, 3);
}

TEST(LaunchInfo, MpirunVariables) {
  LaunchInfo info = read({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"},
                          {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.size, 4);
  EXPECT_EQ(info.local_rank, 1);
  EXPECT_EQ(info.local_size, 2);
  EXPECT_EQ(info.launcher, "mpirun");
  EXPECT_TRUE(info.mpi_world);
}

TEST(LaunchInfo, TgcLaunchOverMpirunSharesTheMpiWorld) {
  Env env = {{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
             {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}, {"TGC_RANK", "1"}, {"TGC_WORLD_SIZE", "2"}};
  LaunchInfo info = read(env);
  EXPECT_EQ(info.launcher, "tgc launch");
  EXPECT_TRUE(info.mpi_world);
  // A launch nested in another job: tgc's variables win, and MPI's world is not this one.
  env["TGC_WORLD_SIZE"] = "3";
  info = read(env);
  EXPECT_EQ(info.size, 3);
  EXPECT_FALSE(info.mpi_world);
}

TEST(LaunchInfo, MalformedValuesNameTheVariable) {
  for (const char* bad : {"", "x", "-1", "1.5", " 1", "12345678901"}) {
    std::string e = error_of({{"TGC_RANK", bad}, {"TGC_WORLD_SIZE", "2"}});
    EXPECT_NE(e.find("TGC_RANK"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("not a non-negative integer"), std::string::npos) << e;
    EXPECT_NE(e.find("hint: tgc launch sets it"), std::string::npos) << e;
  }
  EXPECT_NE(error_of({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "two"}}).find("OMPI_COMM_WORLD_SIZE"),
            std::string::npos);
}

TEST(LaunchInfo, MissingAndInconsistentValuesAreErrors) {
  EXPECT_NE(error_of({{"TGC_RANK", "0"}}).find("TGC_WORLD_SIZE is not set"), std::string::npos);
  EXPECT_NE(error_of({{"TGC_WORLD_SIZE", "2"}}).find("TGC_RANK is not set"), std::string::npos);
  // mpirun always sets its local variables.
  EXPECT_NE(error_of({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}}).find("OMPI_COMM_WORLD_LOCAL_RANK"),
            std::string::npos);
  EXPECT_NE(error_of({{"TGC_RANK", "2"}, {"TGC_WORLD_SIZE", "2"}}).find("TGC_RANK=2 is not a rank of a world of 2"),
            std::string::npos);
  EXPECT_NE(error_of({{"TGC_RANK", "0"}, {"TGC_WORLD_SIZE", "0"}}).find("TGC_WORLD_SIZE=0"), std::string::npos);
  EXPECT_NE(error_of({{"TGC_RANK", "0"}, {"TGC_WORLD_SIZE", "2"}, {"TGC_LOCAL_RANK", "0"}, {"TGC_LOCAL_WORLD_SIZE", "3"}})
                .find("TGC_LOCAL_WORLD_SIZE=3"),
            std::string::npos);
  EXPECT_NE(error_of({{"TGC_RANK", "1"}, {"TGC_WORLD_SIZE", "4"}, {"TGC_LOCAL_RANK", "2"}, {"TGC_LOCAL_WORLD_SIZE", "2"}})
                .find("TGC_LOCAL_RANK=2"),
            std::string::npos);
}

}  // namespace
}  // namespace tgc
