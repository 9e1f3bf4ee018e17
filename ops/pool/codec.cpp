// Codecs of the pool family (ops/core/op_codec.h): Pool2d and Pool2dGrad keep their
// Pool2dParams (mode, layout, kernel, stride, padding, ceil_mode, count_include_pad), checked
// on reading as max_pool2d() / avg_pool2d() check the user's.
#include <array>
#include <memory>
#include <string>

#include "ops/core/op_codec.h"
#include "ops/pool/pool2d.h"
#include "runtime/error.h"

namespace tgc {
namespace {

// Two integers (nlohmann's own conversion would take a longer array, or 1.5 as 1).
std::array<int64_t, 2> pair_from_json(const Json& j, const std::string& tag, const char* field) {
  if (j.is_array() && j.size() == 2 && j[0].is_number_integer() && j[1].is_number_integer())
    return {j[0].get<int64_t>(), j[1].get<int64_t>()};
  throw IOError(tag + ": the field '" + field + "' is not 2 integers: " + j.dump());
}

const char* mode_name(PoolMode mode) { return mode == PoolMode::Max ? "max" : "avg"; }

PoolMode mode_from_json(const Json& j, const std::string& tag) {
  for (PoolMode m : {PoolMode::Max, PoolMode::Avg})
    if (j.is_string() && j.get<std::string>() == mode_name(m)) return m;
  throw IOError(tag + ": the mode is not max or avg: " + j.dump());
}

ConvLayout layout_from_json(const Json& j, const std::string& tag) {
  for (ConvLayout l : {ConvLayout::NCHW, ConvLayout::NHWC})
    if (j.is_string() && j.get<std::string>() == layout_name(l)) return l;
  throw IOError(tag + ": the layout is not NCHW or NHWC: " + j.dump());
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
  p.mode = mode_from_json(f.at("mode"), tag);
  p.layout = layout_from_json(f.at("layout"), tag);
  p.kernel = pair_from_json(f.at("kernel"), tag, "kernel");
  p.stride = pair_from_json(f.at("stride"), tag, "stride");
  p.pad = pair_from_json(f.at("pad"), tag, "pad");
  p.ceil_mode = f.at("ceil_mode").get<bool>();
  p.count_include_pad = f.at("count_include_pad").get<bool>();
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
