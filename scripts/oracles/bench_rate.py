"""The one rate loop of the Python bench peers (botocore_bench.py, awscrt_bench.py): calls per
second of `call`, best of five slices of `seconds` after a warm-up of 64 calls."""
import time


def rate(call, seconds):
    for _ in range(64):
        call()
    best = 0.0
    for _ in range(5):
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 5:
            call()
            calls += 1
        best = max(best, calls / (time.perf_counter() - start))
    return best
