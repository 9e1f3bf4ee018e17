// The rank limit: how many dimensions a tensor of tgc's may have, and its check.
#pragma once

#include <cstdint>
#include <string>

namespace tgc {

// The most dimensions a tensor may have: NumPy's limit (NPY_MAXDIMS, 64 since NumPy 2.0), so
// every array NumPy writes can be read and every tensor tgc makes can be saved for NumPy. One
// limit for the whole project: every place that makes a rank (input constructors, shared
// variables and constants, an op's inferred output type, .npy headers, the language's arrays)
// checks it with check_rank.
inline constexpr int kMaxRank = 64;
// A ShapeError naming `what` ("reshape", "tensor 'x'") when `ndim` is above kMaxRank.
void check_rank(int64_t ndim, const std::string& what);

}  // namespace tgc
