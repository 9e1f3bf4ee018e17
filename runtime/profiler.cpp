// runtime: profiler (in progress).
