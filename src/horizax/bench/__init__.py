"""Benchmarks as a library: the harness (`harness`), the peers' adapters (`gridworld`, `maze`,
`orbital`) and ``horizax bench`` (`command`). Nothing is imported until a submodule is."""
