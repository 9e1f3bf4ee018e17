// render_preamble / render_body / render: one translation unit of entries per kernel.
#include <fmt/format.h>

#include "backends/c_family/kernel_render.h"
#include "backends/c_family/render_common.h"
#include "backends/c_family/render_scalar.h"

namespace tgc::cfam {

std::string render_preamble(Dialect dialect) { return scalar_preamble(DialectHooks(dialect)); }

Source render_body(const Kernel& kernel, const RenderOptions& options) {
  kernel.validate();
  const Float32Rows rows = options.fast_math           ? Float32Rows::All
                           : options.float32_in_double ? Float32Rows::Exact
                                                       : Float32Rows::Transcendental;
  detail::Ctx c{kernel, DialectHooks(options.dialect), rows, options.name_prefix,
                detail::param_layout(kernel), options.only_entry, options.only_entries};
  Source src;
  src.params_capacity = c.layout.capacity();
  src.may_fail = detail::kernel_may_fail(kernel);
  std::string code = fmt::format("\n// {}: {}\n", options.name_prefix, kernel.expression_str());
  code += fmt::format("typedef struct {{ {} v[{}]; }} {};\n", c.d.i64(), src.params_capacity, c.params_type());
  code += kernel.is_reduction() ? detail::render_reduction_entries(c, src.entries, src.wide_index)
                                : detail::render_elementwise_entries(c, src.entries, src.wide_index);
  src.code = std::move(code);
  return src;
}

Source render(const Kernel& kernel, const RenderOptions& options) {
  Source src = render_body(kernel, options);
  src.code = render_preamble(options.dialect) + src.code;
  return src;
}

}  // namespace tgc::cfam
