// Op codecs: every op class written to, and read back from, a saved function
// (docs/save.md). A codec turns an op's parameters into a JSON object and back; the op's
// class is named by a stable tag ("Elemwise", "Gemm"), never by a C++ type name, so files
// survive refactors that keep the tags. Each op family registers its codecs at load time in
// its own codec.cpp (ops/<family>/codec.cpp, compiler/kernel/composite_codec.cpp, ...), beside
// its grad.cpp: an op class without a codec cannot be saved, and saving says which one.
//
// What an op holds beyond plain fields (a constant tensor, a loop's step graph) goes through
// the context, which the graph codec (compiler/serialize/graph_codec.h) implements: tensors
// become blobs of the file, graphs are written with the same codecs recursively.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeindex>
#include <utility>
#include <vector>

#include "ops/core/op.h"
#include "ops/elemwise/scalar_op.h"

namespace tgc {

using Json = nlohmann::json;

class Variable;
using VarPtr = std::shared_ptr<Variable>;

// What a codec's writer may store besides JSON fields.
class OpWriteContext {
 public:
  virtual ~OpWriteContext() = default;
  // A tensor the op holds (any device); returns the reference to store in the op's fields.
  virtual Json tensor(const Tensor& value) = 0;
  // A graph the op holds (a loop's step): its inputs and outputs, written with every node
  // between them; returns the reference to store.
  virtual Json graph(const std::vector<VarPtr>& inputs, const std::vector<VarPtr>& outputs) = 0;
};

// What a codec's reader may ask for: the objects the writer's references name.
class OpReadContext {
 public:
  virtual ~OpReadContext() = default;
  virtual Tensor tensor(const Json& ref) = 0;  // a host tensor
  struct Subgraph {
    std::vector<VarPtr> inputs, outputs;
  };
  virtual Subgraph graph(const Json& ref) = 0;
};

using OpFieldsWriter = std::function<Json(const Op&, OpWriteContext&)>;
using OpFieldsReader = std::function<std::shared_ptr<const Op>(const Json&, OpReadContext&)>;

struct OpCodec {
  std::string tag;       // the class's name in files: stable, unique
  OpFieldsWriter write;  // the op's parameters as a JSON object ({} when it has none)
  OpFieldsReader read;   // the op from those fields; throws (any exception) on bad fields
};

// Registers the codec of the op class `type`. Called at load time; returns true so that a
// codec.cpp registers with `const bool registered = register_op_codec<...>(...)`. A second
// codec for a class or a tag is an InternalError.
bool register_op_codec(std::type_index type, OpCodec codec);

// The typed form: `write` receives the op as its own class.
template <class T>
bool register_op_codec(std::string tag, std::function<Json(const T&, OpWriteContext&)> write, OpFieldsReader read) {
  return register_op_codec(std::type_index(typeid(T)),
                           OpCodec{std::move(tag),
                                   [write = std::move(write)](const Op& op, OpWriteContext& ctx) {
                                     return write(static_cast<const T&>(op), ctx);
                                   },
                                   std::move(read)});
}

// {"op": tag, "fields": {...}}. An op class without a codec is a ValueError naming it (a
// test's own op, a collective over a group that only lives in this process...).
Json write_op(const Op& op, OpWriteContext& ctx);
// The op `j` describes. An unknown tag or bad fields throw IOError naming the tag and the
// problem; the caller adds the file and the node.
std::shared_ptr<const Op> read_op(const Json& j, OpReadContext& ctx);
// Whether write_op can write `op` (a codec is registered for its exact class).
bool has_op_codec(const Op& op);
// Every registered tag, sorted (tgc's tests check that each op class has one).
std::vector<std::string> op_codec_tags();

// IOError("the field 'F' holds no WANT: <the JSON, shortened>").
[[noreturn]] void throw_bad_field(std::string_view field, std::string_view want, const Json& got);

// Strict readers of a codec's fields. nlohmann's get<int>() would take 1.5, true or "1" and
// wrap a number out of range; these refuse them with an IOError naming the field, so a
// damaged file never becomes an op with a wrapped-around parameter.
template <class I>
I integer_from_json(const Json& j, std::string_view field) {
  if (j.is_number_unsigned() && std::in_range<I>(j.get<uint64_t>())) return static_cast<I>(j.get<uint64_t>());
  if (j.is_number_integer() && !j.is_number_unsigned() && std::in_range<I>(j.get<int64_t>()))
    return static_cast<I>(j.get<int64_t>());
  throw_bad_field(field, "integer in range", j);
}
template <class I>
I integer_field(const Json& fields, const char* key) {
  return integer_from_json<I>(fields.at(key), key);
}
template <class I>
std::vector<I> integers_field(const Json& fields, const char* key) {
  const Json& j = fields.at(key);
  if (!j.is_array()) throw_bad_field(key, "list of integers", j);
  std::vector<I> out;
  out.reserve(j.size());
  for (const Json& e : j) out.push_back(integer_from_json<I>(e, key));
  return out;
}
// A list of exactly N integers (a kernel's 2-d sizes, a 4-way padding).
template <class I, size_t N>
std::array<I, N> fixed_integers_field(const Json& fields, const char* key) {
  const std::vector<I> v = integers_field<I>(fields, key);
  if (v.size() != N) throw_bad_field(key, "list of " + std::to_string(N) + " integers", fields.at(key));
  std::array<I, N> out{};
  std::copy(v.begin(), v.end(), out.begin());
  return out;
}
// The field's list (of objects a codec reads one by one).
const Json& list_field(const Json& fields, const char* key);
bool bool_field(const Json& fields, const char* key);
std::string string_field(const Json& fields, const char* key);
// A double: a finite value as a JSON number (printed so that it reads back to the same bits,
// -0.0 included), the others as "inf", "-inf", "nan" or "-nan" (JSON has no such numbers; a
// NaN keeps its sign, not its payload).
Json number_to_json(double v);
double number_from_json(const Json& j, std::string_view field);
inline double number_field(const Json& fields, const char* key) { return number_from_json(fields.at(key), key); }
// Field helpers shared by the codecs.
Json dtype_to_json(DType dtype);  // "float32"
DType dtype_from_json(const Json& j);
DType float_dtype_field(const Json& fields, const char* key);  // a float dtype: an op's floatX
Json optional_dtype_to_json(const std::optional<DType>& dtype);  // null when absent
std::optional<DType> optional_dtype_from_json(const Json& j);
Json type_to_json(const Type& type);  // {"dtype": "float32", "shape": [-1, 3]}
Type type_from_json(const Json& j);
Json scalar_op_to_json(ScalarOpKind kind);  // "add"
ScalarOpKind scalar_op_from_json(const Json& j);

}  // namespace tgc
