// The thread's graphs-only depth (frontend/api/graphs_only.h).
#include "frontend/api/graphs_only.h"

namespace tgc {
namespace {

thread_local int t_depth = 0;

}  // namespace

GraphsOnlyScope::GraphsOnlyScope() { ++t_depth; }
GraphsOnlyScope::~GraphsOnlyScope() { --t_depth; }

GraphsOnlyScope::Suspend::Suspend() : saved_(t_depth) { t_depth = 0; }
GraphsOnlyScope::Suspend::~Suspend() { t_depth = saved_; }

bool graphs_only() { return t_depth > 0; }

}  // namespace tgc
