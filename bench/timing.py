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


def best_seconds(fn, number, rounds, clock=time.perf_counter):
    """Seconds per call of ``fn``: the fastest of ``rounds`` batches of ``number`` calls on ``clock``
    (``time.process_time`` where one thread runs, wall time where several do)."""
    best = float("inf")
    for _ in range(rounds):
        t0 = clock()
        for _ in range(number):
            fn()
        best = min(best, (clock() - t0) / number)
    return best
