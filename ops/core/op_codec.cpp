// The op-codec registry (ops/core/op_codec.h): one table from C++ class to tag and from tag
// to reader, filled at load time by the families' codec.cpp files.
#include "ops/core/op_codec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>

#include "runtime/error.h"

namespace tgc {

namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<std::type_index, OpCodec> by_type;
  std::map<std::string, const OpCodec*> by_tag;
};

Registry& registry() {
  static Registry r;
  return r;
}

const OpCodec* codec_of(const Op& op) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_type.find(std::type_index(typeid(op)));
  return it == r.by_type.end() ? nullptr : &it->second;
}

}  // namespace

bool register_op_codec(std::type_index type, OpCodec codec) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  TGC_INTERNAL_CHECK(!r.by_tag.count(codec.tag), "two op codecs are registered for the tag " + codec.tag);
  auto [it, inserted] = r.by_type.emplace(type, std::move(codec));
  TGC_INTERNAL_CHECK(inserted, "two op codecs are registered for the op class of tag " + it->second.tag);
  r.by_tag[it->second.tag] = &it->second;  // unordered_map keeps its elements' addresses
  return true;
}

Json write_op(const Op& op, OpWriteContext& ctx) {
  const OpCodec* codec = codec_of(op);
  if (!codec)
    throw ValueError("the op " + op.name() + " (" + op.op_class() + ") cannot be saved: its class has no codec", "save",
                     "only tgc's own ops are saved; a function using ops of its own (or of a test) cannot be");
  Json fields = codec->write(op, ctx);
  if (fields.is_null()) fields = Json::object();
  return Json{{"op", codec->tag}, {"fields", std::move(fields)}};
}

std::shared_ptr<const Op> read_op(const Json& j, OpReadContext& ctx) {
  if (!j.is_object() || !j.contains("op") || !j["op"].is_string())
    throw IOError("an op entry has no tag: " + j.dump().substr(0, 200));
  const std::string tag = j["op"].get<std::string>();
  const OpCodec* codec = nullptr;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.by_tag.find(tag);
    if (it != r.by_tag.end()) codec = it->second;
  }
  if (!codec)
    throw IOError("the op '" + tag + "' is not known to this tgc", "", "the file was written by another tgc version");
  static const Json empty = Json::object();
  const Json& fields = j.contains("fields") ? j["fields"] : empty;
  try {
    std::shared_ptr<const Op> op = codec->read(fields, ctx);
    TGC_INTERNAL_CHECK(op != nullptr, "the codec of " + tag + " read no op");
    return op;
  } catch (const Json::exception& e) {
    throw IOError("the op '" + tag + "' has bad fields (" + e.what() + "): " + fields.dump().substr(0, 200));
  } catch (const IOError& e) {
    throw IOError("the op '" + tag + "' has bad fields: " + std::string(e.what()));
  } catch (const Error& e) {
    // The op's constructor refused the fields (a TypeError, a ValueError...): the file is bad.
    throw IOError("the op '" + tag + "' could not be made from its fields: " + std::string(e.what()));
  }
}

bool has_op_codec(const Op& op) { return codec_of(op) != nullptr; }

std::vector<std::string> op_codec_tags() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> tags;
  for (const auto& [tag, codec] : r.by_tag) tags.push_back(tag);
  return tags;
}

void throw_bad_field(std::string_view field, std::string_view want, const Json& got) {
  std::string text = got.dump();
  if (text.size() > 200) text = text.substr(0, 200) + "...";
  throw IOError("the field '" + std::string(field) + "' holds no " + std::string(want) + ": " + text);
}

bool bool_field(const Json& fields, const char* key) {
  const Json& j = fields.at(key);
  if (!j.is_boolean()) throw_bad_field(key, "true or false", j);
  return j.get<bool>();
}

std::string string_field(const Json& fields, const char* key) {
  const Json& j = fields.at(key);
  if (!j.is_string()) throw_bad_field(key, "string", j);
  return j.get<std::string>();
}

const Json& list_field(const Json& fields, const char* key) {
  const Json& j = fields.at(key);
  if (!j.is_array()) throw_bad_field(key, "list", j);
  return j;
}

Json number_to_json(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double number_from_json(const Json& j, std::string_view field) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "-nan") return -std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  throw_bad_field(field, "number", j);
}

Json dtype_to_json(DType dtype) { return std::string(dtype_name(dtype)); }

DType dtype_from_json(const Json& j) {
  if (!j.is_string()) throw IOError("a dtype is not a string: " + j.dump());
  return parse_dtype(j.get<std::string>());
}

DType float_dtype_field(const Json& fields, const char* key) {
  const DType dtype = dtype_from_json(fields.at(key));
  if (!is_float(dtype)) throw_bad_field(key, "float dtype", fields.at(key));
  return dtype;
}

Json optional_dtype_to_json(const std::optional<DType>& dtype) { return dtype ? dtype_to_json(*dtype) : Json(); }

std::optional<DType> optional_dtype_from_json(const Json& j) {
  if (j.is_null()) return std::nullopt;
  return dtype_from_json(j);
}

Json type_to_json(const Type& type) { return Json{{"dtype", dtype_to_json(type.dtype)}, {"shape", type.shape}}; }

Type type_from_json(const Json& j) {
  Type t(dtype_from_json(j.at("dtype")), j.at("shape").get<std::vector<int64_t>>());
  for (int64_t d : t.shape)
    if (d < kUnknownDim) throw IOError("a type has a negative dim: " + j.dump());
  return t;
}

Json scalar_op_to_json(ScalarOpKind kind) { return std::string(scalar_op_name(kind)); }

ScalarOpKind scalar_op_from_json(const Json& j) {
  if (!j.is_string()) throw IOError("a scalar op is not a string: " + j.dump());
  const std::string name = j.get<std::string>();
  const std::optional<ScalarOpKind> kind = find_scalar_op(name);
  if (!kind) throw IOError("the scalar op '" + name + "' is not known to this tgc");
  return *kind;
}

}  // namespace tgc
