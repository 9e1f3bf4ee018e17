// write_tg_program / save_tg (<tgc/save.h>, docs/save.md#as-a-tg-program): functions built
// with the C++ API written out as a .tg program that builds them again. Each function's graph
// as built (raw_graph: the outputs, then one value per update) becomes one assignment per node
// in execution order: operators and calls of the language where it has them, op(tag, fields,
// ...) through the op's codec otherwise (a gradient's SumToLike, a random draw), so every op
// with a codec can be written and the program reads back into the same graph. Shared values
// and constants of more than a few elements are .npy files beside the program, read by load().
#include <tgc/save.h>

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

#include "frontend/api/function_access.h"
#include "frontend/lang/builtins.h"
#include "ops/blas/dot.h"
#include "ops/core/graph.h"
#include "ops/core/op_codec.h"
#include "ops/elemwise/elemwise.h"
#include "ops/shape/dimshuffle.h"
#include "runtime/config.h"
#include "runtime/error.h"
#include "runtime/npy.h"

namespace tgc {

namespace {

constexpr int64_t kInlineElements = 16;  // constants up to this size are written as literals

// Ops written as the language's infix operators (by scalar op).
const std::map<std::string, std::string>& infix() {
  static const std::map<std::string, std::string> ops = {
      {"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"true_div", "/"}, {"floor_div", "//"}, {"mod", "%"},
      {"pow", "**"}, {"lt", "<"},  {"le", "<="}, {"gt", ">"},  {"ge", ">="},        {"eq", "=="}, {"neq", "!="}};
  return ops;
}

std::string literal(double v, DType dtype) {
  if (dtype == DType::Bool) return v != 0 ? "true" : "false";
  if (!is_float(dtype)) return fmt::format("{}", static_cast<int64_t>(v));
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);  // the shortest text that reads back as v
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// Nested lists of a small tensor's elements, in C order.
std::string nested(const Tensor& t, size_t dim, int64_t& flat, const std::vector<double>& values) {
  if (dim == t.shape().size()) return literal(values[static_cast<size_t>(flat++)], t.dtype());
  std::string s = "[";
  for (int64_t i = 0; i < t.shape()[dim]; ++i) s += (i ? ", " : "") + nested(t, dim + 1, flat, values);
  return s + "]";
}

// The context of an op written as op(tag, fields, ...): plain fields only. An op holding a
// tensor or a graph (a loop's step) has no text form yet.
class FieldsOnly final : public OpWriteContext {
 public:
  FieldsOnly(const Op& op, const Node& node) : op_(op), node_(node) {}
  Json tensor(const Tensor&) override { refuse("a tensor"); }
  Json graph(const std::vector<VarPtr>&, const std::vector<VarPtr>&) override { refuse("a graph (a loop's step)"); }

 private:
  [[noreturn]] void refuse(const char* what) const {
    throw ValueError(fmt::format("the op {} of node '{}' holds {} and cannot be written as .tg yet", op_.name(),
                                 node_.describe(), what),
                     "write_tg_program", "save the function with save() instead: a saved file holds every op");
  }
  const Op& op_;
  const Node& node_;
};

class Writer {
 public:
  explicit Writer(std::string prefix) : prefix_(std::move(prefix)) {}

  void function(const Function& f) {
    const Graph& g = f.raw_graph();
    std::unordered_map<const Variable*, std::string> names;
    auto name_of = [&](const Variable* v) -> std::string {
      auto it = names.find(v);
      TGC_INTERNAL_CHECK(it != names.end(), "a variable written before its definition");
      return it->second;
    };
    out_ += fmt::format("\n# {}\n", f.name());
    std::vector<std::string> inputs;
    for (const VarPtr& in : g.inputs()) {
      const std::string n = fresh(in->name().empty() ? "x" : in->name());
      names[in.get()] = n;
      inputs.push_back(n);
      std::string shape = "(";
      for (size_t d = 0; d < in->type().shape.size(); ++d) {
        const int64_t s = in->type().shape[d];
        shape += (d ? ", " : "") + (s == kUnknownDim ? std::string("None") : std::to_string(s));
      }
      shape += in->type().shape.size() == 1 ? ",)" : ")";
      out_ += fmt::format("{} = tensor('{}', shape={}, name={})\n", n, dtype_name(in->type().dtype), shape,
                          quoted(in->name().empty() ? n : in->name()));
    }
    for (Node* node : g.toposort()) {
      for (const VarPtr& in : node->inputs())
        if (!in->owner() && !names.count(in.get())) names[in.get()] = root(*in);
      std::vector<std::string> args;
      for (const VarPtr& in : node->inputs()) args.push_back(name_of(in.get()));
      std::vector<std::string> outs;
      for (int k = 0; k < node->num_outputs(); ++k) {
        const Variable* o = node->output_raw(k);
        outs.push_back(fresh(o->name().empty() ? "t" : o->name()));
        names[o] = outs.back();
      }
      std::string lhs;
      for (size_t k = 0; k < outs.size(); ++k) lhs += (k ? ", " : "") + outs[k];
      out_ += fmt::format("{} = {}\n", lhs, expression(*node, args));
    }
    for (const VarPtr& o : g.outputs())
      if (!o->owner() && !names.count(o.get())) names[o.get()] = root(*o);
    std::string results, updates;
    for (size_t i = 0; i < f.num_outputs(); ++i) results += (i ? ", " : "") + name_of(g.outputs()[i].get());
    const std::vector<std::shared_ptr<SharedValue>>& targets = FunctionAccess::update_targets(f);
    for (size_t u = 0; u < targets.size(); ++u)
      updates += fmt::format("{}({}, {})", u ? ", " : "", shared_name(targets[u]),
                             name_of(g.outputs()[f.num_outputs() + u].get()));
    std::string options = fmt::format("name={}", quoted(f.name()));
    if (!updates.empty()) options = fmt::format("updates=[{}], ", updates) + options;
    if (f.config().mixed_precision == "bfloat16") options += ", mixed_precision=\"bfloat16\"";
    std::string inputs_list;
    for (size_t i = 0; i < inputs.size(); ++i) inputs_list += (i ? ", " : "") + inputs[i];
    out_ += fmt::format("{} = function([{}], [{}], {})\n", fresh(f.name()), inputs_list, results, options);
  }

  TgProgramText finish() {
    std::string head = fmt::format("# A .tg program written by tgc {} (write_tg_program) from graphs built with the C++ API.\n"
                                   "# Its arrays are the .npy files {}*.npy beside it. floatX when written: {}.\n",
                                   version(), std::filesystem::path(prefix_).filename().string(),
                                   dtype_name(global_config().floatX));
    return TgProgramText{head + shared_defs_ + out_, std::move(arrays_)};
  }

 private:
  static std::string quoted(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') q += '\\';
      q += c;
    }
    return q + "\"";
  }

  // A name of the program's own: the variable's, made an identifier and unique.
  std::string fresh(const std::string& wanted) {
    std::string base;
    for (char c : wanted) base += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
    if (lang::find_builtin(base) || base == "inf" || base == "nan" || base == "pi" || base == "newaxis" ||
        base == "floatX" || base == "true" || base == "false" || base == "None" || base == "lambda")
      base += "_";
    std::string name = base;
    for (int k = 1; !used_.insert(name).second; ++k) name = fmt::format("{}_{}", base, k);
    return name;
  }

  std::string array_file(const std::string& what, const Tensor& value) {
    const std::string file = fmt::format("{}_{}.npy", prefix_, what);
    arrays_.emplace_back(file, value.to_host());
    return std::filesystem::path(file).filename().string();
  }

  std::string shared_name(const std::shared_ptr<SharedValue>& s) {
    if (auto it = shared_.find(s.get()); it != shared_.end()) return it->second;
    const std::string n = fresh(s->name().empty() ? "shared" : s->name());
    shared_[s.get()] = n;
    shared_defs_ += fmt::format("{} = shared(load(\"{}\"), name={})\n", n, array_file(n, s->current()),
                                quoted(s->name()));
    return n;
  }

  // A root variable: a shared variable (defined once for the program) or a constant.
  std::string root(const Variable& v) {
    if (v.kind() == Variable::Kind::Shared) return shared_name(v.storage());
    TGC_INTERNAL_CHECK(v.kind() == Variable::Kind::Constant, "an input outside the function's inputs");
    const Tensor& t = v.constant_value();
    const std::string n = fresh(v.name().empty() ? "c" : v.name());
    if (t.numel() <= kInlineElements) {
      std::vector<double> values = t.astype(DType::Float64).contiguous().to_vector<double>();
      if (!is_float(t.dtype()) && t.dtype() != DType::Bool) {
        // Integers beyond a double's 53 bits: exact through the file.
        for (double x : values)
          if (std::fabs(x) >= 9007199254740992.0) return define_loaded(n, t);
      }
      int64_t flat = 0;
      out_ += fmt::format("{} = array({}, dtype='{}')\n", n, nested(t, 0, flat, values), dtype_name(t.dtype()));
    } else {
      return define_loaded(n, t);
    }
    return n;
  }

  std::string define_loaded(const std::string& n, const Tensor& t) {
    out_ += fmt::format("{} = load(\"{}\")\n", n, array_file(n, t));
    return n;
  }

  // The node's right-hand side: the language's own spelling where it has one for exactly this
  // op, op(tag, fields, ...) otherwise.
  std::string expression(const Node& node, const std::vector<std::string>& args) {
    const Op& op = node.op();
    if (const auto* e = dynamic_cast<const Elemwise*>(&op); e && e->inplace_input(0) < 0) {
      const std::string name(scalar_op_name(e->kind()));
      // The call the language makes builds this very op (its floatX included).
      const Elemwise plain(e->kind(), e->cast_to(), global_config().floatX);
      if (plain.equals(*e) && plain.floatx() == e->floatx()) {
        if (e->cast_to()) return fmt::format("cast({}, '{}')", args[0], dtype_name(*e->cast_to()));
        if (auto it = infix().find(name); it != infix().end() && args.size() == 2)
          return fmt::format("{} {} {}", args[0], it->second, args[1]);
        if (name == "neg" && args.size() == 1) return "-" + args[0];
        if (const lang::Builtin* b = lang::find_builtin(name); b && b->params.size() == args.size()) {
          std::string call = name + "(";
          for (size_t i = 0; i < args.size(); ++i) call += (i ? ", " : "") + args[i];
          return call + ")";
        }
      }
    }
    if (dynamic_cast<const Dot*>(&op) && op.user_name() == "dot") return fmt::format("dot({}, {})", args[0], args[1]);
    if (const auto* d = dynamic_cast<const DimShuffle*>(&op); d && d->user_name() == "dimshuffle") {
      std::string call = "dimshuffle(" + args[0];
      for (int64_t p : d->pattern()) call += p < 0 ? std::string(", 'x'") : ", " + std::to_string(p);
      return call + ")";
    }
    FieldsOnly fields(op, node);
    const Json j = write_op(op, fields);
    std::string call = fmt::format("op('{}', '{}'", j.at("op").get<std::string>(), j.at("fields").dump());
    for (const std::string& a : args) call += ", " + a;
    return call + ")";
  }

  std::string prefix_;
  std::string out_, shared_defs_;
  std::set<std::string> used_;
  std::unordered_map<const SharedValue*, std::string> shared_;
  std::vector<std::pair<std::string, Tensor>> arrays_;
};

}  // namespace

TgProgramText write_tg_program(const std::vector<const Function*>& functions, const std::string& array_prefix) {
  Writer w(array_prefix);
  for (const Function* f : functions) {
    if (!f) throw InputError("a null function pointer", "write_tg_program", "pass the address of a Function");
    w.function(*f);
  }
  return w.finish();
}

void save_tg(const std::vector<const Function*>& functions, const std::string& path) {
  const std::filesystem::path p(path);
  const std::string stem = (p.parent_path() / p.stem()).string();
  TgProgramText program = write_tg_program(functions, stem);
  for (const auto& [file, value] : program.arrays) write_npy(file, value);
  std::ofstream out(path);
  if (!(out << program.source))
    throw IOError(fmt::format("cannot write '{}'", path), "save_tg", "check the path and its permissions");
}

}  // namespace tgc
