// The codecs of the norm family (ops/core/op_codec.h): BatchNormTraining and BatchNormGrad, each
// {"axis": 1, "epsilon": 1e-05} (epsilon as number_to_json's exact double).
#include <memory>

#include "ops/norm/batch_norm.h"
#include "ops/reduce/codec_fields.h"

namespace tgc {
namespace {

template <typename Bn>
Json write_batch_norm(const Bn& op, OpWriteContext&) {
  return Json{{"axis", op.channel_axis()}, {"epsilon", number_to_json(op.epsilon())}};
}

template <typename Bn>
std::shared_ptr<const Op> read_batch_norm(const Json& f, OpReadContext&) {
  const double epsilon = number_field(f, "epsilon");
  if (!(epsilon > 0)) throw_bad_field("epsilon", "positive number", f.at("epsilon"));
  return std::make_shared<Bn>(axis_field(f, "axis"), epsilon);
}

[[maybe_unused]] const bool registered =
    register_op_codec<BatchNormTraining>("BatchNormTraining", write_batch_norm<BatchNormTraining>,
                                      read_batch_norm<BatchNormTraining>) &&
    register_op_codec<BatchNormGrad>("BatchNormGrad", write_batch_norm<BatchNormGrad>, read_batch_norm<BatchNormGrad>);

}  // namespace
}  // namespace tgc
