"""Benchmarks: ``python -m bench NAME`` (engine, storage, ...). They print their figures."""
