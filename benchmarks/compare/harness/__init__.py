"""benchmarks/compare: tgc against its peers on one machine in one run (see docs/performance.md)."""
