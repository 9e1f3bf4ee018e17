// runtime: random (in progress).
