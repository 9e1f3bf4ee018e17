// The process-wide configuration (runtime/config.h: defaults, ~/.tgcrc, TGC_FLAGS) as seen
// from Python -- tgc.config (python/tgc/config.py) is the attribute-style view over these --
// and what the build knows about itself (devices, version).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"

namespace tgc::python {

void bind_config(nb::module_& m) {
  m.def("config_get", [](const std::string& key) { return global_config().get(key); }, nb::arg("key"),
        "The value of a config key as text; tgc.ConfigError for an unknown key.");
  m.def("config_set", [](const std::string& key, const std::string& value) { global_config().set(key, value, "Python"); },
        nb::arg("key"), nb::arg("value"),
        "Sets a config key from text for the rest of the process (functions compiled later see it).");
  m.def("config_keys", []() { return Config::keys(); }, "Every config key.");
  m.def("devices", []() { return devices(); },
        "The devices this build can run on, one line each (what `tgc devices` prints).");
  m.def("version", []() { return std::string(version()); }, "The tgc library's version, e.g. '0.1.0'.");
}

}  // namespace tgc::python
