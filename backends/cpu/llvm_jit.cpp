// The kernel JIT: one ORC LLJIT and one host TargetMachine per process. A kernel is
// rendered, optimized by LLVM's O3 pipeline (loop vectorizer with glibc's libmvec as the
// vector-math library), compiled to an ELF object in memory, stored in the kernel cache and
// linked into its own JITDylib; a cached object is linked without compiling.
#include "backends/cpu/llvm_jit.h"

#include <fmt/format.h>

#include <memory>

#include "backends/cpu/kernel_codegen.h"
#include "backends/cpu/libmvec_table.h"
#include "runtime/error.h"

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
    for (const LibmvecVariant& v : *variants)
      d->push_back({v.scalar, v.vector, llvm::ElementCount::getFixed(static_cast<unsigned>(v.lanes))});
    return d;
  }();
  return *descs;
}

struct Jit {
  HostTarget host;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::mutex mutex;  // the TargetMachine and the dylib counter
  size_t dylibs = 0;
  std::atomic<size_t> compiled{0}, loaded{0};
};

Jit& jit() {
  // Never destroyed: thunks may run during static destruction of user objects.
  static Jit* instance = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    auto* j = new Jit;
    auto jtmb = take(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host CPU");
    jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
    j->host = {jtmb.getTargetTriple().str(), jtmb.getCPU(), jtmb.getFeatures().getString()};
    j->tm = take(jtmb.createTargetMachine(), "creating the host target machine");
    j->lljit = take(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create(),
                    "creating the LLVM JIT");
    return j;
  }();
  return *instance;
}

void optimize(llvm::Module& m) {
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
  llvm::PassBuilder pb(j.tm.get(), options);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

std::string symbol_of(const Kernel& kernel) { return fmt::format("tgc_kernel_{:016x}", kernel.hash()); }

// Renders and optimizes `kernel` for the host (callers hold jit().mutex).
std::unique_ptr<llvm::Module> build_module(const Kernel& kernel, llvm::LLVMContext& ctx, const CodegenOptions& options) {
  Jit& j = jit();
  std::unique_ptr<llvm::Module> m = render_kernel(kernel, ctx, symbol_of(kernel), options);
  m->setTargetTriple(j.host.triple);
  m->setDataLayout(j.tm->createDataLayout());
  const int vector_width = vector_width_for_host(options, j.host.features);
  for (llvm::Function& f : *m) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", j.host.cpu);
    f.addFnAttr("target-features", j.host.features);
    // The loop vectorizer and the libmvec variants it picks follow this width.
    if (vector_width != 0) f.addFnAttr("prefer-vector-width", std::to_string(vector_width));
  }
  optimize(*m);
  return m;
}

// Links object code into a JITDylib of its own (so a kernel may be linked again by another
// compiler instance) and returns the entry point; nullptr when the object does not link.
KernelFn link_object(const llvm::StringRef bytes, const std::string& symbol, bool must_work) {
  Jit& j = jit();
  std::string name;
  {
    std::lock_guard lock(j.mutex);
    name = fmt::format("tgc_kernels_{}", j.dylibs++);
  }
  llvm::orc::JITDylib& jd = take(j.lljit->createJITDylib(name), "creating a JITDylib");
  const char prefix = j.lljit->getDataLayout().getGlobalPrefix();
  jd.addGenerator(take(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix),
                       "searching the process's symbols"));
  // The vector variants live in libmvec, which the process need not have loaded.
  if (auto mvec = llvm::orc::DynamicLibrarySearchGenerator::Load("libmvec.so.1", prefix))
    jd.addGenerator(std::move(*mvec));
  else
    llvm::consumeError(mvec.takeError());
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(bytes, symbol);
  if (llvm::Error e = j.lljit->addObjectFile(jd, std::move(buffer))) {
    if (must_work) fail("linking kernel object code", std::move(e));
    llvm::consumeError(std::move(e));
    return nullptr;
  }
  auto address = j.lljit->lookup(jd, symbol);
  if (!address) {
    if (must_work) fail("looking up " + symbol, address.takeError());
    llvm::consumeError(address.takeError());
    return nullptr;
  }
  return address->toPtr<KernelFn>();
}

}  // namespace

const HostTarget& host_target() { return jit().host; }

std::string llvm_version() { return LLVM_VERSION_STRING; }

JitStats jit_stats() { return {jit().compiled.load(), jit().loaded.load()}; }

KernelCacheKey KernelCompiler::cache_key(const Kernel& kernel) const {
  const HostTarget& host = host_target();
  // The kernel's full text rides along with its hash, so no two kernels share a key; "r1"
  // is the renderer's version: bump it when kernel_codegen/scalar_codegen change output.
  return KernelCacheKey{"llvm", fmt::format("{:016x} r7\n{}", kernel.hash(), kernel.str()),
                        "LLVM " LLVM_VERSION_STRING, host.triple + " " + host.cpu + " " + host.features,
                        "O3 libmvec " + options_.text()};
}

KernelFn KernelCompiler::get(const Kernel& kernel) {
  const KernelCacheKey key = cache_key(kernel);
  const std::string text = key.text();
  std::lock_guard lock(mutex_);
  if (auto it = linked_.find(text); it != linked_.end()) return it->second;
  const std::string symbol = symbol_of(kernel);
  Jit& j = jit();
  if (auto blob = cache_.get(key)) {
    const KernelBlob& bytes = **blob;
    llvm::StringRef ref(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (KernelFn fn = link_object(ref, symbol, /*must_work=*/false)) {
      ++j.loaded;
      return linked_[text] = fn;
    }
    // A checksummed entry that does not link (another toolchain wrote it): rebuild below.
  }
  std::unique_ptr<llvm::MemoryBuffer> object;
  {
    std::lock_guard jit_lock(j.mutex);
    llvm::LLVMContext ctx;
    std::unique_ptr<llvm::Module> m = build_module(kernel, ctx, options_);
    llvm::orc::SimpleCompiler compile(*j.tm);
    object = take(compile(*m), "compiling a kernel to object code");
  }
  ++j.compiled;
  const llvm::StringRef bytes = object->getBuffer();
  cache_.put(key, KernelBlob(bytes.begin(), bytes.end()));
  return linked_[text] = link_object(bytes, symbol, /*must_work=*/true);
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
  std::unique_ptr<llvm::Module> m = build_module(kernel, ctx, options);
  std::string text;
  llvm::raw_string_ostream os(text);
  m->print(os, nullptr);
  return os.str();
}

}  // namespace tgc::cpu
