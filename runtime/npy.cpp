// runtime: npy (in progress).
