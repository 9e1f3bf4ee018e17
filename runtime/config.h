// Config: every setting of tgc in one struct. Filled from defaults, then ~/.tgcrc (INI, like
// .theanorc), then TGC_FLAGS="key=value,...", then CLI flags / per-function options.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/dtype.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

struct Config {
  std::string device = "cpu";            // cpu | cuda[:N] | opencl[:P:D]
  DType floatX = DType::Float32;         // dtype of untyped constructors and literals
  bool allow_gc = true;                  // free intermediates after their last use
  bool profile = false;                  // time every thunk, print a report at exit
  std::string profile_trace;             // write a Chrome-trace JSON here ("" = none)
  std::string optimizer = "fast_run";    // fast_run | fast_compile | none
  // Rewrites and passes left out, by name, separated by ':' (Theano's syntax). The names are
  // checked when a function is compiled (the compiler knows them; runtime/ does not).
  std::string optimizer_excluding;
  std::string assert_no_cpu_op = "ignore";  // ignore | warn | raise
  bool warn_float64 = false;             // report float64 appearing in a float32 graph
  bool fast_math = false;                // relaxed floating point in generated code
  // How the LLVM CPU backend computes float32 transcendental functions: "float32" (float
  // libmvec variants, within a few ulps, docs/cpu-backend.md) or "double" (in double and
  // rounded once: the reference's bits).
  std::string float32_math = "float32";
  // The vector width the LLVM CPU backend's vectorizer prefers: "auto" (512 bits where the
  // host has AVX-512, LLVM's own choice elsewhere), "128", "256" or "512".
  std::string cpu_vector_width = "auto";
  bool sync = false;                     // make every device thunk synchronous (debugging)
  bool cuda_tf32 = false;                // float32 matmuls on CUDA may use TF32 tensor cores
  // Mixed precision (docs/precision.md): "none", or "bfloat16"/"float16": float32 matrix
  // products run on half copies of their operands (tensor cores, float32 accumulation) and
  // give float32 results; everything else, parameters and updates included, stays float32.
  std::string mixed_precision = "none";
  // Device kernels give the same bits on every run: no float atomics (inc_subtensor's
  // scatter sorts its indices and sums each destination in index order instead).
  bool deterministic = true;
  // Eager operations on tensors (docs/eager.md) record elementwise work and run a chain as
  // one fused kernel when its value is needed; off: every operation runs at once.
  bool eager_fusion = true;
  std::string cuda_graphs = "auto";       // auto | off: replay repeated calls as CUDA graphs
  // The most device memory one recording may keep (its outputs, intermediates and scratch,
  // which node-by-node calls free or reuse); a call that needs more is run node by node.
  // Read as cache_max_size is ("1GiB", "512M").
  uint64_t cuda_graph_max_size = uint64_t(256) << 20;
  std::string cache_dir = "~/.cache/tgc";  // on-disk kernel cache
  // The kernel cache directory's size cap in bytes (least recently used entries are evicted
  // past it); 0 = no cap. Read as "2GiB", "500M", "1048576".
  uint64_t cache_max_size = uint64_t(2) << 30;
  // Print, per function(), each compile phase's time and why each kernel-cache miss missed
  // (runtime/compile_log.h): "false", "true", or "passes" (also every optimizer pass's time).
  std::string log_compiles = "false";
  // Threads that compile a function's kernels at once when several missed the kernel cache
  // (LLVM and NVRTC): 0 = auto (the hardware threads, at most 8), 1 = one after the other.
  int compile_threads = 0;
  // Seconds a collective may wait for the other ranks before it fails with a CommError (a
  // rank that failed never joins): the limit on a hang, not on a slow transfer.
  double comm_timeout = 300;
  // Collectives on a GPU run on a stream of their own, beside the computation that follows
  // them (a gradient's all_reduce beside the products of the next gradients), and the
  // computation waits only where it reads their results (docs/distributed.md). Off: one
  // stream, each collective in line. Profiled and sync calls keep them in line either way.
  bool comm_overlap = true;

  // Sets one key from text. Throws ConfigError naming the key (with the closest valid key
  // for a typo) or the bad value (with the accepted values); `source` says where it came
  // from, e.g. "TGC_FLAGS" or "/home/u/.tgcrc:3". Booleans accept true/false, 1/0, yes/no,
  // on/off; enumerated values (floatX, optimizer, assert_no_cpu_op, device) ignore case and
  // are stored in lower case; device is only checked for syntax here.
  void set(std::string_view key, std::string_view value, std::string_view source = "");
  std::string get(std::string_view key) const;  // the value as text; ConfigError if unknown
  static const std::vector<std::string>& keys();
};

// Applies "key=value,key=value" (TGC_FLAGS syntax; blanks around items and empty items are
// allowed, an item without '=' is a ConfigError). `source` names it in errors.
void apply_flags(Config& config, std::string_view flags, std::string_view source);
// Applies an INI file: "key = value" lines in the [global] section or before any section;
// comments are lines starting with # or ;, or the rest of a line after " #" / " ;". A missing
// file is not an error. Errors name file:line: a malformed line or section header (IOError),
// another section, an unknown key or a bad value (ConfigError).
void apply_rc_file(Config& config, const std::string& path);

// Defaults, then $HOME/.tgcrc (or $TGCRC when set; it must exist then), then $TGC_FLAGS;
// read once per process (thread-safe). Throws the ConfigError/IOError of a bad setting.
Config& global_config();
// The same sequence, from explicit sources (for tests and the CLI).
Config load_config(const std::string& rc_path, std::string_view flags);

TGC_API_END
}  // namespace tgc
