// Communicator: a set of ranks (processes, or devices of one process) that run collectives
// together, and the engine that moves the bytes between them. Host memory goes through MPI
// (runtime/comm/mpi_communicator.h), CUDA memory through NCCL (backends/cuda/nccl_communicator.h),
// a one-rank world through SelfCommunicator. Ops of ops/collective/ call these on the tensors
// of one node; this layer knows nothing of graphs, axes or gradients: flat, contiguous
// element blocks only.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "runtime/device.h"
#include "runtime/dtype.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// How all_reduce and reduce_scatter combine the ranks' elements. A mean is a sum the op
// divides by the world size afterwards, so every engine needs only these.
enum class CollectiveReduce { Sum, Max, Min };
std::string collective_reduce_name(CollectiveReduce op);  // "sum", "max", "min"

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;        // 0 .. size()-1
  virtual int size() const = 0;        // ranks in the world
  virtual int local_rank() const = 0;  // rank among the ranks of this machine
  // "mpi", "nccl" or "self": what moves the bytes (profiles and messages say it).
  virtual std::string engine() const = 0;
  // Where the buffers live: host_device() for MPI and self, the rank's GPU for NCCL.
  virtual Device& device() const = 0;

  // Every collective reads `count` elements of `dtype` contiguous at `send` and writes
  // contiguous elements at `recv` (send == recv is allowed for all_reduce and broadcast),
  // ordered on `stream` (a stream of device()): an engine on the host returns when the data
  // is there; NCCL enqueues and returns. Every rank calls the same collectives in the same
  // order with the same count and dtype. A collective that does not complete within the
  // communicator's timeout throws CommError naming the collective, the rank and the timeout
  // instead of hanging (a rank that failed never joins).

  // recv[i] = op over ranks of send[i]; count elements.
  virtual void all_reduce(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op,
                          Stream& stream) = 0;
  // recv holds size() * count elements: rank r's `count` elements at r * count.
  virtual void all_gather(const void* send, void* recv, size_t count, DType dtype, Stream& stream) = 0;
  // send holds size() * count elements; recv (count elements) gets op over ranks of the
  // block at rank() * count.
  virtual void reduce_scatter(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op,
                              Stream& stream) = 0;
  // recv = root's send on every rank (send is read on the root only).
  virtual void broadcast(const void* send, void* recv, size_t count, DType dtype, int root, Stream& stream) = 0;

  // Collectives issued between group_start() and group_end() may be fused and run as one
  // (NCCL's group calls: needed when one thread drives several devices). No-op elsewhere.
  virtual void group_start() {}
  virtual void group_end() {}
};

// A communicator of one rank: every collective copies send to recv (the definition of each
// collective for a world of one). Programs written for several ranks run unchanged alone.
std::shared_ptr<Communicator> make_self_communicator(Device& device);

TGC_API_END
}  // namespace tgc
