// The JSON field the codecs of convolutions and pooling share in saved functions: a layout
// ("NCHW" / "NHWC"), read strictly (ops/conv/codec.cpp; ops/pool/codec.cpp).
#pragma once

#include "ops/conv/conv_params.h"
#include "ops/core/op_codec.h"

namespace tgc {

ConvLayout layout_field(const Json& fields, const char* key);

}  // namespace tgc
