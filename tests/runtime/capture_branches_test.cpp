// CaptureBranches on a fake device that records a graph (each enqueued piece of work a node
// following the device's tail, as CUDA stream capture does): independent chains become
// branches, joins follow every producer, overwritten buffers follow their earlier readers,
// thunks that are not self-contained stay in order, and updates follow their readers.
#include "runtime/capture_branches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <set>

#include "runtime/executor.h"

namespace tgc {
namespace {

class GraphStream final : public Stream {
 public:
  void synchronize() override {}
};

// Host memory; enqueue() adds a node depending on the tail and makes it the tail.
class GraphDevice final : public Device {
 public:
  struct Node {
    std::string name;
    CaptureTail deps;
  };
  DeviceKind kind() const override { return DeviceKind::Cuda; }
  std::string name() const override { return "graph:0"; }
  void* allocate(size_t bytes, Stream&) override { return std::malloc(bytes ? bytes : 1); }
  void deallocate(void* p, size_t, Stream&) override { std::free(p); }
  void copy_to_host(void*, const void*, size_t, Stream&) override { enqueue("copy to host"); }
  void copy_from_host(void*, const void*, size_t, Stream&) override { enqueue("copy from host"); }
  void copy_on_device(void*, const void*, size_t, Stream&) override { enqueue("copy"); }
  Stream& default_stream() override { return stream_; }
  bool capture_branches() const override { return true; }
  CaptureTail capture_tail() override { return tail_; }
  void set_capture_tail(const CaptureTail& tail) override { tail_ = tail; }

  void enqueue(const std::string& name) {
    nodes_.push_back({name, tail_});
    tail_ = {&nodes_.back()};
  }
  // The names of the nodes `name`'s node follows directly.
  std::set<std::string> deps_of(const std::string& name) const {
    auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](const Node& n) { return n.name == name; });
    EXPECT_NE(it, nodes_.end()) << name << " was not recorded";
    std::set<std::string> out;
    if (it != nodes_.end())
      for (const void* d : it->deps) out.insert(static_cast<const Node*>(d)->name);
    return out;
  }

 private:
  GraphStream stream_;
  std::deque<Node> nodes_;  // stable addresses: they are the handles
  CaptureTail tail_;
};

// A thunk named `name` reading `in` and writing fresh outputs `out`, enqueuing one node
// (none for a view, whose output shares its first input's buffer).
Thunk thunk(GraphDevice& d, const std::string& name, std::vector<int> in, std::vector<int> out,
            bool self_contained = true, bool view = false) {
  Thunk t;
  t.op_name = t.op_class = t.label = name;
  t.kind = ThunkKind::Gpu;
  t.device = &d;
  t.self_contained = self_contained;
  t.inputs = std::move(in);
  t.outputs = std::move(out);
  t.run = [&d, name, view](const std::vector<Tensor>& i, std::vector<Tensor>& o) {
    for (Tensor& t : o) {
      if (view) t = i.at(0);
      else if (!t.defined()) t = Tensor::empty(DType::Float32, {4}, d);
    }
    if (!view) d.enqueue(name);
  };
  return t;
}

std::vector<Tensor> slots_for(GraphDevice& d, const Program& p) {
  std::vector<Tensor> slots(static_cast<size_t>(p.num_slots));
  for (int s : p.bound_slots) slots[s] = Tensor::empty(DType::Float32, {4}, d);
  return slots;
}

using Names = std::set<std::string>;

TEST(CaptureBranches, IndependentChainsBranchAndJoinsFollowEveryProducer) {
  GraphDevice d;
  Program p;
  p.num_slots = 6;  // 0 a, 1 b (bound); 2 = A1(a), 3 = A2(2), 4 = B1(b), 5 = C(3, 4)
  p.bound_slots = {0, 1};
  p.output_slots = {5};
  p.thunks = {thunk(d, "A1", {0}, {2}), thunk(d, "A2", {2}, {3}), thunk(d, "B1", {1}, {4}),
              thunk(d, "C", {3, 4}, {5})};
  std::vector<Tensor> slots = slots_for(d, p);
  CaptureBranches branches(d);
  execute(p, slots, ExecOptions{false, false, &branches}, nullptr);
  EXPECT_EQ(d.deps_of("A1"), Names{});
  EXPECT_EQ(d.deps_of("A2"), Names{"A1"});
  EXPECT_EQ(d.deps_of("B1"), Names{}) << "B1 reads only a bound value: it starts a branch";
  EXPECT_EQ(d.deps_of("C"), (Names{"A2", "B1"}));
}

TEST(CaptureBranches, AnOverwrittenBufferFollowsItsEarlierReaders) {
  GraphDevice d;
  Program p;
  p.num_slots = 5;  // 0 x (bound); 1 = P(x); 2 = R1(1); 3 = R2(1); 4 = W(1) in place over 1
  p.bound_slots = {0};
  p.output_slots = {2, 3, 4};
  p.thunks = {thunk(d, "P", {0}, {1}), thunk(d, "R1", {1}, {2}), thunk(d, "R2", {1}, {3}), thunk(d, "W", {1}, {4})};
  p.thunks[3].inplace = {{0, 1}};
  std::vector<Tensor> slots = slots_for(d, p);
  CaptureBranches branches(d);
  execute(p, slots, ExecOptions{false, false, &branches}, nullptr);
  EXPECT_EQ(d.deps_of("R1"), Names{"P"});
  EXPECT_EQ(d.deps_of("R2"), Names{"P"});
  EXPECT_EQ(d.deps_of("W"), (Names{"P", "R1", "R2"})) << "W overwrites what R1 and R2 read";
}

TEST(CaptureBranches, ThunksThatAreNotSelfContainedStayInOrder) {
  GraphDevice d;
  Program p;
  p.num_slots = 4;  // two products of unrelated bound values share a workspace
  p.bound_slots = {0, 1};
  p.output_slots = {2, 3};
  p.thunks = {thunk(d, "gemm1", {0}, {2}, false), thunk(d, "gemm2", {1}, {3}, false)};
  std::vector<Tensor> slots = slots_for(d, p);
  CaptureBranches branches(d);
  execute(p, slots, ExecOptions{false, false, &branches}, nullptr);
  EXPECT_EQ(d.deps_of("gemm2"), Names{"gemm1"});
}

// A collective (the engine's domain) runs beside the products (cuBLAS's) but after the
// previous collective: gradients' all_reduces overlap the backward pass and keep the order
// every rank issues them in.
TEST(CaptureBranches, SerialDomainsOrderTheirOwnThunksOnly) {
  GraphDevice d;
  Program p;
  p.num_slots = 6;  // bound 0, 1; gemm1(0) -> 2, allreduce1(2) -> 3, gemm2(1) -> 4, allreduce2(4) -> 5
  p.bound_slots = {0, 1};
  p.output_slots = {3, 5};
  p.thunks = {thunk(d, "gemm1", {0}, {2}, false), thunk(d, "allreduce1", {2}, {3}, false),
              thunk(d, "gemm2", {1}, {4}, false), thunk(d, "allreduce2", {4}, {5}, false)};
  p.thunks[1].serial_domain = p.thunks[3].serial_domain = 1;
  std::vector<Tensor> slots = slots_for(d, p);
  CaptureBranches branches(d);
  execute(p, slots, ExecOptions{false, false, &branches}, nullptr);
  EXPECT_EQ(d.deps_of("allreduce1"), Names{"gemm1"});
  EXPECT_EQ(d.deps_of("gemm2"), Names{"gemm1"}) << "not after allreduce1: it runs beside it";
  EXPECT_EQ(d.deps_of("allreduce2"), (Names{"gemm2", "allreduce1"}));
}

TEST(CaptureBranches, ReadersOfAViewFollowTheWriterOfItsBuffer) {
  GraphDevice d;
  Program p;
  p.num_slots = 5;  // 0 x; 1 = P(x); 2 = view(1); 3 = R(2); 4 = W(2) in place over the view
  p.bound_slots = {0};
  p.output_slots = {3, 4};
  p.thunks = {thunk(d, "P", {0}, {1}), thunk(d, "view", {1}, {2}, true, true), thunk(d, "R", {2}, {3}),
              thunk(d, "W", {1}, {4})};
  p.thunks[3].inplace = {{0, 1}};
  std::vector<Tensor> slots = slots_for(d, p);
  CaptureBranches branches(d);
  execute(p, slots, ExecOptions{false, false, &branches}, nullptr);
  EXPECT_EQ(d.deps_of("R"), Names{"P"});
  EXPECT_EQ(d.deps_of("W"), (Names{"P", "R"})) << "R read the buffer through the view";
}

TEST(CaptureBranches, AnUpdateCopyFollowsTheReadersOfItsTargetAndTheWriterOfItsValue) {
  GraphDevice d;
  Program p;
  p.num_slots = 4;  // 0 w (bound); 1 = R(w); 2 = U(1) (the new w); 3 = O(w)
  p.bound_slots = {0};
  p.output_slots = {2, 3};
  p.thunks = {thunk(d, "R", {0}, {1}), thunk(d, "U", {1}, {2}), thunk(d, "O", {0}, {3})};
  std::vector<Tensor> slots = slots_for(d, p);
  const Tensor w = slots[0];
  CaptureBranches branches(d);
  execute(p, slots, ExecOptions{false, false, &branches}, nullptr);
  branches.before_copy(w, slots[2]);
  d.copy_on_device(w.raw_data(), slots[2].raw_data(), 16, d.default_stream());
  branches.after_copy(w, slots[2]);
  EXPECT_EQ(d.deps_of("O"), Names{});
  EXPECT_EQ(d.deps_of("copy"), (Names{"R", "U", "O"}));
}

}  // namespace
}  // namespace tgc
