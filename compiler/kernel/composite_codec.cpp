// The codec of Composite (ops/core/op_codec.h): its Kernel field by field and its inplace
// map. Constants are written as their 64-bit patterns, so every double (-0.0, inf, NaN and
// its payload) and every int64 comes back exactly; the kernel read is checked with
// Kernel::validate and its inplace outputs are granted again by make_inplace, so a file
// cannot hand a backend a kernel or an aliasing that tgc itself would never have built.
#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/kernel/composite_op.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"

namespace tgc {

namespace {

using Kind = KernelValue::Kind;

// -- field helpers ---------------------------------------------------------------------
// Integers, bools and strings are read by op_codec.h's strict field readers.

// A double as the 16 hex digits of its bit pattern, not number_to_json's number: a NaN keeps
// its sign and payload, and every reader gets -0.0 back, so the kernel comes back bit for bit.
Json double_to_json(double x) { return fmt::format("{:016x}", std::bit_cast<uint64_t>(x)); }

double double_field(const Json& j, const char* key) {
  const Json& v = j.at(key);
  const std::string s = v.is_string() ? v.get<std::string>() : std::string();
  uint64_t bits = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), bits, 16);
  if (s.size() != 16 || ec != std::errc() || end != s.data() + s.size())
    throw_bad_field(key, "16 hex digits of a double's bits", v);
  return std::bit_cast<double>(bits);
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::Load: return "load";
    case Kind::Constant: return "constant";
    case Kind::Op: return "op";
    case Kind::Reduce: return "reduce";
  }
  return "?";
}

Kind kind_field(const Json& j, const char* key) {
  const std::string name = string_field(j, key);
  for (Kind k : {Kind::Load, Kind::Constant, Kind::Op, Kind::Reduce})
    if (name == kind_name(k)) return k;
  throw IOError("unknown kernel value kind: " + j.at(key).dump());
}

// The reader matching kernel_reduce_op_name.
KernelReduceOp reduce_op_field(const Json& j, const char* key) {
  const std::string name = string_field(j, key);
  for (KernelReduceOp op : {KernelReduceOp::Sum, KernelReduceOp::Prod, KernelReduceOp::Max, KernelReduceOp::Min,
                            KernelReduceOp::All, KernelReduceOp::Any, KernelReduceOp::Mean})
    if (name == kernel_reduce_op_name(op)) return op;
  throw IOError("unknown kernel reduction: " + j.at(key).dump());
}

// -- the kernel ------------------------------------------------------------------------

// Each value writes the fields its kind uses: validate() requires the others at their
// defaults, so nothing is lost. identity_when_empty is written wherever it is set.
Json value_to_json(const KernelValue& v) {
  Json j{{"kind", kind_name(v.kind)}, {"dtype", dtype_to_json(v.dtype)}};
  switch (v.kind) {
    case Kind::Load: j["input"] = v.input; break;
    case Kind::Constant:
      j["constant"] = double_to_json(v.constant);
      j["int_constant"] = v.int_constant;
      break;
    case Kind::Op: j["op"] = scalar_op_to_json(v.op); break;
    case Kind::Reduce: j["reduce_op"] = std::string(kernel_reduce_op_name(v.reduce_op)); break;
  }
  if (!v.args.empty()) j["args"] = v.args;
  if (v.identity_when_empty) j["identity_when_empty"] = true;
  return j;
}

KernelValue value_from_json(const Json& j) {
  KernelValue v;
  v.kind = kind_field(j, "kind");
  v.dtype = dtype_from_json(j.at("dtype"));
  switch (v.kind) {
    case Kind::Load: v.input = integer_field<int>(j, "input"); break;
    case Kind::Constant:
      v.constant = double_field(j, "constant");
      v.int_constant = integer_field<int64_t>(j, "int_constant");
      break;
    case Kind::Op: v.op = scalar_op_from_json(j.at("op")); break;
    case Kind::Reduce: v.reduce_op = reduce_op_field(j, "reduce_op"); break;
  }
  if (j.contains("args")) v.args = integers_field<int>(j, "args");
  if (j.contains("identity_when_empty")) v.identity_when_empty = bool_field(j, "identity_when_empty");
  return v;
}

Json kernel_to_json(const Kernel& k) {
  Json inputs = Json::array(), values = Json::array(), outputs = Json::array();
  for (const KernelInput& in : k.inputs)
    inputs.push_back({{"dtype", dtype_to_json(in.dtype)},
                      {"ndim", in.ndim},
                      {"static_shape", in.static_shape},
                      {"in_output_space", in.in_output_space}});
  for (const KernelValue& v : k.values) values.push_back(value_to_json(v));
  for (const KernelOutput& o : k.outputs) outputs.push_back({{"value", o.value}, {"dtype", dtype_to_json(o.dtype)}});
  return Json{{"ndim", k.ndim},       {"inputs", std::move(inputs)}, {"values", std::move(values)},
              {"outputs", std::move(outputs)}, {"reduce_axes", k.reduce_axes}, {"keepdims", k.keepdims}};
}

Kernel kernel_from_json(const Json& j) {
  Kernel k;
  k.ndim = integer_field<int>(j, "ndim");
  for (const Json& in : list_field(j, "inputs"))
    k.inputs.push_back(KernelInput{dtype_from_json(in.at("dtype")), integer_field<int>(in, "ndim"),
                                   integers_field<int64_t>(in, "static_shape"), bool_field(in, "in_output_space")});
  for (const Json& v : list_field(j, "values")) k.values.push_back(value_from_json(v));
  for (const Json& o : list_field(j, "outputs"))
    k.outputs.push_back(KernelOutput{integer_field<int>(o, "value"), dtype_from_json(o.at("dtype"))});
  k.reduce_axes = integers_field<int>(j, "reduce_axes");
  k.keepdims = bool_field(j, "keepdims");
  // A malformed kernel is a bad file here, not a bug of lowering.
  try {
    k.validate();
  } catch (const InternalError& e) {
    throw IOError(e.what_part());
  }
  return k;
}

// The Composite of `kernel` writing output k into input inplace[k]: the variant make_inplace
// grants, output by output, so that a file cannot alias buffers tgc would keep apart.
std::shared_ptr<const Op> composite_from(Kernel kernel, const std::vector<int>& inplace) {
  const size_t nout = kernel.outputs.size();
  if (!inplace.empty() && inplace.size() != nout)
    throw IOError(fmt::format("a Composite's inplace map has {} entries for {} outputs", inplace.size(), nout));
  bool any = false;
  for (int i : inplace) any = any || i != -1;
  if (!any) return std::make_shared<const Composite>(std::move(kernel), inplace);  // [] or all -1, as written
  std::shared_ptr<const Op> op = std::make_shared<const Composite>(std::move(kernel));
  for (size_t k = 0; k < nout; ++k) {
    if (inplace[k] == -1) continue;
    std::shared_ptr<const Op> variant = op->make_inplace(static_cast<int>(k), inplace[k]);
    if (!variant)
      throw IOError(fmt::format("{} cannot write output {} into input {} in place", op->name(), k, inplace[k]));
    op = std::move(variant);
  }
  return op;
}

const bool registered = register_op_codec<Composite>(
    "Composite",
    [](const Composite& op, OpWriteContext&) {
      Json j = kernel_to_json(op.kernel());
      j["inplace"] = op.inplace_map();
      return j;
    },
    [](const Json& j, OpReadContext&) {
      return composite_from(kernel_from_json(j), integers_field<int>(j, "inplace"));
    });

}  // namespace

}  // namespace tgc
