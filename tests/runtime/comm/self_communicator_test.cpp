// The communicator of a world of one: every collective is its definition for one rank (a
// copy), on the host and through a device's own copy, in place or not, count 0 included.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "runtime/comm/communicator.h"
#include "runtime/error.h"
#include "support/host_memory_device.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

TEST(SelfCommunicator, IsRankZeroOfOne) {
  auto comm = make_self_communicator(host_device());
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(comm->size(), 1);
  EXPECT_EQ(comm->local_rank(), 0);
  EXPECT_EQ(comm->engine(), "self");
  EXPECT_EQ(&comm->device(), &host_device());
}

TEST(SelfCommunicator, EveryCollectiveCopiesSendToRecv) {
  auto comm = make_self_communicator(host_device());
  Stream& s = host_device().default_stream();
  std::vector<double> send(37);
  std::iota(send.begin(), send.end(), -5.0);
  for (int which = 0; which < 4; ++which) {
    std::vector<double> recv(send.size(), 99.0);
    switch (which) {
      case 0: comm->all_reduce(send.data(), recv.data(), send.size(), DType::Float64, CollectiveReduce::Max, s); break;
      case 1: comm->all_gather(send.data(), recv.data(), send.size(), DType::Float64, s); break;
      case 2: comm->reduce_scatter(send.data(), recv.data(), send.size(), DType::Float64, CollectiveReduce::Sum, s); break;
      case 3: comm->broadcast(send.data(), recv.data(), send.size(), DType::Float64, 0, s); break;
    }
    EXPECT_EQ(recv, send) << "collective " << which;
  }
}

TEST(SelfCommunicator, InPlaceAndEmptyLeaveMemoryAlone) {
  auto comm = make_self_communicator(host_device());
  Stream& s = host_device().default_stream();
  std::vector<int8_t> data = {1, -2, 3};
  comm->all_reduce(data.data(), data.data(), data.size(), DType::Int8, CollectiveReduce::Sum, s);
  comm->broadcast(data.data(), data.data(), data.size(), DType::Int8, 0, s);
  EXPECT_EQ(data, (std::vector<int8_t>{1, -2, 3}));
  std::vector<int8_t> recv = {7};
  comm->all_gather(data.data(), recv.data(), 0, DType::Int8, s);
  EXPECT_EQ(recv[0], 7);
}

TEST(SelfCommunicator, BroadcastRootMustBeZero) {
  auto comm = make_self_communicator(host_device());
  int32_t x = 1, y = 0;
  auto e = test::catch_error<ValueError>(
      [&] { comm->broadcast(&x, &y, 1, DType::Int32, 1, host_device().default_stream()); });
  EXPECT_NE(std::string(e.what()).find("broadcast from root 1 in a world of one rank"), std::string::npos) << e.what();
  EXPECT_EQ(y, 0);
}

TEST(SelfCommunicator, DeviceMemoryMovesThroughTheDevicesCopy) {
  test::HostMemoryDevice device(DeviceKind::Cuda, "cuda:7");
  auto comm = make_self_communicator(device);
  EXPECT_EQ(&comm->device(), &device);
  std::vector<float> send = {1.5f, 2.5f}, recv(2);
  comm->all_reduce(send.data(), recv.data(), 2, DType::Float32, CollectiveReduce::Sum, device.default_stream());
  EXPECT_EQ(device.on_device, 1);
  EXPECT_EQ(recv, send);
  comm->all_reduce(recv.data(), recv.data(), 2, DType::Float32, CollectiveReduce::Sum, device.default_stream());
  comm->all_gather(send.data(), recv.data(), 0, DType::Float32, device.default_stream());
  EXPECT_EQ(device.on_device, 1);  // in place and empty: nothing to move
}

}  // namespace
}  // namespace tgc
