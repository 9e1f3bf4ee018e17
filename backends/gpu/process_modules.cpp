// The process's module table per GPU device (backends/gpu/process_modules.h).
#include "backends/gpu/process_modules.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "runtime/kernel_uses.h"

namespace tgc::gpu {

namespace {

struct Entry {
  std::unique_ptr<GpuModule> module;
  std::vector<KernelUses::Use> uses;  // what its build read from or wrote to the kernel cache
  uint64_t noted = 0;  // the id of the record it was last noted in
};

std::mutex& table_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Process lifetime; the families are string literals.
std::map<std::tuple<GpuDevice*, std::string_view, int>, Entry>& table() {
  static auto* modules = new std::map<std::tuple<GpuDevice*, std::string_view, int>, Entry>();
  return *modules;
}

GpuModule& noted(Entry& e) {
  note_kernel_uses_once(e.uses, e.noted);
  return *e.module;
}

}  // namespace

GpuModule* find_process_module(GpuDevice& device, std::string_view family, int variant) {
  std::lock_guard<std::mutex> lock(table_mutex());
  auto it = table().find({&device, family, variant});
  return it == table().end() || !it->second.module ? nullptr : &noted(it->second);
}

GpuModule& add_process_module(GpuDevice& device, std::string_view family, int variant, ModuleSource source) {
  // Under the table's lock, as before this table existed: a module is built once.
  std::lock_guard<std::mutex> lock(table_mutex());
  Entry& e = table()[{&device, family, variant}];
  if (!e.module) {
    KernelUses built;
    {
      KernelUseScope scope(&built);
      e.module = device.load_module(std::move(source));
    }
    e.uses = built.uses();
  }
  return noted(e);
}

ModuleSource unit_entry_source(std::string_view unit, std::string entry, std::function<std::string()> render,
                               bool fast_math, std::string cache_dir) {
  ModuleSource source;
  source.label = std::string(unit) + " kernel " + entry;
  source.entries = {std::move(entry)};
  source.render = [render = std::move(render)](int /*only_entry*/) { return render(); };
  source.fast_math = fast_math;
  source.cache_dir = std::move(cache_dir);
  return source;
}

}  // namespace tgc::gpu
