"""Small timing helpers shared by the benchmarks."""

import statistics
import time


def median_ms(fn, steps, repeat=5):
    """ms per call of ``fn``: the median of ``repeat`` batches of ``steps`` calls (after two warm calls)."""
    fn()
    fn()
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(steps):
            fn()
        runs.append((time.perf_counter() - t0) / steps * 1e3)
    return statistics.median(runs)
