"""Benchmarks: ``python -m bench NAME`` (engine, storage, ...). They print their figures.

Not part of the installed package: run them from the repository root, in a checkout.
"""
