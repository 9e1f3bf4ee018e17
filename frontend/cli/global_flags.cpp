// The global flags: their CLI11 declarations and their translation into config keys.
#include "frontend/cli/global_flags.h"

namespace tgc::cli {

namespace {

// The flag that sets a config key, for error messages ("from flag --floatX").
std::string flag_of(const std::string& key) {
  if (key == "allow_gc") return "--no-gc";
  std::string flag = "--" + key;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

}  // namespace

void add_global_flags(CLI::App& app, GlobalFlags& f) {
  const std::string group = "Global flags (any subcommand; override ~/.tgcrc and TGC_FLAGS)";
  auto option = [&](const char* name, std::optional<std::string>& field, const char* type,
                    const char* help) { app.add_option(name, field, help)->group(group)->type_name(type); };
  option("--device", f.device, "DEVICE", "cpu | cuda[:N] | opencl[:P:D]");
  option("--floatX", f.floatX, "DTYPE", "float32 | float64: dtype of untyped constructors and literals");
  app.add_flag("--profile", f.profile, "time every node; print the profile after the run")->group(group);
  option("--profile-trace", f.profile_trace, "FILE.json",
         "also write a Chrome-trace JSON (Perfetto) to this file; implies --profile");
  app.add_flag("--no-gc", f.no_gc, "keep intermediates between calls (allow_gc=false)")->group(group);
  app.add_flag("--sync", f.sync, "make every device thunk synchronous (debugging)")->group(group);
  option("--optimizer", f.optimizer, "MODE", "fast_run | fast_compile | none");
  option("--optimizer-excluding", f.optimizer_excluding, "NAMES",
         "rewrites and passes to leave out, separated by ':' (docs/optimizations.md)");
  app.add_flag("--fast-math", f.fast_math, "relaxed floating point in generated code")->group(group);
  option("--assert-no-cpu-op", f.assert_no_cpu_op, "MODE", "ignore | warn | raise: host ops in GPU graphs");
  app.add_flag("--warn-float64", f.warn_float64, "report float64 entering a float32 graph")->group(group);
  option("--cache-dir", f.cache_dir, "DIR", "the on-disk kernel cache (tgc cache info shows it)");
  app.add_option("--format", f.format, "text | json: what run, devices and cache info print (json: for scripts)")
      ->check(CLI::IsMember({"text", "json"}))
      ->group(group)
      ->type_name("FORMAT");
  // A flag that may take a value: --log-compiles is true, --log-compiles=passes adds the passes.
  app.add_flag("--log-compiles{true}", f.log_compiles,
               "print each function()'s compile phases and why kernels missed the cache (=passes: each pass too)")
      ->group(group);
}

std::map<std::string, std::string> config_overrides(const GlobalFlags& f) {
  std::map<std::string, std::string> keys;
  auto set_if = [&](const char* key, const std::optional<std::string>& value) {
    if (value) keys[key] = *value;
  };
  set_if("device", f.device);
  set_if("floatX", f.floatX);
  if (f.profile || f.profile_trace) keys["profile"] = "true";
  set_if("profile_trace", f.profile_trace);
  if (f.no_gc) keys["allow_gc"] = "false";
  if (f.sync) keys["sync"] = "true";
  set_if("optimizer", f.optimizer);
  set_if("optimizer_excluding", f.optimizer_excluding);
  if (f.fast_math) keys["fast_math"] = "true";
  set_if("assert_no_cpu_op", f.assert_no_cpu_op);
  if (f.warn_float64) keys["warn_float64"] = "true";
  set_if("cache_dir", f.cache_dir);
  set_if("log_compiles", f.log_compiles);
  return keys;
}

Config effective_config(const GlobalFlags& flags) {
  Config config = global_config();
  for (auto& [key, value] : config_overrides(flags)) config.set(key, value, "flag " + flag_of(key));
  return config;
}

std::map<std::string, std::string> apply_global_flags(const GlobalFlags& flags) {
  std::map<std::string, std::string> keys = config_overrides(flags);
  // Check every value now, so a bad flag is reported before the file is read. The other
  // keys go to each function's options; only floatX is also set globally (see below).
  Config& global = global_config();
  Config checked = effective_config(flags);
  // Untyped constructors and literals take floatX from the global config while the .tg
  // file is evaluated, before any function() is compiled.
  global.floatX = checked.floatX;
  return keys;
}

}  // namespace tgc::cli
