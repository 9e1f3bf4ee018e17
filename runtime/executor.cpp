// runtime: executor (in progress).
