// ShapeEquivalence: which dims of a graph's variables are provably equal at run time, when
// their static types leave them unknown (Theano's ShapeFeature). Rules ask it whether a
// SumToLike or a Fill is the identity ("both are broadcasts of dot(x, w)").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/passes/pass_context.h"
#include "ops/core/variable.h"

namespace tgc {

// A symbolic dim. Two variables' dims with the same DimId have the same size in every run.
using DimId = int32_t;

// Each dim is a known size or the broadcast ("join") of a set of base symbols: one base
// symbol per unknown dim of a graph input, constant, shared variable, or of an op output this
// analysis does not model. Broadcasting is idempotent, commutative and associative (a size-1
// dim is its unit; a known size other than 1 absorbs the others, which must equal it or be
// 1), so two joins of the same set are the same size — bcast(bcast(y, p), y) is bcast(y, p)
// even where y or p is 1 at run time. A SumToLike(g, like) is therefore the identity when
// g's and like's dims are the same sets, and only then can that be proven: tgc broadcasts
// unknown dims of size 1 at run time, so bcast(y, p) and p differ when p is 1 and y is not.
//
// Modelled: Elemwise (the join of the inputs' dims, aligned on the right), Fill, Alloc,
// SumToLike and ReshapeLike (like's dims), DimShuffle, StopGradient, Softmax/LogSoftmax,
// transfers, the reductions (CAReduce, Mean/LogSumExp, Argmax/Argmin: reduced dims dropped
// or 1) and Dot. Any other op whose input dims are all known has the sizes its own
// infer_shapes gives. Static knowledge always wins: a dim the type knows is that size. With shape facts (the
// shapes of shared variables' values, PassContext::shared_shapes), a shared variable's dims
// are the sizes of its fact, so everything computed from shared values alone has known dims.
//
// Dims are computed on request and memoized by Variable::id(), so one analysis serves a
// whole rewrite pass: rewrites replace a variable only by one with the same run-time value
// (and so shape), which keeps every memoized answer true while readers are rewired.
class ShapeEquivalence {
 public:
  // `facts` (may be null) must outlive the analysis.
  explicit ShapeEquivalence(const SharedShapeFacts* facts = nullptr) : facts_(facts) {}

  // The symbolic dims of `v`, one per axis. Iterative: deep graphs do not overflow the stack.
  const std::vector<DimId>& dims(const Variable& v);

  // Whether a and b provably have the same run-time shape (same rank, same dims).
  bool same_shape(const Variable& a, const Variable& b);

  // The size of `d` when it is known statically.
  std::optional<int64_t> known(DimId d) const;
  // Each dim of v: its size where the type or the shape facts give it, else nullopt.
  std::vector<std::optional<int64_t>> known_dims(const Variable& v);
  // v's shape when every dim is known.
  std::optional<Shape> known_shape(const Variable& v);
  // The id of a known size.
  DimId constant(int64_t size);
  // The broadcast of two dims (see the class comment).
  DimId join(DimId a, DimId b);
  // The broadcast of several shapes, aligned on the right (missing leading dims count as 1).
  std::vector<DimId> broadcast(const std::vector<const std::vector<DimId>*>& shapes);

 private:
  // A dim: a known size (>= 0), or kUnknownDim and a sorted set of base symbols.
  struct Dim {
    int64_t size;
    std::vector<uint32_t> symbols;
    auto operator<=>(const Dim&) const = default;
  };
  DimId intern(Dim d);
  DimId fresh();
  // The dims of every output of v's owner (or of v itself, for a root), from its inputs'.
  std::vector<std::vector<DimId>> compute(const Variable& v);
  std::vector<DimId> from_type(const Variable& v);
  // The output shapes of `n` from its infer_shapes when every input dim is known.
  std::optional<std::vector<Shape>> concrete_outputs(const Node& n, const std::vector<const std::vector<DimId>*>& in);

  const SharedShapeFacts* facts_;
  std::vector<Dim> dims_;
  std::map<Dim, DimId> ids_;
  uint32_t next_symbol_ = 0;
  std::unordered_map<uint64_t, std::vector<DimId>> memo_;
};

}  // namespace tgc
