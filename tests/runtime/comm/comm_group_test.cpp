// CommGroup's choice of engine: a self communicator for one rank, the registered factory for
// a device kind, a CommError saying what is missing otherwise; made once per device.
#include <gtest/gtest.h>

#include "runtime/comm/world.h"
#include "runtime/error.h"
#include "support/host_memory_device.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

using test::catch_error;
using FakeDevice = test::HostMemoryDevice;

TEST(CommGroup, OneRankIsSelfOnEveryDevice) {
  CommGroup group(0, 1, "solo");
  FakeDevice gpu(DeviceKind::Cuda, "cuda:0");
  EXPECT_EQ(group.communicator(host_device())->engine(), "self");
  EXPECT_EQ(group.communicator(gpu)->engine(), "self");
  EXPECT_EQ(&group.communicator(gpu)->device(), &gpu);
  EXPECT_EQ(group.communicator(gpu), group.communicator(gpu));  // made once, kept
}

TEST(CommGroup, WorldOfAProcessStartedAloneIsOneRank) {
  // ctest starts this test alone: no launcher's variables.
  ASSERT_EQ(launch_info().launcher, "none");
  auto world = world_group();
  EXPECT_EQ(world->rank(), 0);
  EXPECT_EQ(world->size(), 1);
  EXPECT_EQ(world->name(), "world");
  EXPECT_EQ(world, world_group());
  EXPECT_EQ(world->communicator(host_device())->engine(), "self");
}

TEST(CommGroup, HostRanksNeedMpirunsWorld) {
  CommGroup group(1, 2, "pair");
  auto e = catch_error<CommError>([&] { group.communicator(host_device()); });
  EXPECT_NE(std::string(e.what()).find("host collectives of group 'pair' (2 ranks) need MPI's process starter, and "
                                       "this process was started alone"),
            std::string::npos)
      << e.what();
  EXPECT_NE(e.hint().find("mpirun"), std::string::npos);
}

TEST(CommGroup, HostRanksInOneProcessHaveNoEngine) {
  CommGroup group(0, 2, "local", {&host_device(), &host_device()});
  auto e = catch_error<CommError>([&] { group.communicator(host_device()); });
  EXPECT_NE(std::string(e.what()).find("host collectives run between processes only"), std::string::npos) << e.what();
}

TEST(CommGroup, DevicesWithoutAnEngineSaySo) {
  FakeDevice gpu(DeviceKind::Cuda, "cuda:1");
  CommGroup group(0, 2, "world");
  auto e = catch_error<CommError>([&] { group.communicator(gpu); });
  EXPECT_NE(std::string(e.what()).find("no collective engine for cuda:1 (NCCL not found"), std::string::npos)
      << e.what();
  EXPECT_NE(e.hint().find("tgc devices"), std::string::npos) << e.hint();
}

TEST(CommGroup, DevicesUseTheirKindsFactoryOnce) {
  // OpenCL has no engine of its own: the test registers one (the registry is per kind).
  int made = 0;
  register_comm_factory(DeviceKind::OpenCL, [&](Device& device, CommGroup& group) {
    ++made;
    EXPECT_EQ(group.size(), 2);
    return make_self_communicator(device);  // stands in for an engine of two ranks
  });
  FakeDevice a(DeviceKind::OpenCL, "opencl:0:0"), b(DeviceKind::OpenCL, "opencl:0:1");
  CommGroup group(1, 2, "pair", {&a, &b});
  auto comm = group.communicator(b);
  EXPECT_EQ(&comm->device(), &b);
  EXPECT_EQ(group.communicator(b), comm);
  EXPECT_EQ(made, 1);
  group.communicator(a);
  EXPECT_EQ(made, 2);
  register_comm_factory(DeviceKind::OpenCL, nullptr);
  CommGroup other(0, 2, "pair");
  auto e = catch_error<CommError>([&] { other.communicator(a); });
  EXPECT_NE(std::string(e.what()).find("no collective engine for opencl:0:0"), std::string::npos) << e.what();
}

// A factory may ask its group for another device's communicator while it makes one: NCCL's
// under mpirun broadcasts its unique id through the group's host communicator. The group's lock
// is not held while a communicator is made, so the nested request does not wait on it (every
// rank hung there: issue 21). Here the host's request fails at once (no mpirun), as it should.
TEST(CommGroup, AFactoryMayAskItsGroupForAnotherDevicesCommunicator) {
  bool asked = false;
  register_comm_factory(DeviceKind::OpenCL, [&](Device& device, CommGroup& group) {
    catch_error<CommError>([&] { group.communicator(host_device()); });
    asked = true;
    return make_self_communicator(device);
  });
  FakeDevice gpu(DeviceKind::OpenCL, "opencl:0:0");
  CommGroup group(0, 2, "pair");
  EXPECT_EQ(&group.communicator(gpu)->device(), &gpu);
  EXPECT_TRUE(asked);
  register_comm_factory(DeviceKind::OpenCL, nullptr);
}

}  // namespace
}  // namespace tgc
