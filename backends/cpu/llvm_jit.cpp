// The kernel JIT: one ORC LLJIT and one host TargetMachine per process. A kernel is
// rendered, optimized by LLVM's O3 pipeline (loop vectorizer with glibc's libmvec as the
// vector-math library), compiled to an ELF object in memory, stored in the kernel cache and
// linked into its own JITDylib; a cached object is linked without compiling. A kernel's
// JITDylib is removed when the last thunk holding it dies (LinkedKernel).
#include "backends/cpu/llvm_jit.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "backends/cpu/kernel_codegen.h"
#include "backends/cpu/libmvec_table.h"
#include "runtime/compile_log.h"
#include "runtime/error.h"
#include "runtime/kernel_uses.h"
#include "runtime/parallel_jobs.h"

namespace tgc::cpu {

namespace {

[[noreturn]] void fail(const std::string& what, llvm::Error error) {
  throw InternalError(what + ": " + llvm::toString(std::move(error)), "LLVM CPU backend",
                      "this is a bug in tgc or an unusable LLVM installation; run with optimizer=none to "
                      "use the reference evaluation meanwhile");
}

template <typename T>
T take(llvm::Expected<T> value, const std::string& what) {
  if (!value) fail(what, value.takeError());
  if constexpr (std::is_reference_v<T>) return *value;
  else return std::move(*value);
}

// The libmvec variants beyond LLVM 16's table, for this host (AVX-512 ones when it has
// avx512f), as LLVM's VecDescs; built once, the strings live as long as the process.
llvm::ArrayRef<llvm::VecDesc> more_libmvec(const std::string& features) {
  static const std::vector<LibmvecVariant>* variants = new std::vector<LibmvecVariant>(libmvec_variants(has_avx512f(features)));
  static const std::vector<llvm::VecDesc>* descs = [] {
    auto* d = new std::vector<llvm::VecDesc>;
    for (const LibmvecVariant& v : *variants) {
      const llvm::ElementCount vf = llvm::ElementCount::getFixed(static_cast<unsigned>(v.lanes));
#if LLVM_VERSION_MAJOR >= 18
      // LLVM 18 on also wants the vector ABI's prefix: "_ZGVeN16v_expf" -> "_ZGV_LLVM_N16v" (the
      // mangled name's mask, lanes and parameters, after its ISA letter).
      const std::string_view name = v.vector;
      const std::string_view abi = name.substr(5, name.find('_', 5) - 5);
      auto* prefix = new std::string("_ZGV_LLVM_" + std::string(abi));  // lives as long as the table
      d->push_back(llvm::VecDesc(v.scalar, v.vector, vf, /*Masked=*/false, *prefix));
#else
      d->push_back({v.scalar, v.vector, vf});
#endif
    }
    return d;
  }();
  return *descs;
}

struct Jit {
  HostTarget host;
  // A TargetMachine is not safe to use from two threads at once: kernels compiled ahead on
  // worker threads each make their own from this builder; `tm` serves the calling thread.
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> tm_builder;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::mutex mutex;  // `tm` and the dylib counter
  size_t dylibs = 0;
  std::atomic<size_t> compiled{0}, loaded{0}, resident{0}, unloaded{0};
  // Set at exit: kernels are no longer unloaded, since a user's static Function may die after
  // LLVM's own statics, and a process that ends frees everything anyway.
  std::atomic<bool> exiting{false};
};

// The routines LLVM calls for float16 conversions on a CPU without F16C (or for double ->
// half, which no x86 instruction does). Debian 12's libgcc_s exports the truncations but
// not __extendhfsf2, so the JIT gets all three from here; _Float16's casts are the
// compiler's own (libgcc's, linked statically).
float half_extend_to_float(_Float16 h) { return static_cast<float>(h); }
_Float16 half_trunc_from_float(float f) { return static_cast<_Float16>(f); }
_Float16 half_trunc_from_double(double d) { return static_cast<_Float16>(d); }

void define_half_routines(llvm::orc::JITDylib& jd, llvm::orc::LLJIT& lljit) {
  auto symbol = [](auto* fn) {
#if LLVM_VERSION_MAJOR >= 17
    return llvm::orc::ExecutorSymbolDef(llvm::orc::ExecutorAddr::fromPtr(fn), llvm::JITSymbolFlags::Exported);
#else
    return llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(fn), llvm::JITSymbolFlags::Exported);
#endif
  };
  llvm::orc::SymbolMap routines;
  routines[lljit.mangleAndIntern("__extendhfsf2")] = symbol(&half_extend_to_float);
  routines[lljit.mangleAndIntern("__truncsfhf2")] = symbol(&half_trunc_from_float);
  routines[lljit.mangleAndIntern("__truncdfhf2")] = symbol(&half_trunc_from_double);
  if (llvm::Error e = jd.define(llvm::orc::absoluteSymbols(std::move(routines)))) llvm::consumeError(std::move(e));
}

Jit& jit() {
  // Never destroyed: thunks may run during static destruction of user objects.
  static Jit* instance = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    auto* j = new Jit;
    auto jtmb = take(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host CPU");
#if LLVM_VERSION_MAJOR >= 18
    jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
#else
    jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
#endif
    j->host = {jtmb.getTargetTriple().str(), jtmb.getCPU(), jtmb.getFeatures().getString()};
    j->tm = take(jtmb.createTargetMachine(), "creating the host target machine");
    j->tm_builder = std::make_unique<llvm::orc::JITTargetMachineBuilder>(jtmb);
    j->lljit = take(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create(),
                    "creating the LLVM JIT");
    std::atexit([] { jit().exiting = true; });
    return j;
  }();
  return *instance;
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm) {
  Jit& j = jit();
  llvm::Triple triple(m.getTargetTriple());
  llvm::TargetLibraryInfoImpl tlii(triple);
  if (triple.getArch() == llvm::Triple::x86_64) {
    tlii.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
    tlii.addVectorizableFunctions(more_libmvec(j.host.features));
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions options;
  options.LoopVectorization = true;
  options.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, options);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string symbol_of(const Kernel& kernel) { return fmt::format("tgc_kernel_{:016x}", kernel.hash()); }

// A kernel in a cache-miss line: its symbol and the start of its node's label (a fused
// kernel's node reads like its whole expression; the start names it well enough).
std::string miss_label(const Kernel& kernel, const std::string& label) {
  if (label.empty()) return symbol_of(kernel);
  return symbol_of(kernel) + " (" + (label.size() > 100 ? label.substr(0, 97) + "..." : label) + ")";
}

// Renders and optimizes `kernel` for the host with `tm` (which no other thread uses meanwhile).
std::unique_ptr<llvm::Module> build_module(const Kernel& kernel, llvm::LLVMContext& ctx, const CodegenOptions& options,
                                           llvm::TargetMachine& tm) {
  Jit& j = jit();
  std::unique_ptr<llvm::Module> m = render_kernel(kernel, ctx, symbol_of(kernel), options);
  m->setTargetTriple(j.host.triple);
  m->setDataLayout(tm.createDataLayout());
  const int vector_width = vector_width_for_host(options, j.host.features);
  for (llvm::Function& f : *m) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", j.host.cpu);
    f.addFnAttr("target-features", j.host.features);
    // The loop vectorizer and the libmvec variants it picks follow this width.
    if (vector_width != 0) f.addFnAttr("prefer-vector-width", std::to_string(vector_width));
  }
  optimize(*m, tm);
  return m;
}

// `kernel`'s object code, compiled with `tm` in a context of its own.
std::unique_ptr<llvm::MemoryBuffer> compile_object(const Kernel& kernel, const CodegenOptions& options,
                                                   llvm::TargetMachine& tm) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = build_module(kernel, ctx, options, tm);
  llvm::orc::SimpleCompiler compile(tm);
  auto object = take(compile(*m), "compiling a kernel to object code");
  ++jit().compiled;
  return object;
}

// Removes a kernel's JITDylib, freeing its code; false when it is gone already.
bool remove_dylib(const std::string& name) {
  Jit& j = jit();
  llvm::orc::ExecutionSession& session = j.lljit->getExecutionSession();
  llvm::orc::JITDylib* jd = session.getJITDylibByName(name);
  if (!jd) return false;
  if (llvm::Error e = session.removeJITDylib(*jd)) {
    // The code may stay mapped (a leak, not a fault): nothing may fail in a destructor.
    llvm::consumeError(std::move(e));
  }
  return true;
}

// Links object code into a JITDylib of its own (so a kernel may be linked again by another
// compiler instance, and unloaded alone) and returns it; nullptr when the object does not
// link.
std::shared_ptr<const LinkedKernel> link_object(const llvm::StringRef bytes, const std::string& symbol,
                                                bool must_work) {
  Jit& j = jit();
  std::string name;
  {
    std::lock_guard lock(j.mutex);
    name = fmt::format("tgc_kernels_{}", j.dylibs++);
  }
  llvm::orc::JITDylib& jd = take(j.lljit->createJITDylib(name), "creating a JITDylib");
  const char prefix = j.lljit->getDataLayout().getGlobalPrefix();
  define_half_routines(jd, *j.lljit);
  jd.addGenerator(take(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix),
                       "searching the process's symbols"));
  // The vector variants live in libmvec, which the process need not have loaded.
  if (auto mvec = llvm::orc::DynamicLibrarySearchGenerator::Load("libmvec.so.1", prefix))
    jd.addGenerator(std::move(*mvec));
  else
    llvm::consumeError(mvec.takeError());
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(bytes, symbol);
  if (llvm::Error e = j.lljit->addObjectFile(jd, std::move(buffer))) {
    remove_dylib(name);
    if (must_work) fail("linking kernel object code", std::move(e));
    llvm::consumeError(std::move(e));
    return nullptr;
  }
  auto address = j.lljit->lookup(jd, symbol);
  if (!address) {
    remove_dylib(name);
    if (must_work) fail("looking up " + symbol, address.takeError());
    llvm::consumeError(address.takeError());
    return nullptr;
  }
  ++j.resident;
  return std::make_shared<const LinkedKernel>(address->toPtr<KernelFn>(), name);
}

}  // namespace

const HostTarget& host_target() { return jit().host; }

std::string llvm_version() { return LLVM_VERSION_STRING; }

JitStats jit_stats() {
  Jit& j = jit();
  return {j.compiled.load(), j.loaded.load(), j.resident.load(), j.unloaded.load()};
}

LinkedKernel::~LinkedKernel() {
  Jit& j = jit();
  if (j.exiting) return;
  if (remove_dylib(dylib_)) {
    --j.resident;
    ++j.unloaded;
  }
}

KernelCacheKey KernelCompiler::cache_key(const Kernel& kernel) const {
  const HostTarget& host = host_target();
  // The kernel's full text rides along with its hash, so no two kernels share a key; "r1"
  // is the renderer's version: bump it when kernel_codegen/scalar_codegen change output.
  return KernelCacheKey{"llvm", fmt::format("{:016x} r8\n{}", kernel.hash(), kernel.str()),
                        "LLVM " LLVM_VERSION_STRING, host.triple + " " + host.cpu + " " + host.features,
                        "O3 libmvec " + options_.text()};
}

KernelFn KernelCompiler::get(const Kernel& kernel, const std::string& label) {
  std::shared_ptr<const LinkedKernel> linked = link(kernel, label);
  std::lock_guard lock(mutex_);
  pinned_[cache_key(kernel).text()] = linked;
  return linked->fn;
}

std::shared_ptr<const LinkedKernel> KernelCompiler::link(const Kernel& kernel, const std::string& label) {
  // From before the key: the first key of a process creates the JIT, counted as loading (as
  // in compile_ahead, which may come first).
  auto t0 = std::chrono::steady_clock::now();
  const KernelCacheKey key = cache_key(kernel);
  const std::string text = key.text();
  std::lock_guard lock(mutex_);
  if (auto it = linked_.find(text); it != linked_.end())
    if (std::shared_ptr<const LinkedKernel> live = it->second.lock()) {
      note_kernel_use(cache_, key);  // a function saved with its kernels ships this one too
      return live;
    }
  if (linked_.size() >= sweep_at_) {
    std::erase_if(linked_, [](const auto& slot) { return slot.second.expired(); });
    sweep_at_ = std::max<size_t>(64, 2 * linked_.size());
  }
  const std::string symbol = symbol_of(kernel);
  Jit& j = jit();
  CompileLog* log = current_compile_log();
  std::string why_missed;
  if (auto blob = cache_.get(key, log && log->explain_misses() ? &why_missed : nullptr)) {
    const KernelBlob& bytes = **blob;
    llvm::StringRef ref(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (std::shared_ptr<const LinkedKernel> linked = link_object(ref, symbol, /*must_work=*/false)) {
      ++j.loaded;
      if (log) log->add_load("llvm", seconds_since(t0));
      linked_[text] = linked;
      return linked;
    }
    // A checksummed entry that does not link (another toolchain wrote it): rebuild below.
    why_missed = "the cached object code does not link (written by another toolchain?), rebuilt";
  }
  // A miss compile_ahead found and left to this call was reported there.
  const bool reported_ahead = compile_alone_.erase(text) > 0;
  if (log && log->explain_misses() && !reported_ahead) log->add_miss({"llvm", miss_label(kernel, label), why_missed});
  if (log) log->add_load("llvm", seconds_since(t0), /*kernels=*/0);  // the lookup that missed
  t0 = std::chrono::steady_clock::now();
  std::unique_ptr<llvm::MemoryBuffer> object;
  {
    std::lock_guard jit_lock(j.mutex);
    object = compile_object(kernel, options_, *j.tm);
  }
  const llvm::StringRef bytes = object->getBuffer();
  cache_.put(key, KernelBlob(bytes.begin(), bytes.end()));
  if (log) log->add_codegen("llvm", seconds_since(t0));
  t0 = std::chrono::steady_clock::now();
  std::shared_ptr<const LinkedKernel> linked = link_object(bytes, symbol, /*must_work=*/true);
  if (log) log->add_load("llvm", seconds_since(t0));
  linked_[text] = linked;
  return linked;
}

void KernelCompiler::compile_ahead(const std::vector<std::pair<const Kernel*, std::string>>& kernels, int threads) {
  if (threads < 2 || kernels.size() < 2) return;
  CompileLog* log = current_compile_log();
  const auto t0 = std::chrono::steady_clock::now();
  // The kernels neither linked here nor in the cache (memory or disk), each once.
  struct Job {
    const Kernel* kernel;
    KernelCacheKey key;
  };
  std::vector<Job> jobs;
  {
    std::lock_guard lock(mutex_);
    std::set<std::string> seen;
    for (const auto& [kernel, label] : kernels) {
      KernelCacheKey key = cache_key(*kernel);
      const std::string text = key.text();
      if (auto it = linked_.find(text); (it != linked_.end() && !it->second.expired()) || !seen.insert(text).second)
        continue;
      std::string why_missed;
      if (cache_.get(key, log && log->explain_misses() ? &why_missed : nullptr)) continue;  // link() loads it
      if (log && log->explain_misses()) log->add_miss({"llvm", miss_label(*kernel, label), why_missed});
      jobs.push_back({kernel, std::move(key)});
    }
    // One kernel gains nothing from a thread: link() compiles it, without reporting its miss
    // again (under the lock: link() on another thread reads the set).
    if (jobs.size() == 1) compile_alone_.insert(jobs[0].key.text());
  }
  // The cache reads above are part of loading (link() links what they found).
  if (log) log->add_load("llvm", seconds_since(t0), /*kernels=*/0);
  if (jobs.size() < 2) return;
  // Longest first, so no thread starts a long compile when the others are nearly done (the
  // greedy hand-out of run_parallel is then within 4/3 of the best schedule). LLVM's time is
  // mostly per kernel, not per instruction, and by the kind of loops rendered: the MLP's
  // reductions over two dims took 57-68 ms each, its other seven kernels 16-24 ms, so in
  // graph order its last kernel, one such reduction, started when one thread was idle
  // (189 ms on two threads for 313 ms of compiles; longest first: 157 ms).
  auto estimated_cost = [](const Kernel& k) {
    return (k.is_reduction() && k.ndim >= 2 ? 3000 : 1000) + static_cast<int64_t>(k.values.size());
  };
  std::stable_sort(jobs.begin(), jobs.end(), [&](const Job& a, const Job& b) {
    return estimated_cost(*a.kernel) > estimated_cost(*b.kernel);
  });
  const auto t1 = std::chrono::steady_clock::now();
  const int used = std::min<int>(threads, static_cast<int>(jobs.size()));
  // A target machine per thread: the workers' are made for this call, the calling thread's
  // is kept for its next one.
  run_parallel(jobs.size(), used, [&](size_t i) {
    thread_local std::unique_ptr<llvm::TargetMachine> tm;
    if (!tm) tm = take(jit().tm_builder->createTargetMachine(), "creating a target machine for a compile thread");
    std::unique_ptr<llvm::MemoryBuffer> object = compile_object(*jobs[i].kernel, options_, *tm);
    const llvm::StringRef bytes = object->getBuffer();
    cache_.put(jobs[i].key, KernelBlob(bytes.begin(), bytes.end()));
  });
  // Wall time: the threads' times overlap.
  if (log) log->add_codegen("llvm", seconds_since(t1), static_cast<int>(jobs.size()), used);
}

KernelCompiler& kernel_compiler_for(const std::string& cache_dir, const CodegenOptions& options) {
  using Key = std::pair<std::string, CodegenOptions>;
  static std::mutex mutex;
  static std::map<Key, std::unique_ptr<KernelCompiler>>* compilers = new std::map<Key, std::unique_ptr<KernelCompiler>>;
  std::lock_guard lock(mutex);
  auto& slot = (*compilers)[{cache_dir, options}];
  if (!slot) slot = std::make_unique<KernelCompiler>(kernel_cache_for(cache_dir), options);
  return *slot;
}

std::string optimized_ir(const Kernel& kernel, const CodegenOptions& options) {
  Jit& j = jit();
  std::lock_guard lock(j.mutex);
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = build_module(kernel, ctx, options, *j.tm);
  std::string text;
  llvm::raw_string_ostream os(text);
  m->print(os, nullptr);
  return os.str();
}

}  // namespace tgc::cpu
