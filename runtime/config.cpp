// runtime: config (in progress).
