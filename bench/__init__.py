"""Benchmarks for mscustom (see run.py)."""
