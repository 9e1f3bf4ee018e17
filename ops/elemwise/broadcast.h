// NumPy broadcasting: of static shapes (dims known or unknown) at graph-build time, of
// concrete shapes at run time, and the strides that read an input as if broadcast.
// Shared by every op that broadcasts (elemwise, inc_subtensor, ...).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/shape.h"
#include "runtime/type.h"

namespace tgc {

// The broadcast of static shapes (kUnknownDim where unknown). Shapes are aligned on the
// right and missing leading dims count as 1. Per dim: a known size other than 1 wins (an
// unknown dim must equal it or be 1 at run time); all known 1 gives 1; otherwise unknown.
// Two different known sizes other than 1 are a ShapeError:
//   "<what>: operands could not be broadcast together with shapes (3, 4) (5,)".
std::vector<int64_t> broadcast_static_shapes(const std::vector<std::vector<int64_t>>& shapes,
                                             const std::string& what);
// The same rule without the error, for ops that word their own: nullopt where
// broadcast_static_shapes throws. Concrete shapes (no unknown dims) work too.
std::optional<std::vector<int64_t>> try_broadcast_static_shapes(const std::vector<std::vector<int64_t>>& shapes);

// Whether a value of static shape `from` may broadcast to the static shape `to` without
// changing it: `from` has at most to's rank and each of its dims (aligned on the right) is
// 1, equal, or unknown on either side (to be checked at run time).
bool may_broadcast_to(const std::vector<int64_t>& from, const std::vector<int64_t>& to);

// The broadcast of concrete shapes; ShapeError as above (with `what` as prefix when given).
Shape broadcast_shapes(const std::vector<Shape>& shapes, const std::string& what);

// The strides that read a tensor of `shape`/`strides` as if broadcast to `out_shape`: 0 for
// leading dims it lacks and for its size-1 dims that `out_shape` stretches. ShapeError when
// `shape` does not broadcast to `out_shape`.
Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& out_shape);

// Simplifies a loop over `shape` with one stride list per operand, without changing which
// elements meet: drops size-1 dims and merges neighbouring dims that every operand walks as
// one (stride[d] == stride[d+1] * shape[d+1]). An empty shape stays empty-sized (a 0 dim is
// kept); a scalar loop stays rank 0.
void collapse_dims(Shape& shape, std::vector<Strides>& strides);

}  // namespace tgc
