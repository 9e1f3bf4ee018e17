// bucket_collectives (see bucket_collectives.h): which all_reduces share a bucket, and the
// flatten / concatenate / all_reduce / split / reshape that replaces them.
#include "compiler/passes/bucket_collectives.h"

#include <optional>
#include <unordered_set>

#include "compiler/passes/shape_equivalence.h"
#include "ops/collective/all_reduce.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/join/join.h"
#include "ops/join/split.h"
#include "ops/shape/reshape.h"

namespace tgc {
namespace {

struct Member {
  Node* node;
  Shape shape;
  int64_t size;
};

// Whether `v` is computed from any of `outputs` (a bucket member's result): fusing its
// all_reduce into that bucket would make the bucket wait for itself.
bool depends_on(const Variable* v, const std::unordered_set<const Variable*>& outputs) {
  std::vector<const Variable*> stack{v};
  std::unordered_set<const Variable*> seen;
  while (!stack.empty()) {
    const Variable* x = stack.back();
    stack.pop_back();
    if (outputs.count(x)) return true;
    if (!seen.insert(x).second || !x->owner()) continue;
    for (const VarPtr& in : x->owner()->inputs()) stack.push_back(in.get());
  }
  return false;
}

bool fuse(Graph& graph, const std::vector<Member>& bucket) {
  if (bucket.size() < 2) return false;
  const auto& op = static_cast<const AllReduce&>(bucket[0].node->op());
  std::vector<VarPtr> flat;
  std::vector<int64_t> sizes;
  for (const Member& m : bucket) {
    flat.push_back(apply1(std::make_shared<Reshape>(Shape{m.size}), {m.node->inputs()[0]}));
    sizes.push_back(m.size);
  }
  VarPtr joined = apply1(std::make_shared<Concatenate>(0), flat);
  VarPtr summed = apply1(std::make_shared<AllReduce>(CollectiveOpKind::Sum, op.group()), {joined});
  summed->set_name("gradient bucket");
  std::vector<VarPtr> parts = apply(std::make_shared<Split>(0, sizes), {summed});
  for (size_t i = 0; i < bucket.size(); ++i) {
    VarPtr whole = apply1(std::make_shared<Reshape>(bucket[i].shape), {parts[i]});
    whole->set_name(bucket[i].node->output_raw(0)->name());
    graph.replace(bucket[i].node->output_raw(0), whole);
  }
  return true;
}

}  // namespace

bool bucket_collectives(Graph& graph, const PassContext& ctx) {
  ShapeEquivalence shapes(&ctx.shared_shapes);
  std::vector<std::vector<Member>> buckets(1);
  std::unordered_set<const Variable*> bucket_outputs;
  size_t bucket_bytes = 0;
  auto close = [&] {
    if (!buckets.back().empty()) buckets.emplace_back();
    bucket_outputs.clear();
    bucket_bytes = 0;
  };
  for (Node* n : graph.toposort()) {
    const auto* ar = dynamic_cast<const AllReduce*>(&n->op());
    if (!ar || ar->kind() != CollectiveOpKind::Sum) continue;
    const Variable& in = *n->inputs()[0];
    const std::optional<Shape> shape = shapes.known_shape(in);
    const size_t bytes = shape ? static_cast<size_t>(shape_numel(*shape)) * dtype_size(in.type().dtype) : 0;
    if (!shape || bytes == 0 || bytes >= kBucketSmallBytes) {
      close();  // keeps its own call, and the order: later small ones start a new bucket
      continue;
    }
    std::vector<Member>& bucket = buckets.back();
    if (!bucket.empty()) {
      const auto& first = static_cast<const AllReduce&>(bucket[0].node->op());
      if (first.group() != ar->group() || bucket[0].node->inputs()[0]->type().dtype != in.type().dtype ||
          bucket_bytes + bytes > kBucketBytes || depends_on(&in, bucket_outputs))
        close();
    }
    buckets.back().push_back({n, *shape, shape_numel(*shape)});
    bucket_outputs.insert(n->output_raw(0));
    bucket_bytes += bytes;
  }
  bool changed = false;
  for (const std::vector<Member>& bucket : buckets) changed = fuse(graph, bucket) || changed;
  return changed;
}

}  // namespace tgc
