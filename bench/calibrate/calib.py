# Helpers the calibration scripts share (run on a device, with CuPy).
import numpy as np, cupy as cp


def timeit(f, reps=10, warmup=2):
    """The median of reps timings of f, in µs, by CUDA events, after warmup calls."""
    for _ in range(warmup):
        f()
    ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); f(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) * 1000)
    return float(np.median(ts))
