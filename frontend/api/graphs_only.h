// Functions made for their graphs alone (tgc show): while a GraphsOnlyScope lives on a thread,
// function() builds and optimizes the graph but does not link it, so no kernel is generated,
// compiled or loaded; calling such a function is a bug (an InternalError). A value the program needs now
// (a .tg constant expression, computed by a function of its own) is made under a
// GraphsOnlyScope::Suspend, which links as usual.
#pragma once

namespace tgc {

class GraphsOnlyScope {
 public:
  GraphsOnlyScope();
  ~GraphsOnlyScope();
  GraphsOnlyScope(const GraphsOnlyScope&) = delete;
  GraphsOnlyScope& operator=(const GraphsOnlyScope&) = delete;

  class Suspend {
   public:
    Suspend();
    ~Suspend();
    Suspend(const Suspend&) = delete;
    Suspend& operator=(const Suspend&) = delete;

   private:
    int saved_;
  };
};

// Whether function() on this thread builds graphs only.
bool graphs_only();

}  // namespace tgc
