// How tgc run prints: the tutorial's timing line ("Looping 1000 times took 0.43 seconds")
// and each output NumPy-style — a header with its expression, dtype and shape, then the
// values as print(array) shows them (elided past 1000 elements).
#pragma once

#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace tgc::cli {

// "Calling f once took 0.000931 seconds" for one call; for more,
// "Looping 1000 times took 0.431200 seconds (0.000431 seconds per call)".
std::string timing_line(const std::string& function_name, int calls, double seconds);

// "out0 = exp(x): float32 (230400,)".
std::string output_header(size_t index, const std::string& expression, const Tensor& value);

// The outputs of one call: for each, its header and its values; a function with one output
// prints its values as the tutorial does ("Result is [1.23178029 ...]"). `expressions` are
// the outputs as written in the file (missing ones print as "?").
std::string format_outputs(const std::vector<std::string>& expressions,
                           const std::vector<Tensor>& values);

// The file an output is saved to by --out: DIR/<function>_<index>.npy.
std::string output_path(const std::string& dir, const std::string& function_name, size_t index);

}  // namespace tgc::cli
