# Calibration (issue 28, run 35): times PTX variants of gibbs_exact_model,
# v<dim>_<name>.ptx in the directory argv[1] (written by
# bench/calibrate/exact_variants_mk.py), loaded through the driver's JIT as
# the runtime loads them; checks each against its dim's base variant bit
# for bit, and times PyTorch's exact sampler (randn + addmm) beside them.
import glob, os, sys, numpy as np, cupy as cp
from cupy.cuda import driver
from calib import timeit
here = sys.argv[1]
only = sys.argv[2] if len(sys.argv) > 2 else ''
sms = cp.cuda.Device().attributes['MultiProcessorCount']
print('SMs', sms, cp.cuda.runtime.getDeviceProperties(0)['name'].decode())
base = {}
for path in sorted(glob.glob(os.path.join(here, 'v*.ptx')), key=lambda p: ('base' not in p, p)):
    name = os.path.basename(path)[:-4]
    if only and only not in name: continue
    dim = int(name[1:].split('_')[0])
    mod = cp.RawModule(path=path)
    fn = mod.get_function('gibbs_exact_model')
    try:
        regs = driver.funcGetAttribute(4, fn.ptr); local = driver.funcGetAttribute(3, fn.ptr)
        occ = driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.ptr, 128, 0)
    except Exception as e:  # the grid then over-fills; the kernel loops either way
        print('attributes:', e); regs = local = -1; occ = 8
    row = [name, f'regs {regs} local {local} blocks/SM {occ}']
    for B in (4096, 65536, 1 << 20):
        x = cp.empty(B * dim, cp.float32)
        grid = min(occ * sms, (B + 127) // 128)
        args = (x, np.uint64(B), np.uint64(12345), np.uint64(7), np.uint64(0))
        t = timeit(lambda: fn((grid,), (128,), args), reps=20, warmup=3)
        bits = x.view(cp.uint32)
        key = (dim, B)
        if 'base' in name: base[key] = bits.copy()
        same = bool((bits == base[key]).all()) if key in base else None
        row.append(f'B={B}: {t:.1f} us{"" if same else " DIFFERS" if same is False else ""}')
    print(' | '.join(row), flush=True)
if not only:
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    for dim in (32, 64):
        for B in (4096, 65536, 1 << 20):
            L = torch.randn(dim, dim, device='cuda').tril(); c = torch.randn(dim, device='cuda')
            def f():
                z = torch.randn(B, dim, device='cuda')
                return torch.addmm(c, z, L.t())
            print(f'torch dim {dim} B={B}: {timeit(f, reps=20, warmup=3):.1f} us', flush=True)
