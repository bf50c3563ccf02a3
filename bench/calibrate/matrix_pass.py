# Calibration (issue 28): times the candidate gibbs_matrix_pass, one pass
# of the matrix form over every chain as a SIMT GEMM, beside the matrix
# strategy's gibbs_sweep_matrix and the same sweep through PyTorch (randn
# + two addmm, TF32 off), and checks it bit for bit against
# gibbs_sweep_matrix: a forward sweep is one pass in frame 0 (the tables
# random, N lower triangular). Its argument is a directory of the modules'
# sources, pass<dim>_<dtype>.cu, written here by
#   GIBBSGEN_CALIBRATE_OUT=dir go test -run TestMatrixPassSource ./gen
# (the shapes of issue 28's table); it compiles each with nvcc for the
# device's architecture, with the generator's shape ("base") and the
# variants below, by rewriting the shape's #define lines.
# Usage: python3 matrix_pass.py DIR [only] ; with only (e.g. 128_float32)
# it times just that source's base shape once, for ncu.
import glob, os, re, subprocess, sys, numpy as np, cupy as cp

here = sys.argv[1]
only = sys.argv[2] if len(sys.argv) > 2 else ''
dev = cp.cuda.Device()
sms = dev.attributes['MultiProcessorCount']
cc = '%d%d' % dev.compute_capability if isinstance(dev.compute_capability, tuple) else dev.compute_capability
print('SMs', sms, cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), 'sm_' + cc, flush=True)
BATCH = {128: 1 << 20, 256: 65536, 1024: 4096}  # issue 28's shapes


def timeit(f, reps=10):
    for _ in range(2):
        f()
    ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); f(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) * 1000)
    return float(np.median(ts))


def define(src, name):
    return int(re.search(r'#define %s\s+(\d+)' % name, src).group(1))


def variant(src, tm, tn, ty, tx, bk, mb):
    """The source with the pass kernel's shape replaced (None if invalid)."""
    dim = define(src, 'GG_DIM')
    vw = 2 if define(src, 'GG_F64') else 4
    th = ty * tx
    bm, bn = ty * tm, tx * tn
    if bm * bk // 4 != th or (bk * bn) % th or 32 % ty or tm % 4 or tn % vw or bk % 4:
        return None
    vals = dict(GG_QTM=tm, GG_QTN=tn, GG_QTY=ty, GG_QTX=tx, GG_QBM=bm, GG_QBN=bn, GG_QBK=bk,
                GG_QTILES=(dim + bn - 1) // bn, GG_QNL=bk * bn // th)
    for k, v in vals.items():
        src = re.sub(r'#define %s\s+\d+' % k, '#define %s %d' % (k, v), src)
    src = re.sub(r'__launch_bounds__\(GG_QTHREADS, \d+\)', '__launch_bounds__(GG_QTHREADS, %d)' % mb, src)
    return src


VARIANTS = {  # name: (TM, TN, TY, TX, BK, min blocks), per dtype; base is the generator's
    'float32': {'bk16': (8, 4, 8, 32, 16, 2), 'mb1': (8, 8, 16, 16, 8, 1), 'tn4': (8, 4, 16, 16, 8, 2)},
    'float64': {'mb2': (8, 4, 16, 16, 8, 2), 'tm4': (4, 4, 32, 16, 16, 1)},
}


def build(src, tag):
    cu = os.path.join('/tmp', 'mp_%s.cu' % tag)
    cubin = cu[:-3] + '.cubin'
    open(cu, 'w').write(src)
    r = subprocess.run(['nvcc', '-arch=sm_' + cc, '-cubin', '-Xptxas', '-v', '-o', cubin, cu], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-2000:])
    info = ''
    lines = r.stderr.splitlines()
    for i, l in enumerate(lines):
        if "Function properties for gibbs_matrix_pass" in l:
            info = ' '.join(x.strip() for x in lines[i + 1:i + 3])
    return cp.RawModule(path=cubin), info


def tables(mod, dim, mst, dt, rng):
    """Random tables of the matrix form in its layout: M small enough that
    sweeps stay bounded, N lower triangular with a positive diagonal."""
    m = np.zeros((2, dim, mst)); n = np.zeros((3, dim, mst)); c = np.zeros((3, mst))
    for f in range(2):
        m[f, :, :dim] = rng.standard_normal((dim, dim)) * (0.5 / np.sqrt(dim))  # row k holds column k
        low = np.tril(rng.standard_normal((dim, dim)) * 0.1) + np.eye(dim)
        n[f, :, :dim] = low.T
        c[f, :dim] = rng.standard_normal(dim)
    for name, a in (('gibbs_mat_m', m), ('gibbs_mat_n', n), ('gibbs_mat_c', c)):
        g = mod.get_global(name)
        host = a.astype(dt).ravel()
        cp.ndarray(host.shape, dt, g).set(host)
    return m, n, c


def run_source(path):
    name = os.path.basename(path)[4:-3]  # 128_float32
    dim, dts = name.split('_')
    dim = int(dim)
    dt = np.float64 if dts == 'float64' else np.float32
    src = open(path).read()
    B = BATCH[dim]
    mst = define(src, 'GG_MST')
    rng = np.random.default_rng(dim)
    x0 = cp.asarray(rng.standard_normal((B, dim)).astype(dt))
    seed, sweep = np.uint64(0x5eed), np.uint64(1 << 33)
    # The matrix strategy's plain entry point, a forward sweep a pass.
    base_mod, _ = build(src, name + '_base')
    mtx, mty, mc, mzt = (define(src, k) for k in ('GG_MTX', 'GG_MTY', 'GG_MC', 'GG_MZT'))
    msh = (dim + mzt) * mc * np.dtype(dt).itemsize
    tables(base_mod, dim, mst, dt, np.random.default_rng(7))
    fm = base_mod.get_function('gibbs_sweep_matrix')
    want = x0.copy()
    fm(((B + mc - 1) // mc,), (mtx * mty,), (want, np.uint64(B), np.uint32(1), seed, sweep, np.uint64(0)), shared_mem=msh)
    cp.cuda.runtime.deviceSynchronize()
    xm = x0.copy()
    t1 = timeit(lambda: fm(((B + mc - 1) // mc,), (mtx * mty,), (xm, np.uint64(B), np.uint32(1), seed, sweep, np.uint64(0)), shared_mem=msh))
    t100 = timeit(lambda: fm(((B + mc - 1) // mc,), (mtx * mty,), (xm, np.uint64(B), np.uint32(100), seed, sweep, np.uint64(0)), shared_mem=msh), reps=3) / 100
    print(f'{name} B={B}: gibbs_sweep_matrix {t1:.1f} us a one-sweep launch, {t100:.1f} a sweep in 100-sweep launches', flush=True)
    shapes = [('base', None)] + ([] if only else list(VARIANTS[dts].items()))
    for vname, shape in shapes:
        vsrc = src if shape is None else variant(src, *shape)
        if vsrc is None:
            print(f'  {vname}: invalid shape {shape}'); continue
        try:
            mod, info = (base_mod, '') if shape is None else build(vsrc, name + '_' + vname)
        except RuntimeError as e:
            print(f'  {vname}: nvcc failed: {e}'); continue
        if shape is not None:
            tables(mod, dim, mst, dt, np.random.default_rng(7))
        fn = mod.get_function('gibbs_matrix_pass')
        th = define(vsrc, 'GG_QTY') * define(vsrc, 'GG_QTX')
        bm, tiles = define(vsrc, 'GG_QBM'), define(vsrc, 'GG_QTILES')
        mb = int(re.search(r'__launch_bounds__\(GG_QTHREADS, (\d+)\)', vsrc).group(1))
        grid = min((B + bm - 1) // bm * tiles, mb * sms)
        y = cp.empty_like(x0)
        args = (x0, y, np.uint64(B), np.uint32(0), seed, sweep, np.uint64(0))
        fn((grid,), (th,), args)
        cp.cuda.runtime.deviceSynchronize()
        same = bool((y.view(cp.uint32 if dt == np.float32 else cp.uint64) == want.view(cp.uint32 if dt == np.float32 else cp.uint64)).all())
        if only:
            print(f'  {vname}: one launch, {"same bits" if same else "DIFFERS"}'); return
        t = timeit(lambda: fn((grid,), (th,), args))
        print(f'  {vname} {shape or ""}: {t:.1f} us a pass ({t1 / t:.2f}x the one-sweep launch, {t100 / t:.2f}x a sweep in 100), '
              f'{"same bits" if same else "DIFFERS from gibbs_sweep_matrix"}; {info}', flush=True)
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    tdt = torch.float64 if dt == np.float64 else torch.float32
    M = torch.randn(dim, dim, device='cuda', dtype=tdt) * (0.5 / dim ** 0.5)
    L = torch.randn(dim, dim, device='cuda', dtype=tdt).tril()
    c = torch.randn(dim, device='cuda', dtype=tdt)
    x = torch.randn(B, dim, device='cuda', dtype=tdt)
    def sweep_torch():
        z = torch.randn(B, dim, device='cuda', dtype=tdt)
        return torch.addmm(torch.addmm(c, x, M.t()), z, L.t())
    print(f'  torch (randn + two addmm): {timeit(sweep_torch):.1f} us a sweep', flush=True)


for path in sorted(glob.glob(os.path.join(here, 'pass*.cu'))):
    if only and only not in path:
        continue
    try:
        run_source(path)
    except Exception as e:  # one shape's failure leaves the others' figures
        print(os.path.basename(path), 'failed:', repr(e), flush=True)
