// What the hand-written kernel units (render_index, render_rows) are written with: C-family
// templates whose $TOKENS the dialect hooks fill, entry signatures over a params blob passed by
// value, and index decomposition over the blob's shapes and strides.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backends/c_family/dialect.h"

namespace tgc::cfam::tmpl {

using Tokens = std::map<std::string, std::string>;

// Replaces each $NAME (capitals, digits, _) by its token; an unknown name is a renderer bug.
std::string subst(const std::string& tmpl, const Tokens& tokens);

// The tokens every template may use: I64, U64, BID, TID, BDIM, GDIM, SHARED, BARRIER.
Tokens dialect_tokens(const DialectHooks& d);

struct Ptr {
  std::string type;
  bool is_const;
  std::string name;
};

// "QUAL name(ptrs..., PARAMS P[, ulong offsets]) {" and, in OpenCL, each pointer moved by its
// element offset (the ABI of kernel_render.h).
std::string open_entry(const DialectHooks& d, const std::string& name, const std::vector<Ptr>& ptrs,
                       const std::string& params_type);

// Adds coordinate * stride to each (variable, stride slot) for the flat index `flat` split
// over `rank` dims of the shape at blob slot `shape_slot` (outermost first), in `ix` arithmetic.
std::string decompose(const std::string& ix, const std::string& flat, const std::string& rank, int shape_slot,
                      const std::vector<std::pair<std::string, int>>& offsets, const std::string& indent);

}  // namespace tgc::cfam::tmpl
