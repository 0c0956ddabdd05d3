"""Latency summaries shared by the benchmarks."""

import statistics


def summarize(samples_s):
    """Median, p90, p99 and mean of samples given in seconds, in ms."""
    ordered = sorted(samples_s)

    def pct(p):
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000

    return {'n': len(ordered),
            'p50_ms': round(statistics.median(ordered) * 1000, 3),
            'p90_ms': round(pct(0.90), 3),
            'p99_ms': round(pct(0.99), 3),
            'mean_ms': round(statistics.fmean(ordered) * 1000, 3)}
