"""Speed benchmarks: the engine against plain hand-written implementations."""
