// Codecs of the pool family (ops/core/op_codec.h): Pool2d and Pool2dGrad keep their
// Pool2dParams (mode, layout, kernel, stride, padding, ceil_mode, count_include_pad), checked
// on reading as max_pool2d() / avg_pool2d() check the user's.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "ops/conv/codec_fields.h"
#include "ops/core/op_codec.h"
#include "ops/pool/pool2d.h"

namespace tgc {
namespace {

const char* mode_name(PoolMode mode) { return mode == PoolMode::Max ? "max" : "avg"; }

PoolMode mode_field(const Json& f, const char* key) {
  const std::string name = string_field(f, key);
  for (PoolMode m : {PoolMode::Max, PoolMode::Avg})
    if (name == mode_name(m)) return m;
  throw_bad_field(key, "mode max or avg", f.at(key));
}

// count_include_pad is kept for max pooling too (where it does nothing), so the op read back
// holds exactly the params it was made with.
Json params_to_json(const Pool2dParams& p) {
  return Json{{"mode", mode_name(p.mode)}, {"layout", layout_name(p.layout)}, {"kernel", p.kernel},
              {"stride", p.stride},        {"pad", p.pad},                    {"ceil_mode", p.ceil_mode},
              {"count_include_pad", p.count_include_pad}};
}

Pool2dParams params_from_json(const Json& f, const std::string& tag) {
  Pool2dParams p;
  p.mode = mode_field(f, "mode");
  p.layout = layout_field(f, "layout");
  p.kernel = fixed_integers_field<int64_t, 2>(f, "kernel");
  p.stride = fixed_integers_field<int64_t, 2>(f, "stride");
  p.pad = fixed_integers_field<int64_t, 2>(f, "pad");
  p.ceil_mode = bool_field(f, "ceil_mode");
  p.count_include_pad = bool_field(f, "count_include_pad");
  p.check(tag);
  return p;
}

Json write_pool(const Pool2d& op, OpWriteContext&) { return params_to_json(op.params()); }
std::shared_ptr<const Op> read_pool(const Json& f, OpReadContext&) {
  return std::make_shared<Pool2d>(params_from_json(f, "Pool2d"));
}

Json write_pool_grad(const Pool2dGrad& op, OpWriteContext&) { return params_to_json(op.params()); }
std::shared_ptr<const Op> read_pool_grad(const Json& f, OpReadContext&) {
  return std::make_shared<Pool2dGrad>(params_from_json(f, "Pool2dGrad"));
}

[[maybe_unused]] const bool registered = register_op_codec<Pool2d>("Pool2d", write_pool, read_pool) &&
                                         register_op_codec<Pool2dGrad>("Pool2dGrad", write_pool_grad, read_pool_grad);

}  // namespace
}  // namespace tgc
