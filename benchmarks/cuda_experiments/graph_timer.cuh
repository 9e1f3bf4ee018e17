// The timing both experiments share: a CUDA call checked, and one enqueued piece of work
// captured as a CUDA graph, replayed back to back (as tgc replays a call) and timed with events.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      printf("CUDA %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_));            \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

// Median microseconds per replay over `reps` batches of `calls` replays, after `warmup`
// replays; `spread` (if given) gets the largest minus the smallest batch's.
inline float time_graph(cudaStream_t st, const std::function<void(cudaStream_t)>& enq, int calls, int reps,
                        int warmup = 3, float* spread = nullptr) {
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  enq(st);
  CK(cudaStreamEndCapture(st, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  for (int i = 0; i < warmup; ++i) CK(cudaGraphLaunch(ge, st));
  CK(cudaStreamSynchronize(st));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(e0, st));
    for (int i = 0; i < calls; ++i) CK(cudaGraphLaunch(ge, st));
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1000.f / calls);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  if (spread) *spread = t.back() - t.front();
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  CK(cudaGraphExecDestroy(ge));
  CK(cudaGraphDestroy(g));
  return t[t.size() / 2];
}
