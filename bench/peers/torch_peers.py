#!/usr/bin/env python3
"""The PyTorch peers of gibbsbench's exact draws and matrix-form sweeps.

Issue 28 compares gibbsgen with what a user would write in PyTorch on the
same GPU: an exact draw of B chains from N(mu, Q^-1) as torch.randn plus one
GEMM with the inverse Cholesky factor, and a matrix-form sweep
x' = c + x M^T + z N^T as randn plus two addmm. TF32 is off, so the GEMMs run
in the element type, as ours do. Each figure is the median of CUDA-event
timings of -repeats calls after -warmup untimed ones, on random data (never
zeros); the random models are only operands, since the timing does not
depend on them.

Run on the GPU machine (docs/BENCHMARKS.md gives the exact command):

    python3 bench/peers/torch_peers.py -json peers.json
"""
import argparse
import json
import statistics

import torch

EXACT = [(32, 1 << 20), (64, 1 << 20), (128, 1 << 20), (256, 65536), (1024, 4096)]
SWEEP = [(32, 4096), (128, 1 << 20), (256, 65536), (1024, 4096)]


def timed(fn, warmup, repeats):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)  # µs
    return statistics.median(times)


def exact(dim, batch, dtype, warmup, repeats):
    g = torch.Generator(device="cuda").manual_seed(dim)
    a = torch.randn(dim, dim, device="cuda", dtype=torch.float64, generator=g)
    q = a @ a.T + dim * torch.eye(dim, device="cuda", dtype=torch.float64)
    lt = torch.linalg.inv(torch.linalg.cholesky(q)).T.contiguous().to(dtype)  # x = mu + z L^-T
    mu = torch.randn(dim, device="cuda", dtype=dtype, generator=g)
    out = torch.empty(batch, dim, device="cuda", dtype=dtype)

    def draw():
        z = torch.randn(batch, dim, device="cuda", dtype=dtype)
        torch.addmm(mu, z, lt, out=out)

    return timed(draw, warmup, repeats)


def sweep(dim, batch, dtype, warmup, repeats):
    g = torch.Generator(device="cuda").manual_seed(dim + 1)
    m = (torch.randn(dim, dim, device="cuda", dtype=dtype, generator=g) / dim).T.contiguous()
    n = torch.tril(torch.randn(dim, dim, device="cuda", dtype=dtype, generator=g)).T.contiguous()
    c = torch.randn(dim, device="cuda", dtype=dtype, generator=g)
    x = torch.randn(batch, dim, device="cuda", dtype=dtype, generator=g)
    y = torch.empty_like(x)

    def one():
        z = torch.randn(batch, dim, device="cuda", dtype=dtype)
        torch.addmm(c, x, m, out=y)
        y.addmm_(z, n)

    return timed(one, warmup, repeats)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-warmup", type=int, default=5)
    ap.add_argument("-repeats", type=int, default=20)
    ap.add_argument("-json", default="")
    o = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    for dim, batch in EXACT:
        rows.append({"work": "exact", "dim": dim, "batch": batch, "dtype": "float32",
                     "us": exact(dim, batch, torch.float32, o.warmup, o.repeats)})
    for dtype in (torch.float32, torch.float64):
        for dim, batch in SWEEP:
            rows.append({"work": "matrix-sweep", "dim": dim, "batch": batch, "dtype": str(dtype).split(".")[1],
                         "us": sweep(dim, batch, dtype, o.warmup, o.repeats)})
    print("PyTorch %s, %s, TF32 off: median µs of %d calls" % (torch.__version__, torch.cuda.get_device_name(), o.repeats))
    for r in rows:
        print("%-13s dim %5d  B %8d  %-8s %10.1f" % (r["work"], r["dim"], r["batch"], r["dtype"], r["us"]))
    if o.json:
        with open(o.json, "w") as f:
            json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
