// The template helpers of the hand-written kernel units.
#include "backends/c_family/render_template.h"

#include <fmt/format.h>

#include <cctype>

#include "runtime/error.h"

namespace tgc::cfam::tmpl {

std::string subst(const std::string& tmpl, const Tokens& tokens) {
  std::string out;
  out.reserve(tmpl.size() + tmpl.size() / 4);
  for (size_t i = 0; i < tmpl.size();) {
    if (tmpl[i] != '$') {
      out += tmpl[i++];
      continue;
    }
    size_t j = i + 1;
    while (j < tmpl.size() && (std::isupper(static_cast<unsigned char>(tmpl[j])) ||
                               std::isdigit(static_cast<unsigned char>(tmpl[j])) || tmpl[j] == '_'))
      ++j;
    const std::string name = tmpl.substr(i + 1, j - i - 1);
    const auto it = tokens.find(name);
    TGC_INTERNAL_CHECK(it != tokens.end(), "kernel template token $" + name + " unknown");
    out += it->second;
    i = j;
  }
  return out;
}

Tokens dialect_tokens(const DialectHooks& d) {
  return {{"I64", d.i64()},          {"U64", d.u64()},           {"BID", d.block_index()},
          {"TID", d.thread_index()}, {"BDIM", d.block_size()},   {"GDIM", d.grid_size()},
          {"SHARED", d.shared()},    {"BARRIER", d.barrier()}};
}

std::string open_entry(const DialectHooks& d, const std::string& name, const std::vector<Ptr>& ptrs,
                       const std::string& params_type) {
  std::string s = d.entry_qualifier() + " " + name + "(";
  for (const Ptr& p : ptrs)
    s += fmt::format("{}{}{}* {}, ", d.cuda() ? "" : "__global ", p.is_const ? "const " : "", p.type, p.name);
  s += params_type + " P";
  if (!d.cuda())
    for (const Ptr& p : ptrs) s += fmt::format(", {} {}_off", d.u64(), p.name);
  s += ") {\n";
  if (!d.cuda())
    for (const Ptr& p : ptrs) s += fmt::format("  {0} += {0}_off;\n", p.name);
  return s;
}

std::string decompose(const std::string& ix, const std::string& flat, const std::string& rank, int shape_slot,
                      const std::vector<std::pair<std::string, int>>& offsets, const std::string& indent) {
  std::string s = fmt::format("{0}{{\n{0}  {1} t_ = {2};\n", indent, ix, flat);
  s += fmt::format("{0}  for (int d_ = {1} - 1; d_ > 0; --d_) {{\n", indent, rank);
  s += fmt::format("{0}    const {1} n_ = ({1})P.v[{2} + d_];\n{0}    const {1} q_ = t_ / n_;\n", indent, ix, shape_slot);
  s += fmt::format("{0}    const {1} c_ = t_ - q_ * n_;\n{0}    t_ = q_;\n", indent, ix);
  for (const auto& [var, slot] : offsets) s += fmt::format("{}    {} += c_ * ({})P.v[{} + d_];\n", indent, var, ix, slot);
  s += indent + "  }\n";
  for (const auto& [var, slot] : offsets) s += fmt::format("{}  {} += t_ * ({})P.v[{}];\n", indent, var, ix, slot);
  return s + indent + "}\n";
}

}  // namespace tgc::cfam::tmpl
