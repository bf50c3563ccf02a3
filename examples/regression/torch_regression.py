#!/usr/bin/env python3
"""Blocked Gibbs sampler for the regression example, C chains at once in PyTorch.

Same model, data and preprocessing as oracle.go (see NOTES.md):
    y = X b + e, e ~ N(0, s2 I), phi = 1/s2;  b | tau ~ N(0, I/tau)
    phi ~ Gamma(a0, rate b0), tau ~ Gamma(c0, rate d0)
Per iteration and chain: Q = phi X'X + tau I = L L' (batched Cholesky),
b = Q^-1 phi X'y + L'^-1 z, then phi | b and tau | b from their Gammas.
||y - Xb||^2 is formed from the sufficient statistics (y'y - 2 b'X'y + b'X'X b),
as oracle.go does, so an iteration never touches the n rows.

Timing: one warmup pass of --warmup iterations on a throwaway state (CUDA
context, cuSOLVER/cuBLAS handles, kernel caches), then torch.cuda.synchronize,
then the timed loop of all --iters iterations (burn-in included), then
synchronize. Summaries are accumulated on the device in float64.

ESS is by batch means: each chain's N kept draws are cut into B = floor(sqrt(N))
batches of L = N // B draws (a remainder at the end is left out of the
batches only). W = mean over chains of the within-chain variance, S = mean over
chains of L * variance of that chain's batch means; ESS = C * N * W / S,
i.e. the per-chain batch-means ESS with the two variances averaged over chains
before the ratio is taken (summed over chains).

Prints one JSON object.
"""
import argparse
import csv
import json
import math
import os
import sys
import time

import torch

COLUMNS = ["const", "logpopul", "selfLR", "ClinLR", "DoleLR", "age", "educ", "income"]
RESPONSE = "PID"


def load(path):
    """Intercept + 7 regressors divided by their sd (divisor n, not centred); y = PID."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    n = len(rows)
    cols = []
    for name in COLUMNS[1:]:
        if name == "logpopul":
            v = [math.log(float(r["popul"]) + 0.1) for r in rows]
        else:
            v = [float(r[name]) for r in rows]
        mean = sum(v) / n
        sd = math.sqrt(sum((a - mean) ** 2 for a in v) / n)
        cols.append([a / sd for a in v])
    x = torch.tensor([[1.0] + [c[i] for c in cols] for i in range(n)], dtype=torch.float64)
    y = torch.tensor([float(r[RESPONSE]) for r in rows], dtype=torch.float64)
    return x, y


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", default=os.path.join(here, "testdata", "anes96.csv"))
    ap.add_argument("--chains", type=int, default=4096)
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--burn", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--a0", type=float, default=0.01)
    ap.add_argument("--b0", type=float, default=0.01)
    ap.add_argument("--c0", type=float, default=0.01)
    ap.add_argument("--d0", type=float, default=0.01)
    a = ap.parse_args()
    keep = a.iters - a.burn
    if a.chains < 1 or a.burn < 0 or keep < 4:
        sys.exit("need chains >= 1, burn >= 0 and iters - burn >= 4")
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    dt = getattr(torch, a.dtype)
    torch.manual_seed(a.seed)

    x64, y64 = load(a.csv)
    n, p = x64.shape
    xtx = (x64.T @ x64).to(dev, dt)  # sufficient statistics formed in float64
    xty = (x64.T @ y64).to(dev, dt)
    yty = float(y64 @ y64)
    eye = torch.eye(p, device=dev, dtype=dt)
    C = a.chains
    shape_phi = torch.full((C,), a.a0 + n / 2, device=dev, dtype=dt)
    shape_tau = torch.full((C,), a.c0 + p / 2, device=dev, dtype=dt)

    def step(phi, tau):
        q = phi[:, None, None] * xtx + tau[:, None, None] * eye
        L, info = torch.linalg.cholesky_ex(q)  # no host sync, unlike cholesky
        h = (phi[:, None] * xty).unsqueeze(-1)
        m = torch.cholesky_solve(h, L)
        z = torch.randn(C, p, 1, device=dev, dtype=dt)
        b = (m + torch.linalg.solve_triangular(L.mT, z, upper=True)).squeeze(-1)
        rss = (yty - 2 * (b @ xty) + (b * (b @ xtx)).sum(-1)).clamp_min(0)
        phi = torch._standard_gamma(shape_phi) / (a.b0 + rss / 2)
        tau = torch._standard_gamma(shape_tau) / (a.d0 + (b * b).sum(-1) / 2)
        return b, phi, tau, info

    ones = torch.ones(C, device=dev, dtype=dt)
    phi, tau = ones.clone(), ones.clone()
    for _ in range(a.warmup):  # throwaway state; not timed
        step(phi, tau)
    phi, tau = ones.clone(), ones.clone()

    q = p + 2
    B = max(2, math.isqrt(keep))
    Lb = keep // B
    f64 = dict(device=dev, dtype=torch.float64)
    shift = torch.zeros(C, q, **f64)
    s1, s2 = torch.zeros(C, q, **f64), torch.zeros(C, q, **f64)  # shifted sums
    bsum = torch.zeros(C, q, **f64)  # current batch
    bm1, bm2 = torch.zeros(C, q, **f64), torch.zeros(C, q, **f64)  # batch means, shifted
    bad = torch.zeros(C, dtype=torch.bool, device=dev)

    if cuda:
        torch.cuda.synchronize(dev)
    t0 = time.perf_counter()
    for it in range(a.iters):
        b, phi, tau, info = step(phi, tau)
        bad |= info != 0
        if it < a.burn:
            continue
        d = torch.cat([b, (1 / phi)[:, None], tau[:, None]], 1).double()
        t = it - a.burn
        if t == 0:
            shift = d.clone()
        d = d - shift
        s1 += d
        s2 += d * d
        if t < B * Lb:
            bsum += d
            if (t + 1) % Lb == 0:
                bm = bsum / Lb
                bm1 += bm
                bm2 += bm * bm
                bsum.zero_()
    if cuda:
        torch.cuda.synchronize(dev)
    wall = time.perf_counter() - t0

    N = keep
    mean_c = s1 / N  # per chain, shifted
    var_c = (s2 - N * mean_c**2) / (N - 1)
    bvar_c = (bm2 - B * (bm1 / B) ** 2) / (B - 1)
    W = var_c.mean(0)
    S = (Lb * bvar_c).mean(0)
    ess = (C * N * W / S).cpu().tolist()
    tot = C * N
    # pooled mean and variance over chains, from the shifted per-chain sums
    mc = mean_c + shift
    gmean = mc.mean(0)
    gvar = ((s2 - N * mean_c**2) + N * (mc - gmean) ** 2).sum(0) / (tot - 1)
    names = [f"beta[{k}] {c}" for k, c in enumerate(COLUMNS)] + ["sigma2", "tau"]
    min_ess_beta = min(ess[:p])
    out = {
        "device": str(torch.cuda.get_device_name(dev)) if cuda else str(dev),
        "torch": torch.__version__, "dtype": a.dtype, "csv": os.path.basename(a.csv),
        "n": n, "p": p, "chains": C, "iters": a.iters, "burn": a.burn, "warmup": a.warmup,
        "seed": a.seed, "batches_per_chain": B, "batch_len": Lb,
        "wall_s": wall, "iters_per_s": a.iters / wall,
        "cholesky_failures": int(bad.sum()),
        "mean": dict(zip(names, gmean.cpu().tolist())),
        "sd": dict(zip(names, gvar.clamp_min(0).sqrt().cpu().tolist())),
        "ess": dict(zip(names, ess)),
        "min_ess_beta": min_ess_beta,
        "wall_s_per_ess_beta": wall / min_ess_beta,
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
