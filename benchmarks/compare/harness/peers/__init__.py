"""The peer libraries, one module each; PEERS lists them in table order."""

PEERS = ["numpy", "jax", "pytensor", "torch", "cupy"]
