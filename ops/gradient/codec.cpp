// The codecs of the gradient ops (ops/core/op_codec.h): StopGradient and SumToLike, which have
// no parameters. Their readers refuse any field, so that a file from a tgc whose op gained one
// is not read as an op that silently ignores it.
#include <memory>
#include <string>

#include "ops/core/op_codec.h"
#include "ops/gradient/stop_gradient.h"
#include "ops/gradient/sum_to_like.h"
#include "runtime/error.h"

namespace tgc {
namespace {

template <class T>
Json write_nothing(const T&, OpWriteContext&) {
  return Json::object();
}

template <class T>
std::shared_ptr<const Op> read_nothing(const Json& f, OpReadContext&) {
  if (!f.is_object() || !f.empty()) throw IOError("an op without parameters has fields: " + f.dump());
  return std::make_shared<T>();
}

[[maybe_unused]] const bool registered =
    register_op_codec<StopGradient>("StopGradient", write_nothing<StopGradient>, read_nothing<StopGradient>) &&
    register_op_codec<SumToLike>("SumToLike", write_nothing<SumToLike>, read_nothing<SumToLike>);

}  // namespace
}  // namespace tgc
