// The static description of a NumPy index expression (integers, slices, newaxis, and
// integer-array positions), shared by Subtensor, AdvancedSubtensor and IncSubtensor, and
// its resolution against an input's shape: the strided view the basic entries select and,
// for advanced indexing, where the broadcast index dims go in the result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/shape.h"
#include "runtime/type.h"

namespace tgc {

struct IndexEntry {
  enum class Kind { Int, Slice, NewAxis, Array };
  Kind kind = Kind::Slice;
  int64_t index = 0;                         // Kind::Int
  std::optional<int64_t> start, stop, step;  // Kind::Slice; absent parts take NumPy's defaults

  static IndexEntry integer(int64_t i);
  static IndexEntry slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
                          std::optional<int64_t> step = std::nullopt);
  static IndexEntry new_axis();
  // An integer array: the op's next index input (in entry order).
  static IndexEntry array();

  bool consumes_axis() const { return kind != Kind::NewAxis; }
  std::string str() const;  // "3", "1:5:2", "::-1", ":", "newaxis", "array"
  bool operator==(const IndexEntry&) const = default;
};

struct IndexSpec {
  std::vector<IndexEntry> entries;

  int num_arrays() const;
  bool has_arrays() const { return num_arrays() > 0; }
  std::string str() const;  // entries joined by ", ": "1, ::2, newaxis"
  bool operator==(const IndexSpec&) const = default;
};

// An index resolved against one input shape. Dims may be kUnknownDim when resolving a
// static type; strides are only meaningful for concrete shapes.
struct IndexLayout {
  // The input with the slices and newaxes applied, and integers too in basic indexing;
  // the axes indexed by advanced entries are kept whole. The offset is in elements,
  // relative to the input's first element.
  Shape view_shape;
  Strides view_strides;
  int64_t view_offset = 0;

  // Advanced indexing only (empty in basic indexing): one record per advanced entry. With
  // any array present, NumPy treats integer entries as 0-d index arrays too.
  struct Advanced {
    int view_axis;  // the axis of the view this entry indexes
    int input_axis; // the input axis it indexes (for error messages)
    int array;      // which index array (0-based), or -1 for an integer entry
    int64_t value;  // the integer, already wrapped into [0, size) (array == -1)
  };
  std::vector<Advanced> advanced;
  Shape bshape;  // the index arrays' broadcast shape
  int bpos = 0;  // where bshape's dims go: in place when the advanced entries are adjacent, else first

  Shape result_shape;
  bool is_advanced() const { return !advanced.empty(); }
};

// Resolves `spec` for an input of `shape` (with `strides`, or empty strides for a static
// resolution) and index arrays of `array_shapes`. `op` prefixes error messages. Throws
// TypeError (too many indices), ValueError (integer out of bounds, zero step) and
// ShapeError (index arrays that do not broadcast).
IndexLayout resolve_index(const std::string& op, const IndexSpec& spec, const Shape& shape,
                          const Strides& strides, const std::vector<Shape>& array_shapes);

// The static result type of indexing `x` with `spec` and index arrays of `arrays` types;
// also checks that the arrays have integer dtypes.
Type index_result_type(const std::string& op, const IndexSpec& spec, const Type& x,
                       const std::vector<Type>& arrays);

}  // namespace tgc
