// The communicator of a world of one rank: each collective's definition for one rank is a
// copy of the send block to the receive block, so programs written for several ranks run
// unchanged alone, on any device.
#include <cstring>

#include <fmt/format.h>

#include "runtime/comm/communicator.h"
#include "runtime/error.h"

namespace tgc {

namespace {

class SelfCommunicator final : public Communicator {
 public:
  explicit SelfCommunicator(Device& device) : device_(device) {}

  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  std::string engine() const override { return "self"; }
  Device& device() const override { return device_; }

  void all_reduce(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce,
                  Stream& stream) override {
    copy(send, recv, count, dtype, stream);
  }
  void all_gather(const void* send, void* recv, size_t count, DType dtype, Stream& stream) override {
    copy(send, recv, count, dtype, stream);
  }
  void reduce_scatter(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce,
                      Stream& stream) override {
    copy(send, recv, count, dtype, stream);
  }
  void broadcast(const void* send, void* recv, size_t count, DType dtype, int root, Stream& stream) override {
    if (root != 0)
      throw ValueError(fmt::format("broadcast from root {} in a world of one rank", root), "",
                       "the root must be a rank of the group: 0 here");
    copy(send, recv, count, dtype, stream);
  }

 private:
  void copy(const void* send, void* recv, size_t count, DType dtype, Stream& stream) {
    const size_t bytes = count * dtype_size(dtype);
    if (send == recv || bytes == 0) return;
    // Host work is synchronous: a plain memmove (also right for blocks that overlap).
    if (device_.kind() == DeviceKind::Host) std::memmove(recv, send, bytes);
    else device_.copy_on_device(recv, send, bytes, stream);
  }

  Device& device_;
};

}  // namespace

std::shared_ptr<Communicator> make_self_communicator(Device& device) {
  return std::make_shared<SelfCommunicator>(device);
}

}  // namespace tgc
