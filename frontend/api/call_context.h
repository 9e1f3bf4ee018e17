// The state of one call of a compiled program: its slots (arguments, intermediates, results,
// and with allow_gc=false the buffers kept for the next call) and the scratch of its results'
// aliasing check. A program keeps a pool of them so that calls from several threads each run
// on their own (docs/api.md#threads); one thread calling alone always gets the same one.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/program.h"

namespace tgc {

struct CallContext {
  std::vector<Tensor> slots;           // Program::num_slots, constants filled
  std::vector<const Buffer*> foreign;  // scratch of operator(), kept for its capacity
};

class CallContextPool {
 public:
  explicit CallContextPool(const Program& program);
  CallContextPool(const CallContextPool&) = delete;
  CallContextPool& operator=(const CallContextPool&) = delete;

  // A context for one call, given back when the lease ends.
  class Lease {
   public:
    Lease(CallContextPool& pool) : pool_(pool), context_(pool.take()) {}  // NOLINT
    ~Lease() { pool_.give_back(context_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    CallContext& operator*() const { return *context_; }
    CallContext* operator->() const { return context_; }

   private:
    CallContextPool& pool_;
    CallContext* context_;
  };

 private:
  CallContext* take();
  void give_back(CallContext* context);
  std::unique_ptr<CallContext> make() const;

  const Program& program_;
  // The first context costs one atomic exchange to take: a call alone never touches the mutex.
  CallContext first_;
  std::atomic<bool> first_taken_{false};
  std::mutex mutex_;
  std::vector<std::unique_ptr<CallContext>> more_;  // made when calls overlapped
  std::vector<CallContext*> idle_;                  // of more_
};

}  // namespace tgc
