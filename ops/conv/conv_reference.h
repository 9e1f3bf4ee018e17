// The reference convolution loops on host tensors (the ground truth of every test and of the
// backends without a library call): one index walk shared by the forward convolution and its
// two gradients, computed in double over NCHW/OIHW copies of the operands.
#pragma once

#include "ops/conv/conv_params.h"
#include "runtime/tensor.h"

namespace tgc {

enum class ConvDirection { Forward, GradInput, GradWeights };

// Forward: a = x, b = w, result y. GradInput: a = dy, b = w, result dx.
// GradWeights: a = x, b = dy, result dw. `out` is made by ensure_output with `dtype` and the
// layout's shape of the result; operands may have any strides.
void conv_reference(ConvDirection dir, const Conv2dParams& p, const Conv2dGeometry& g, const Tensor& a,
                    const Tensor& b, DType dtype, Tensor& out);

// A rank-4 tensor of the layout as NCHW doubles in C order (a weight of NHWC layout, OHWI, as
// OIHW), and back: writes NCHW doubles `v` of shape `nchw` into `out` in the layout.
std::vector<double> to_nchw_doubles(const Tensor& t, ConvLayout layout);
void from_nchw_doubles(const std::vector<double>& v, const Shape& nchw, ConvLayout layout, DType dtype, Tensor& out);

}  // namespace tgc
