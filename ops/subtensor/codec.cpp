// Codecs of the subtensor family (ops/core/op_codec.h): Subtensor, AdvancedSubtensor and
// IncSubtensor, over one JSON form of their IndexSpec.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "ops/core/op_codec.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/index_spec.h"
#include "ops/subtensor/subtensor.h"
#include "runtime/error.h"

namespace tgc {
namespace {

// An index entry: {"kind": "int", "index": -1}, {"kind": "slice", "start": 1, "stop": null,
// "step": -2} (null: NumPy's default), {"kind": "newaxis"}, {"kind": "array"} (the op's next
// index input).
Json index_entry_to_json(const IndexEntry& e) {
  auto part = [](const std::optional<int64_t>& v) { return v ? Json(*v) : Json(); };
  switch (e.kind) {
    case IndexEntry::Kind::Int: return Json{{"kind", "int"}, {"index", e.index}};
    case IndexEntry::Kind::Slice:
      return Json{{"kind", "slice"}, {"start", part(e.start)}, {"stop", part(e.stop)}, {"step", part(e.step)}};
    case IndexEntry::Kind::NewAxis: return Json{{"kind", "newaxis"}};
    case IndexEntry::Kind::Array: return Json{{"kind", "array"}};
  }
  TGC_INTERNAL_CHECK(false, "an index entry of unknown kind");
  return Json();
}

IndexEntry index_entry_from_json(const Json& j) {
  const std::string kind = string_field(j, "kind");
  if (kind == "int") return IndexEntry::integer(integer_field<int64_t>(j, "index"));
  if (kind == "newaxis") return IndexEntry::new_axis();
  if (kind == "array") return IndexEntry::array();
  if (kind != "slice") throw IOError("an index entry has the unknown kind '" + kind + "'");
  auto part = [&](const char* key) -> std::optional<int64_t> {
    const Json& v = j.at(key);  // present, null when absent from the slice
    if (v.is_null()) return std::nullopt;
    return integer_from_json<int64_t>(v, key);
  };
  IndexEntry e = IndexEntry::slice(part("start"), part("stop"), part("step"));
  if (e.step == 0) throw IOError("an index entry is a slice of step 0: " + j.dump());
  return e;
}

// The entries in order.
Json index_spec_to_json(const IndexSpec& spec) {
  Json out = Json::array();
  for (const IndexEntry& e : spec.entries) out.push_back(index_entry_to_json(e));
  return out;
}

IndexSpec index_spec_from_json(const Json& j) {
  if (!j.is_array()) throw IOError("an index is not a list of entries: " + j.dump());
  IndexSpec spec;
  for (const Json& e : j) spec.entries.push_back(index_entry_from_json(e));
  return spec;
}

Json write_subtensor(const Subtensor& op, OpWriteContext&) { return Json{{"index", index_spec_to_json(op.spec())}}; }
std::shared_ptr<const Op> read_subtensor(const Json& f, OpReadContext&) {
  IndexSpec spec = index_spec_from_json(f.at("index"));
  if (spec.has_arrays()) throw IOError("a Subtensor's index holds index arrays: " + spec.str());
  return std::make_shared<Subtensor>(std::move(spec));
}

Json write_advanced_subtensor(const AdvancedSubtensor& op, OpWriteContext&) {
  return Json{{"index", index_spec_to_json(op.spec())}};
}
std::shared_ptr<const Op> read_advanced_subtensor(const Json& f, OpReadContext&) {
  IndexSpec spec = index_spec_from_json(f.at("index"));
  if (!spec.has_arrays()) throw IOError("an AdvancedSubtensor's index holds no index array: " + spec.str());
  return std::make_shared<AdvancedSubtensor>(std::move(spec));
}

// mode "set" or "inc"; inplace: the variant the inplace pass made, writing into x's buffer.
Json write_inc_subtensor(const IncSubtensor& op, OpWriteContext&) {
  return Json{{"mode", op.mode() == IncSubtensor::Mode::Set ? "set" : "inc"},
              {"index", index_spec_to_json(op.spec())},
              {"inplace", op.inplace()}};
}
std::shared_ptr<const Op> read_inc_subtensor(const Json& f, OpReadContext&) {
  const std::string mode = string_field(f, "mode");
  if (mode != "set" && mode != "inc") throw IOError("an IncSubtensor has the unknown mode '" + mode + "'");
  return std::make_shared<IncSubtensor>(mode == "set" ? IncSubtensor::Mode::Set : IncSubtensor::Mode::Inc,
                                        index_spec_from_json(f.at("index")), bool_field(f, "inplace"));
}

[[maybe_unused]] const bool registered =
    register_op_codec<Subtensor>("Subtensor", write_subtensor, read_subtensor) &&
    register_op_codec<AdvancedSubtensor>("AdvancedSubtensor", write_advanced_subtensor, read_advanced_subtensor) &&
    register_op_codec<IncSubtensor>("IncSubtensor", write_inc_subtensor, read_inc_subtensor);

}  // namespace
}  // namespace tgc
