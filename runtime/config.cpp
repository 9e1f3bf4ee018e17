// Config: the table of keys with their parsers, and the INI / TGC_FLAGS readers.
#include "runtime/config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "runtime/error.h"
#include "runtime/suggest.h"
#include "runtime/text.h"

namespace tgc {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// User text echoed in an error: control bytes as \xNN (a terminal never sees them raw) and at
// most 80 characters, so a corrupt or hostile rc file gives a readable one-line report.
std::string shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7F) out += fmt::format("\\x{:02x}", b);
    else out += c;
  }
  if (s.size() > 80) out += fmt::format("... ({} more bytes)", s.size() - 80);
  return out;
}

std::string from_part(std::string_view source) {
  return source.empty() ? std::string() : fmt::format(" (from {})", source);
}

bool parse_bool(std::string_view text, bool& out) {
  std::string v = ascii_lower(text);
  if (v == "true" || v == "1" || v == "yes" || v == "on") return out = true, true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return out = false, true;
  return false;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// cpu | cuda | cuda:N | opencl | opencl:P:D. Whether the device exists is the backends'
// question, asked when a function is compiled for it.
bool valid_device(std::string_view d) {
  if (d == "cpu" || d == "cuda" || d == "opencl") return true;
  if (d.starts_with("cuda:")) return all_digits(d.substr(5));
  if (d.starts_with("opencl:")) {
    std::string_view rest = d.substr(7);
    size_t colon = rest.find(':');
    return colon != std::string_view::npos && all_digits(rest.substr(0, colon)) &&
           all_digits(rest.substr(colon + 1));
  }
  return false;
}

// "2GiB", "2G", "500m", "1048576" -> bytes (binary units: K is 1024); false when malformed or
// over 2^62.
bool parse_size(std::string_view text, uint64_t& out) {
  std::string v = ascii_lower(trim(text));
  size_t digits = 0;
  while (digits < v.size() && std::isdigit(static_cast<unsigned char>(v[digits]))) ++digits;
  if (digits == 0 || digits > 19) return false;
  std::string unit = v.substr(digits);
  if (unit.ends_with("ib")) unit.resize(unit.size() - 2);
  else if (unit.ends_with("b")) unit.resize(unit.size() - 1);
  int shift = 0;
  if (unit == "k") shift = 10;
  else if (unit == "m") shift = 20;
  else if (unit == "g") shift = 30;
  else if (unit == "t") shift = 40;
  else if (!unit.empty()) return false;
  const uint64_t n = std::stoull(v.substr(0, digits));
  if (n > (uint64_t(1) << (62 - shift))) return false;
  out = n << shift;
  return true;
}

// "300", "0.5", "1e3" -> seconds; false unless a finite number in (0, 1e6].
bool parse_seconds(std::string_view text, double& out) {
  std::string v(trim(text));
  if (v.empty() || v.size() > 32) return false;
  char* end = nullptr;
  const double s = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size() || !(s > 0 && s <= 1e6)) return false;  // also rejects nan, inf
  out = s;
  return true;
}

// Bytes in the largest binary unit that divides them: 2147483648 -> "2GiB".
std::string size_text(uint64_t bytes) {
  static const char* const units[] = {"TiB", "GiB", "MiB", "KiB"};
  for (int i = 0; i < 4; ++i) {
    const int shift = 40 - 10 * i;
    if (bytes != 0 && bytes % (uint64_t(1) << shift) == 0) return fmt::format("{}{}", bytes >> shift, units[i]);
  }
  return std::to_string(bytes);
}

// One configuration key: how to read it from text, how to print it, what it accepts.
struct KeyInfo {
  const char* name;
  const char* accepts;               // for the error hint
  std::vector<std::string> choices;  // enumerated values (for "did you mean"), else empty
  std::function<bool(Config&, std::string_view)> set;
  std::function<std::string(const Config&)> get;
};

// A true/false key stored in `field`.
KeyInfo bool_key(const char* name, bool Config::*field) {
  return {name, "true/false, 1/0, yes/no or on/off", {},
          [field](Config& c, std::string_view v) { return parse_bool(v, c.*field); },
          [field](const Config& c) { return std::string(c.*field ? "true" : "false"); }};
}

// A key taking one of `choices` (case-insensitively), stored in `field` as spelt there.
KeyInfo choice_key(const char* name, const char* accepts, std::string Config::*field,
                   std::vector<std::string> choices) {
  auto set = [field, choices](Config& c, std::string_view text) {
    std::string v = ascii_lower(text);
    for (const std::string& choice : choices)
      if (v == choice) return c.*field = choice, true;
    return false;
  };
  return {name, accepts, std::move(choices), std::move(set), [field](const Config& c) { return c.*field; }};
}

const std::vector<KeyInfo>& key_table() {
  static const std::vector<KeyInfo> table = {
      {"device", "cpu, cuda, cuda:N, opencl or opencl:P:D (N, P, D non-negative integers)", {},
       [](Config& c, std::string_view v) {
         std::string d = ascii_lower(v);
         if (!valid_device(d)) return false;
         c.device = d;
         return true;
       },
       [](const Config& c) { return c.device; }},
      // The half types too, as Theano's floatX=float16: untyped variables and literals are
      // then stored in 16 bits and computed in float32 (docs/precision.md).
      {"floatX", "float32, float64, float16 or bfloat16", {"float32", "float64", "float16", "bfloat16"},
       [](Config& c, std::string_view v) {
         std::string f = ascii_lower(v);
         if (f == "float32") return c.floatX = DType::Float32, true;
         if (f == "float64") return c.floatX = DType::Float64, true;
         if (f == "float16") return c.floatX = DType::Float16, true;
         if (f == "bfloat16") return c.floatX = DType::BFloat16, true;
         return false;
       },
       [](const Config& c) { return std::string(dtype_name(c.floatX)); }},
      bool_key("allow_gc", &Config::allow_gc),
      bool_key("profile", &Config::profile),
      {"profile_trace", "a file path for the Chrome-trace JSON, or empty for none", {},
       [](Config& c, std::string_view v) { return c.profile_trace = std::string(v), true; },
       [](const Config& c) { return c.profile_trace; }},
      choice_key("optimizer", "fast_run, fast_compile or none", &Config::optimizer,
                 {"fast_run", "fast_compile", "none"}),
      {"optimizer_excluding", "rewrite names separated by ':' (see docs/optimizations.md)", {},
       [](Config& c, std::string_view v) { return c.optimizer_excluding = std::string(trim(v)), true; },
       [](const Config& c) { return c.optimizer_excluding; }},
      choice_key("assert_no_cpu_op", "ignore, warn or raise", &Config::assert_no_cpu_op,
                 {"ignore", "warn", "raise"}),
      bool_key("warn_float64", &Config::warn_float64),
      bool_key("fast_math", &Config::fast_math),
      choice_key("float32_math", "float32 (float libmvec functions, a few ulps) or double (the reference's bits)",
                 &Config::float32_math, {"float32", "double"}),
      choice_key("cpu_vector_width", "auto, 128, 256 or 512 (bits)", &Config::cpu_vector_width,
                 {"auto", "128", "256", "512"}),
      bool_key("sync", &Config::sync),
      bool_key("cuda_tf32", &Config::cuda_tf32),
      choice_key("mixed_precision", "none, bfloat16 or float16 (float32 products on half operands)",
                 &Config::mixed_precision, {"none", "bfloat16", "float16"}),
      bool_key("deterministic", &Config::deterministic),
      bool_key("eager_fusion", &Config::eager_fusion),
      bool_key("comm_overlap", &Config::comm_overlap),
      choice_key("cuda_graphs", "auto or off", &Config::cuda_graphs, {"auto", "off"}),
      {"cuda_graph_max_size", "a size in bytes with an optional unit K, M, G or T (binary: 1G is 1GiB), at least 1", {},
       [](Config& c, std::string_view v) {
         uint64_t bytes = 0;
         if (!parse_size(v, bytes) || bytes == 0) return false;
         return c.cuda_graph_max_size = bytes, true;
       },
       [](const Config& c) { return size_text(c.cuda_graph_max_size); }},
      {"log_compiles", "true/false (1/0, yes/no, on/off) or passes (true, with every optimizer pass's time)",
       {"true", "false", "passes"},
       [](Config& c, std::string_view v) {
         if (ascii_lower(v) == "passes") return c.log_compiles = "passes", true;
         bool on = false;
         if (!parse_bool(v, on)) return false;
         c.log_compiles = on ? "true" : "false";
         return true;
       },
       [](const Config& c) { return c.log_compiles; }},
      {"compile_threads", "auto (0: the hardware threads, at most 8) or a number of threads from 1 to 256", {"auto"},
       [](Config& c, std::string_view v) {
         std::string t = ascii_lower(v);
         if (t == "auto" || t == "0") return c.compile_threads = 0, true;
         if (!all_digits(t) || t.size() > 3 || std::stoi(t) > 256) return false;
         c.compile_threads = std::stoi(t);
         return true;
       },
       [](const Config& c) { return c.compile_threads == 0 ? std::string("auto") : std::to_string(c.compile_threads); }},
      {"comm_timeout", "a number of seconds greater than 0 (at most 1e6), e.g. 300 or 0.5", {},
       [](Config& c, std::string_view v) { return parse_seconds(v, c.comm_timeout); },
       [](const Config& c) { return fmt::format("{:g}", c.comm_timeout); }},
      {"cache_dir", "a non-empty directory path", {},
       [](Config& c, std::string_view v) {
         if (v.empty()) return false;
         c.cache_dir = std::string(v);
         return true;
       },
       [](const Config& c) { return c.cache_dir; }},
      {"cache_max_size", "a size in bytes with an optional unit K, M, G or T (binary: 2G is 2GiB), or 0 for no cap", {},
       [](Config& c, std::string_view v) { return parse_size(v, c.cache_max_size); },
       [](const Config& c) { return size_text(c.cache_max_size); }},
  };
  return table;
}

std::string joined_keys() { return fmt::format("{}", fmt::join(Config::keys(), ", ")); }

const KeyInfo& find_key(std::string_view key, std::string_view source) {
  for (const KeyInfo& k : key_table())
    if (key == k.name) return k;
  std::string near = closest_match(key, Config::keys());
  std::string hint = near.empty() ? fmt::format("valid keys: {}", joined_keys())
                                  : fmt::format("did you mean '{}'? valid keys: {}", near, joined_keys());
  throw ConfigError(fmt::format("unknown config key '{}'{}", shown(key), from_part(source)), "", hint);
}

std::string bad_value_hint(const KeyInfo& k, std::string_view value) {
  std::string hint = fmt::format("{} accepts {}", k.name, k.accepts);
  std::string v = ascii_lower(value);
  if (std::string_view(k.name) == "device" &&
      (v.starts_with("gpu") || (v.starts_with("cuda") && all_digits(v.substr(4))))) {
    // Theano spelled devices "gpu", "gpu0", "cuda0".
    return hint + "; write cuda:0 for the first CUDA GPU";
  }
  std::string near = closest_match(value, k.choices);
  if (!near.empty()) hint = fmt::format("did you mean '{}'? ", near) + hint;
  return hint;
}

}  // namespace

const std::vector<std::string>& Config::keys() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const KeyInfo& k : key_table()) out.emplace_back(k.name);
    return out;
  }();
  return names;
}

void Config::set(std::string_view key, std::string_view value, std::string_view source) {
  const KeyInfo& k = find_key(key, source);
  if (!k.set(*this, value))
    throw ConfigError(
        fmt::format("bad value '{}' for config key '{}'{}", shown(value), key, from_part(source)), "",
        bad_value_hint(k, value));
}

std::string Config::get(std::string_view key) const { return find_key(key, "").get(*this); }

void apply_flags(Config& config, std::string_view flags, std::string_view source) {
  while (!flags.empty()) {
    size_t comma = flags.find(',');
    std::string_view item = trim(flags.substr(0, comma));
    flags = comma == std::string_view::npos ? std::string_view() : flags.substr(comma + 1);
    if (item.empty()) continue;  // "a=1,,b=2" and a trailing comma are harmless
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || trim(item.substr(0, eq)).empty())
      throw ConfigError(fmt::format("malformed config item '{}'{}", shown(item), from_part(source)), "",
                        "write key=value items separated by commas, e.g. "
                        "TGC_FLAGS=\"device=cpu,floatX=float32,profile=true\"");
    config.set(trim(item.substr(0, eq)), trim(item.substr(eq + 1)), source);
  }
}

void apply_rc_file(Config& config, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;  // no rc file: defaults stand
  // A config file is a short text file: a FIFO, a device or a huge file in its place is an
  // error, never a hang or a read until memory runs out.
  constexpr std::uintmax_t kMaxRcBytes = 1 << 20;
  if (path == "/dev/null") return;  // TGCRC=/dev/null: no config file, on purpose
  if (!std::filesystem::is_regular_file(path, ec))
    throw IOError(fmt::format("config file '{}' is not a regular file", path), "",
                  "point $TGCRC at a text file of key = value lines");
  if (const std::uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > kMaxRcBytes)
    throw IOError(fmt::format("config file '{}' is {} bytes, more than the 1 MiB a config file may have", path, size),
                  "", "a config file holds a few key = value lines");
  std::ifstream in(path);
  if (!in)
    throw IOError(fmt::format("cannot read config file '{}'", path), "",
                  "check the file's permissions, or point $TGCRC elsewhere");
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    // A UTF-8 byte-order mark, which some editors write at the start of a file, is not text.
    if (number == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    std::string where = fmt::format("{}:{}", path, number);
    std::string_view text = trim(line);
    // Whole-line comments, and inline ones after a blank (so paths keep their '#').
    if (text.empty() || text.front() == '#' || text.front() == ';') continue;
    for (size_t i = 1; i < text.size(); ++i)
      if ((text[i] == '#' || text[i] == ';') && std::isspace(static_cast<unsigned char>(text[i - 1]))) {
        text = trim(text.substr(0, i));
        break;
      }
    if (text.front() == '[') {
      if (text.back() != ']')
        throw IOError(fmt::format("malformed section header '{}' at {}", shown(text), where), "",
                      "write a section header as [global]");
      std::string_view section = trim(text.substr(1, text.size() - 2));
      if (section != "global")
        throw ConfigError(fmt::format("unknown config section [{}] at {}", shown(section), where), "",
                          fmt::format("tgc reads only [global] (or keys before any section); "
                                      "valid keys: {}",
                                      joined_keys()));
      continue;
    }
    size_t eq = text.find('=');
    if (eq == std::string_view::npos || trim(text.substr(0, eq)).empty())
      throw IOError(fmt::format("malformed line '{}' at {}", shown(text), where), "",
                    "write 'key = value' lines under [global], comments start with # or ;");
    config.set(trim(text.substr(0, eq)), trim(text.substr(eq + 1)), where);
  }
  if (in.bad()) throw IOError(fmt::format("error reading config file '{}'", path), "", "");
}

Config load_config(const std::string& rc_path, std::string_view flags) {
  Config config;
  if (!rc_path.empty()) apply_rc_file(config, rc_path);
  apply_flags(config, flags, "TGC_FLAGS");
  return config;
}

Config& global_config() {
  // A function-local static is initialised once, thread-safely; when the environment holds
  // a bad setting the initialisation throws and the next call reports it again.
  static Config config = [] {
    std::string rc;
    if (const char* env = std::getenv("TGCRC"); env && *env) {
      rc = env;
      // An rc file named on purpose that is not there is a mistake worth reporting;
      // a missing ~/.tgcrc is the normal case.
      std::error_code ec;
      if (!std::filesystem::exists(rc, ec))
        throw IOError(fmt::format("config file '{}' named by $TGCRC does not exist", rc), "",
                      "create it, or unset TGCRC to read ~/.tgcrc");
    } else if (const char* home = std::getenv("HOME"); home && *home) {
      rc = (std::filesystem::path(home) / ".tgcrc").string();
    }
    const char* flags = std::getenv("TGC_FLAGS");
    return load_config(rc, flags ? flags : "");
  }();
  return config;
}

}  // namespace tgc
