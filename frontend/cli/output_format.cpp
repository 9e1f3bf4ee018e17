// Text of tgc run's results; see output_format.h.
#include "frontend/cli/output_format.h"

#include <fmt/format.h>

#include <filesystem>

#include "runtime/device.h"
#include "runtime/type.h"

namespace tgc::cli {

std::string timing_line(const std::string& function_name, int calls, double seconds) {
  if (calls == 1) return fmt::format("Calling {} once took {:f} seconds", function_name, seconds);
  return fmt::format("Looping {} times took {:f} seconds ({:f} seconds per call)", calls, seconds,
                     calls > 0 ? seconds / calls : 0.0);
}

std::string output_header(size_t index, const std::string& expression, const Tensor& value) {
  return fmt::format("out{} = {}: {} {}", index, expression, dtype_name(value.dtype()),
                     shape_str(value.shape()));
}

std::string format_outputs(const std::vector<std::string>& expressions,
                           const std::vector<Tensor>& values) {
  if (values.empty()) return "(the function has no outputs)\n";
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    // A result left on a device (device_result) is printed from a host copy.
    const Tensor host = values[i].on_host() ? values[i] : values[i].to(host_device());
    out += output_header(i, i < expressions.size() ? expressions[i] : "?", host) + "\n";
    out += (values.size() == 1 ? "Result is " : "") + host.str() + "\n";
  }
  return out;
}

std::string output_path(const std::string& dir, const std::string& function_name, size_t index) {
  return (std::filesystem::path(dir) / fmt::format("{}_{}.npy", function_name, index)).string();
}

}  // namespace tgc::cli
