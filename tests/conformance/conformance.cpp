// The conformance harness: compile a case on the backend under test and on the reference,
// run both on every argument set, compare. Also instantiates the one suite per backend.
#include "conformance/conformance.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "backends/backend_registry.h"
#include "compiler/kernel/composite_op.h"
#include "compiler/serialize/graph_codec.h"
#include "frontend/api/backend_choice.h"
#include "frontend/api/eager/eager_run.h"
#include "ops/core/graph.h"
#include "runtime/error.h"
#include "support/op_test_util.h"

namespace tgc::conformance {

std::vector<std::string> suite_backends() { return built_backends(); }

namespace {

// The kernel cache of this process's functions, created on first use and removed when the
// run ends (CountsPrinter below): every run compiles what it checks.
std::string& cache_dir_path() {
  static std::string dir;
  return dir;
}

const std::string& cache_dir() {
  std::string& dir = cache_dir_path();
  if (dir.empty()) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tgc-conformance-XXXXXX").string();
    TGC_INTERNAL_CHECK(mkdtemp(tmpl.data()) != nullptr, "cannot create a temporary kernel cache directory");
    dir = tmpl;
  }
  return dir;
}

std::vector<std::pair<std::string, CaseFamily>>& family_list() {
  static std::vector<std::pair<std::string, CaseFamily>> list;
  return list;
}

}  // namespace

bool register_family(const std::string& name, CaseFamily build) {
  family_list().emplace_back(name, build);
  return true;
}

const std::vector<std::pair<std::string, CaseFamily>>& families() { return family_list(); }

Counts& counts(const std::string& backend) {
  static std::map<std::string, Counts> all;
  return all[backend];
}

namespace {

// What a call gave: its results, or the error it raised (class and message without the
// location, which names the node that failed: an Elemwise in one graph, a Composite in the other).
struct Outcome {
  std::vector<Tensor> results;
  std::string error;  // "" when the call succeeded
};

std::string error_class(const Error& e) {
  if (dynamic_cast<const TypeError*>(&e)) return "TypeError";
  if (dynamic_cast<const ShapeError*>(&e)) return "ShapeError";
  if (dynamic_cast<const ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const InputError*>(&e)) return "InputError";
  if (dynamic_cast<const ConfigError*>(&e)) return "ConfigError";
  if (dynamic_cast<const IOError*>(&e)) return "IOError";
  if (dynamic_cast<const InternalError*>(&e)) return "InternalError";
  return "Error";
}

Outcome call(Function& f, const std::vector<Tensor>& args) {
  Outcome out;
  try {
    out.results = f(args);
  } catch (const Error& e) {
    out.error = error_class(e) + ": " + e.what_part();
  } catch (const std::exception& e) {
    out.error = std::string("std::exception: ") + e.what();
  }
  return out;
}

std::string args_str(const Case& c, const std::vector<Tensor>& args) {
  std::string s;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string name = i < c.inputs.size() ? c.inputs[i].name() : "?";
    s += "  " + name + " = " + std::string(dtype_name(args[i].dtype())) + " " + shape_str(args[i].shape()) +
         " strides " + shape_str(args[i].strides()) + ": " + args[i].str() + "\n";
  }
  return s;
}

::testing::AssertionResult compare(const Tensor& got, const Tensor& want, const Tolerance& tol) {
  if (want.dtype() == DType::Float32) return test::same_values(got, want, tol.rtol32, tol.atol32);
  if (want.dtype() == DType::Float64) return test::same_values(got, want, tol.rtol64, tol.atol64);
  if (is_half(want.dtype())) {
    const bool f16 = want.dtype() == DType::Float16;
    const double eps = f16 ? 0x1p-10 : 0x1p-7, tiny = f16 ? 0x1p-24 : 0x1p-133;
    return test::same_values(got, want, tol.half_ulps * eps, tol.half_atol + tiny);
  }
  return test::same_values(got, want);
}

// Whether the case's graph reads a shared variable (a random draw's state): such graphs have
// no eager form (eager operations take tensors only).
bool reads_shared(const Case& c) {
  std::vector<const Variable*> todo;
  std::set<const Variable*> seen;
  for (const Var& out : c.outputs) todo.push_back(out.ptr().get());
  while (!todo.empty()) {
    const Variable* v = todo.back();
    todo.pop_back();
    if (!seen.insert(v).second) continue;
    if (v->kind() == Variable::Kind::Shared) return true;
    if (v->kind() == Variable::Kind::Result)
      for (const VarPtr& in : v->owner()->inputs()) todo.push_back(in.get());
  }
  return false;
}

// The device a backend's eager operations run on: the GPU of cuda/opencl, else the host.
Device& eager_device(const std::string& backend) {
  return backend == "cuda" || backend == "opencl" ? device_by_name(backend) : host_device();
}

// The case as an eager computation (frontend/api/eager/): the case's inputs are the leaves of
// a recorded graph, bound to the arguments placed on the backend's device, computed through
// the eager layer's compiled-call cache with device results.
Outcome call_eager(const std::string& backend, const Case& c, const std::vector<Tensor>& args,
                   const std::map<std::string, std::string>& config) {
  Outcome out;
  try {
    ForcedBackendForTests force(backend);
    Device& dev = eager_device(backend);
    std::vector<eager_impl::Leaf> leaves;
    for (size_t i = 0; i < args.size(); ++i)
      leaves.push_back({c.inputs[i].ptr(), &dev == &host_device() ? args[i] : args[i].to(dev)});
    for (Tensor& t : eager_impl::run_recorded(c.outputs, leaves, dev, config)) out.results.push_back(t.to_host());
  } catch (const Error& e) {
    out.error = error_class(e) + ": " + e.what_part();
  } catch (const std::exception& e) {
    out.error = std::string("std::exception: ") + e.what();
  }
  return out;
}

// Every graph the suite compiles also goes through the graph codec of saved functions
// (docs/save.md) and must come back listing the same nodes: each op of each case, as the
// optimizer left it for each backend, has a codec that keeps it. "" when it does, or when the
// graph holds an op a file refuses by design (a collective, a CUDA source op).
std::string codec_round_trip(const Graph& g) {
  GraphWriter writer;
  Json text;
  try {
    text = Json::parse(writer.write(g).dump());
  } catch (const ValueError& e) {
    const std::string what = e.what();
    if (what.find("collective") != std::string::npos || what.find("CUDA source op") != std::string::npos) return "";
    return "cannot be saved: " + what;
  }
  try {
    GraphReader reader(Json::parse(writer.shared_table().dump()),
                       [&](size_t i) { return std::string_view(writer.blobs().at(i)); });
    const Graph back = reader.read_graph(text);
    if (back.str() != g.str()) return "reads back as another graph:\n" + back.str();
  } catch (const std::exception& e) {
    return std::string("does not read back: ") + e.what();
  }
  return "";
}

}  // namespace

std::string check_case(const std::string& backend, const Case& c) {
  Counts& n = counts(backend);
  ++n.cases;
  const std::string header = "case " + c.name + " on backend " + backend + ": ";

  FunctionOptions ref_options{.name = c.name + " (reference)", .config = c.config};
  ref_options.config["optimizer"] = "none";
  FunctionOptions options{.name = c.name + " (" + backend + ")", .config = c.config};
  // A fresh kernel cache: every run compiles what it checks (no entry of an earlier run).
  options.config["cache_dir"] = cache_dir();
  if (std::string a = assert_no_cpu_op_for(backend, c); !a.empty()) options.config["assert_no_cpu_op"] = a;

  std::optional<Function> ref, f;
  try {
    ForcedBackendForTests force("reference");
    if (c.reference_inputs.empty()) ref.emplace(function(c.inputs, c.outputs, {}, ref_options));
    else ref.emplace(function(c.reference_inputs, c.reference_outputs, {}, ref_options));
  } catch (const std::exception& e) {
    return header + "the reference does not compile (a test bug): " + e.what();
  }
  try {
    ForcedBackendForTests force(backend);
    f.emplace(function(c.inputs, c.outputs, {}, options));
  } catch (const std::exception& e) {
    return header + "does not compile: " + e.what() + "\ngraph:\n" + ref->graph().str();
  }
  if (std::string bad = codec_round_trip(f->graph()); !bad.empty())
    return header + "its optimized graph " + bad + "\ngraph:\n" + f->graph().str();
  for (Node* node : f->graph().toposort()) {
    const auto* composite = dynamic_cast<const Composite*>(&node->op());
    if (!composite) continue;
    ++n.composites;
    n.kernels.insert(composite->kernel().hash());
    for (const KernelValue& v : composite->kernel().values)
      if (v.kind == KernelValue::Kind::Op) ++n.kernel_ops[v.op];
  }

  auto graphs = [&] {
    return "graph (optimizer=none):\n" + ref->graph().str() + "graph (optimized, " + backend + "):\n" +
           f->graph().str();
  };
  const bool has_eager_form = !reads_shared(c);
  for (size_t k = 0; k < c.arg_sets.size(); ++k) {
    const std::vector<Tensor>& args = c.arg_sets[k];
    ++n.calls;
    Outcome want;
    if (c.reference_inputs.empty()) {
      want = call(*ref, args);
    } else {
      std::vector<Tensor> wide;
      for (size_t i = 0; i < args.size(); ++i) wide.push_back(args[i].astype(c.reference_inputs[i].ptr()->type().dtype));
      want = call(*ref, wide);
      for (size_t o = 0; o < want.results.size() && o < c.outputs.size(); ++o)
        if (want.results[o].defined()) want.results[o] = want.results[o].astype(c.outputs[o].ptr()->type().dtype);
    }
    Outcome got = call(*f, args);
    // The finding first, then the arguments and the graphs (pages of them for a large case): the
    // first lines of a report say what differed, even where only they are read (a GPU run's log).
    const std::string where = header + "argument set " + std::to_string(k) + ": ";
    auto graphs_and_args = [&] { return "arguments:\n" + args_str(c, args) + graphs(); };
    if (has_eager_form) {
      // The eager form gives what function() gives: the same values or the same error.
      Outcome eager = call_eager(backend, c, args, options.config);
      if (eager.error != got.error)
        return where + "the eager form " + (eager.error.empty() ? std::string("raises nothing") : "raises " + eager.error) +
               "; function() " + (got.error.empty() ? std::string("raises nothing") : "raises " + got.error) + "\n" + graphs_and_args();
      for (size_t o = 0; o < eager.results.size() && o < got.results.size(); ++o)
        if (auto same = compare(eager.results[o], got.results[o], tolerance_on(backend, o < c.tolerances.size() ? c.tolerances[o] : c.tolerance)); !same)
          return where + "output " + std::to_string(o) + " of the eager form differs from function()'s: " + same.message() +
                 "\neager      " + eager.results[o].str() + "\nfunction() " + got.results[o].str() + "\n" + graphs_and_args();
    }
    if (want.error != got.error) {
      if (want.error.empty()) return where + "raises " + got.error + "\n" + graphs_and_args();
      return where + "the reference raises " + want.error + "\nthe backend " +
             (got.error.empty() ? std::string("raises nothing") : "raises " + got.error) + "\n" + graphs_and_args();
    }
    if (!want.error.empty()) continue;  // both raise the same error
    if (got.results.size() != want.results.size()) return where + "wrong number of outputs\n" + graphs_and_args();
    for (size_t o = 0; o < want.results.size(); ++o) {
      if (!want.results[o].defined())
        return where + "the reference's output " + std::to_string(o) + " is undefined\n" + graphs_and_args();
      if (!got.results[o].defined()) return where + "output " + std::to_string(o) + " is undefined\n" + graphs_and_args();
    }
    for (size_t o = 0; o < want.results.size(); ++o) {
      const Tolerance tol = tolerance_on(backend, o < c.tolerances.size() ? c.tolerances[o] : c.tolerance);
      if (auto same = compare(got.results[o], want.results[o], tol); !same)
        return where + "output " + std::to_string(o) +
               (c.outputs[o].name().empty() ? std::string() : " (" + c.outputs[o].name() + ")") + ": " +
               same.message() + "\ngot      " + got.results[o].str() + "\nexpected " + want.results[o].str() + "\n" +
               graphs_and_args();
    }
  }
  return "";
}

const std::vector<SkipEntry>& device_skip_list() {
  static const std::vector<SkipEntry> list = [] {
    std::vector<SkipEntry> out;
    const std::string path = std::string(TGC_CONFORMANCE_DIR) + "/device_skip_list.txt";
    std::ifstream in(path);
    TGC_INTERNAL_CHECK(in.good(), "cannot read " + path);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const size_t bar = line.find(" | ");
      TGC_INTERNAL_CHECK(bar != std::string::npos, path + ": a line without ' | ' before its reason: " + line);
      SkipEntry e{"", line.substr(0, bar), line.substr(bar + 3)};
      for (const char* b : {"cuda", "opencl"})
        if (e.family.rfind("[" + std::string(b) + "] ", 0) == 0) {
          e.backend = b;
          e.family = e.family.substr(e.backend.size() + 3);
        }
      out.push_back(std::move(e));
    }
    return out;
  }();
  return list;
}

bool SkipEntry::covers(const std::string& on, const std::string& case_family, const std::string& case_name) const {
  if (!backend.empty() && backend != on) return false;
  return family == case_family || case_name.rfind(family, 0) == 0;
}

std::string family_of(const std::string& case_name) {
  static const std::map<std::string, std::string> by_case = [] {
    std::map<std::string, std::string> m;
    for (const auto& [family, build] : families())
      for (const Case& c : build()) m.emplace(c.name, family);
    return m;
  }();
  auto it = by_case.find(case_name);
  return it == by_case.end() ? "" : it->second;
}

std::string assert_no_cpu_op_for(const std::string& backend, const Case& c) {
  if (backend != "cuda" && backend != "opencl") return "";
  const char* env = std::getenv("TGC_CONFORMANCE_ASSERT_NO_CPU_OP");
  const std::string mode = env && *env ? env : "raise";
  const char* all = std::getenv("TGC_CONFORMANCE_IGNORE_SKIP_LIST");
  if (all && std::string(all) == "1") return mode;
  const std::string family = family_of(c.name);
  for (const SkipEntry& e : device_skip_list())
    if (e.covers(backend, family, c.name)) return "ignore";
  return mode;
}

Tolerance tolerance_on(const std::string& backend, Tolerance t) {
  if (backend == "cuda") t.rtol32 = std::max(t.rtol32, t.cuda_rtol32);
  if (backend == "opencl") t.rtol32 = std::max(t.rtol32, t.opencl_rtol32);
  if (backend == "cuda" || backend == "opencl") t.atol32 = std::max(t.atol32, t.library_atol32);
  return t;
}

void expect_conforms(const std::string& backend, const Case& c) {
  std::string report = check_case(backend, c);
  if (!report.empty()) ADD_FAILURE() << report;
}

Tensor tiled(const Tensor& t, int64_t n, int64_t phase) {
  const int64_t len = t.shape().at(0);
  Shape shape = t.shape();
  shape[0] = n;
  Tensor out = Tensor::empty(t.dtype(), shape);
  if (len == 0 || n == 0) return out;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = (i + phase) % len;
    copy_elements(test::slice_view(t, 0, j, j + 1), test::slice_view(out, 0, i, i + 1));
  }
  return out;
}

std::vector<std::vector<Tensor>> layouts(const std::vector<Tensor>& args) {
  std::vector<Tensor> column_major, reversed, strided;
  for (const Tensor& a : args) {
    if (a.ndim() == 0) {
      column_major.push_back(a);
      reversed.push_back(a);
      strided.push_back(a);
      continue;
    }
    column_major.push_back(a.ndim() >= 2 ? test::fortran_layout(a) : a);
    reversed.push_back(test::reversed_layout(a, 0));
    // The values at every second element of a buffer twice as long.
    Shape big_shape = a.shape();
    big_shape[0] *= 2;
    Tensor big = Tensor::zeros(a.dtype(), big_shape);
    Tensor view = test::slice_view(big, 0, 0, big_shape[0], 2);
    copy_elements(a, view);
    strided.push_back(view);
  }
  std::vector<std::vector<Tensor>> out{args};
  bool any_matrix = false;
  for (const Tensor& a : args) any_matrix = any_matrix || a.ndim() >= 2;
  if (any_matrix) out.push_back(column_major);
  out.push_back(reversed);
  out.push_back(strided);
  return out;
}

Tensor random_values(RandomState& rng, DType dtype, const Shape& shape, double lo, double hi) {
  if (is_float(dtype)) return rng.uniform(lo, hi, shape).astype(dtype);
  if (dtype == DType::Bool) return rng.randint(0, 2, shape, DType::Bool);
  return rng.randint(static_cast<int64_t>(lo), static_cast<int64_t>(hi), shape, dtype);
}

// Prints what each backend compiled when the run ends.
class CountsPrinter : public ::testing::Environment {
 public:
  void SetUp() override {
    for (const std::string& b : suite_backends())
      if (b == "cuda" || b == "opencl") {
        size_t n = 0;
        for (const SkipEntry& e : device_skip_list()) n += (e.backend.empty() || e.backend == b);
        std::printf("[conformance] %s: assert_no_cpu_op=raise except %zu case families of "
                    "tests/conformance/device_skip_list.txt\n",
                    b.c_str(), n);
      }
  }
  void TearDown() override {
    if (!cache_dir_path().empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(cache_dir_path(), ignored);
    }
    for (const std::string& b : suite_backends()) {
      const Counts& n = counts(b);
      std::printf("[conformance] %s: %d cases, %d calls, %d Composite nodes, %zu distinct kernels\n", b.c_str(),
                  n.cases, n.calls, n.composites, n.kernels.size());
    }
  }
};

const ::testing::Environment* const kCountsPrinter = ::testing::AddGlobalTestEnvironment(new CountsPrinter);

}  // namespace tgc::conformance
