// Theano's default updates: a shared variable may carry the expression of its next value
// (a random draw's advanced state); function() adds it to the updates when the variable is
// reachable from the outputs or updates and the user gave it no update of their own, unless
// FunctionOptions::no_default_updates. Kept here, in the frontend, rather than on SharedValue:
// only function() reads it, and ops/core/variable.h is included by nearly every file.
#pragma once

#include <unordered_set>
#include <utility>
#include <vector>

#include "ops/core/variable.h"

namespace tgc {

// Registers `update` as the default update of the shared variable `var` (replacing any). With
// `weak` the registry does not keep the update alive: it lasts as long as the expression that
// computes it (a draw's node, kept by the draw the user holds), and so with any graph that
// reaches `var` through it; a strong registration (the user's set_default_update) keeps it.
void register_default_update(const VarPtr& var, const VarPtr& update, bool weak);
void unregister_default_update(const VarPtr& var);
// The registered update of `var`'s value, or null.
VarPtr registered_default_update(const SharedValue* value);

// The (shared variable, update) pairs to add for a function whose graph is `roots` (outputs
// and update values): every shared variable reachable from them, or from an added update,
// that has a default update and is not in `updated` (which gains them).
std::vector<std::pair<VarPtr, VarPtr>> collect_default_updates(const std::vector<VarPtr>& roots,
                                                               std::unordered_set<const SharedValue*>& updated);

}  // namespace tgc
