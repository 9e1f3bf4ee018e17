// The codecs of the nn family (ops/core/op_codec.h): Softmax (and LogSoftmax), LogSoftmaxGrad,
// SoftmaxCrossEntropy and LogSumExp. Axes and floatX are the reductions' fields
// (ops/reduce/codec_fields.h); floatX is always written, so that a file read under another
// config's floatX gives the same op.
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "ops/nn/log_softmax_grad.h"
#include "ops/nn/logsumexp.h"
#include "ops/nn/softmax.h"
#include "ops/nn/softmax_cross_entropy.h"
#include "ops/reduce/codec_fields.h"
#include "runtime/error.h"

namespace tgc {
namespace {

// A scale as JSON: a number, exact (the shortest decimal that reads back as the same double),
// or, as JSON has no infinities and NaN, one of the strings "inf", "-inf", "nan", "-nan".
Json scale_to_json(double scale) {
  if (std::isfinite(scale)) return scale;
  const std::string sign = std::signbit(scale) ? "-" : "";
  return sign + (std::isnan(scale) ? "nan" : "inf");
}

double scale_from_json(const Json& j) {
  constexpr double kInf = std::numeric_limits<double>::infinity(), kNan = std::numeric_limits<double>::quiet_NaN();
  if (j.is_number()) return j.get<double>();
  if (j == "inf") return kInf;
  if (j == "-inf") return -kInf;
  if (j == "nan") return kNan;
  if (j == "-nan") return -kNan;
  throw IOError("a scale is not a number: " + j.dump());
}

// {"axis": 1, "log": false, "floatx": "float32"}
Json write_softmax(const Softmax& op, OpWriteContext&) {
  return Json{{"axis", op.axis()}, {"log", op.log()}, {"floatx", dtype_to_json(op.floatx())}};
}

std::shared_ptr<const Op> read_softmax(const Json& f, OpReadContext&) {
  return std::make_shared<Softmax>(axis_from_json(f.at("axis")), f.at("log").get<bool>(),
                                   floatx_from_json(f.at("floatx")));
}

// {"axis": 1}
Json write_log_softmax_grad(const LogSoftmaxGrad& op, OpWriteContext&) { return Json{{"axis", op.axis()}}; }

std::shared_ptr<const Op> read_log_softmax_grad(const Json& f, OpReadContext&) {
  return std::make_shared<LogSoftmaxGrad>(axis_from_json(f.at("axis")));
}

// {"axis": 1, "scale": -0.25}; scale null when g is an input.
Json write_softmax_cross_entropy(const SoftmaxCrossEntropy& op, OpWriteContext&) {
  return Json{{"axis", op.axis()}, {"scale", op.scale() ? scale_to_json(*op.scale()) : Json()}};
}

std::shared_ptr<const Op> read_softmax_cross_entropy(const Json& f, OpReadContext&) {
  const Json& scale = f.at("scale");
  return std::make_shared<SoftmaxCrossEntropy>(
      axis_from_json(f.at("axis")), scale.is_null() ? std::nullopt : std::optional<double>(scale_from_json(scale)));
}

// {"axes": [1], "keepdims": false, "floatx": "float32"}
Json write_logsumexp(const LogSumExp& op, OpWriteContext&) {
  return Json{{"axes", reduce_axes_to_json(op.axes())},
              {"keepdims", op.keepdims()},
              {"floatx", dtype_to_json(op.floatx())}};
}

std::shared_ptr<const Op> read_logsumexp(const Json& f, OpReadContext&) {
  return std::make_shared<LogSumExp>(reduce_axes_from_json(f.at("axes")), f.at("keepdims").get<bool>(),
                                     floatx_from_json(f.at("floatx")));
}

[[maybe_unused]] const bool registered =
    register_op_codec<Softmax>("Softmax", write_softmax, read_softmax) &&
    register_op_codec<LogSoftmaxGrad>("LogSoftmaxGrad", write_log_softmax_grad, read_log_softmax_grad) &&
    register_op_codec<SoftmaxCrossEntropy>("SoftmaxCrossEntropy", write_softmax_cross_entropy,
                                           read_softmax_cross_entropy) &&
    register_op_codec<LogSumExp>("LogSumExp", write_logsumexp, read_logsumexp);

}  // namespace
}  // namespace tgc
