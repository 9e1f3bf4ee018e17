// The thread's record of kernel-cache entries used (runtime/kernel_uses.h).
#include "runtime/kernel_uses.h"

#include <atomic>

namespace tgc {

namespace {
thread_local KernelUses* current_uses = nullptr;
std::atomic<uint64_t> next_id{1};
}  // namespace

KernelUses::KernelUses() : id_(next_id++) {}

void KernelUses::add(KernelCache& cache, const KernelCacheKey& key) {
  std::string text = key.text();
  std::lock_guard<std::mutex> lock(mutex_);
  uses_.try_emplace(std::move(text), Use{&cache, key});
}

std::vector<KernelUses::Use> KernelUses::uses() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Use> out;
  out.reserve(uses_.size());
  for (const auto& [text, use] : uses_) out.push_back(use);
  return out;
}

KernelUseScope::KernelUseScope(KernelUses* uses) : previous_(current_uses) { current_uses = uses; }
KernelUseScope::~KernelUseScope() { current_uses = previous_; }

void note_kernel_uses_once(const std::vector<KernelUses::Use>& uses, uint64_t& noted) {
  if (!current_uses || current_uses->id() == noted) return;
  for (const KernelUses::Use& u : uses) current_uses->add(*u.cache, u.key);
  noted = current_uses->id();
}

void note_kernel_use(KernelCache& cache, const KernelCacheKey& key) {
  if (current_uses) current_uses->add(cache, key);
}

}  // namespace tgc
