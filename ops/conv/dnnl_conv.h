// oneDNN's convolution primitives (forward with an optional bias and relu post-op, backward
// data, backward weights) behind functions that take tgc's attributes and geometry, so that
// only dnnl_conv.cpp knows whether tgc was built with oneDNN (TGC_HAVE_DNNL). The descriptor
// is made from Conv2dParams and Conv2dGeometry as they are: the layout's strides, groups as a
// leading weights dim, oneDNN's dilation (d - 1) and the resolved padding.
#pragma once

#include "ops/conv/conv_params.h"
#include "ops/conv/conv_reference.h"
#include "runtime/tensor.h"

namespace tgc {

// Whether the conv ops compute this case with oneDNN: a build with oneDNN, float32
// operands (float64 stays on the reference loops, the oracle of the tests) and a non-empty
// problem. TGC_DNNL_CONV=0 in the environment turns it off (to compare with the reference).
bool dnnl_conv_applies(DType dtype, const Conv2dGeometry& g);
// Whether convolutions of `dtype` go to oneDNN at all (built with it, found, float32, not
// turned off by TGC_DNNL_CONV=0): the layout pass's question (compiler/passes/conv_layout.h).
bool dnnl_conv_enabled(DType dtype);

// As conv_reference (same operands per direction), through oneDNN. `bias` (float32 (O,) or
// undefined) and `relu` apply to the forward direction only (oneDNN's bias and post-op).
void dnnl_conv(ConvDirection dir, const Conv2dParams& p, const Conv2dGeometry& g, const Tensor& a, const Tensor& b,
               const Tensor& bias, bool relu, Tensor& out);

}  // namespace tgc
