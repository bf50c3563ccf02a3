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
# variants below, by rewriting the shape's #define lines. Then the same for
# gibbs_exact_gemm's exact draws (its variants checked against its base,
# which run 37 checked against the twin) beside randn + addmm.
# Usage: python3 matrix_pass.py DIR [only] ; with only (e.g. 128_float32)
# it times just that source's base shape once, for ncu.
import glob, os, re, subprocess, sys, numpy as np, cupy as cp
from calib import timeit

here = sys.argv[1]
only = sys.argv[2] if len(sys.argv) > 2 else ''
dev = cp.cuda.Device()
sms = dev.attributes['MultiProcessorCount']
cc = '%d%d' % dev.compute_capability if isinstance(dev.compute_capability, tuple) else dev.compute_capability
print('SMs', sms, cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), 'sm_' + cc, flush=True)
BATCH = {128: 1 << 20, 256: 65536, 1024: 4096}  # issue 28's shapes


def define(src, name):
    return int(re.search(r'#define %s\s+(\d+)' % name, src).group(1))


def reshape(src, p, tm, tn, ty, tx, bk, mb):
    """The source with the shape of the kernel whose macros start GG_<p>
    replaced (Q: gibbs_matrix_pass, G: gibbs_exact_gemm, whose tiles are
    paired); None where the kernel's static_asserts would fail."""
    dim = define(src, 'GG_DIM')
    vw = 2 if define(src, 'GG_F64') else 4
    th = ty * tx
    bm, bn = ty * tm, tx * tn
    if bm * bk // 4 != th or (bk * bn) % th or 32 % ty or tm % 4 or tn % vw or bk % 4:
        return None
    tiles = (dim + bn - 1) // bn
    vals = {'TM': tm, 'TN': tn, 'TY': ty, 'TX': tx, 'BM': bm, 'BN': bn, 'BK': bk, 'TILES': tiles, 'NL': bk * bn // th}
    if p == 'G':
        vals['PAIRS'] = (tiles + 1) // 2
    for k, v in vals.items():
        src = re.sub(r'#define GG_%s%s\s+\d+' % (p, k), '#define GG_%s%s %d' % (p, k, v), src)
    return re.sub(r'__launch_bounds__\(GG_%sTHREADS, \d+\)' % p, '__launch_bounds__(GG_%sTHREADS, %d)' % (p, mb), src)


VARIANTS = {  # name: (TM, TN, TY, TX, BK, min blocks), per dtype; base is the generator's
    'float32': {'bk16': (8, 4, 8, 32, 16, 2), 'mb1': (8, 8, 16, 16, 8, 1), 'tn4': (8, 4, 16, 16, 8, 2)},
    'float64': {'mb2': (8, 4, 16, 16, 8, 2), 'tn2': (8, 2, 16, 16, 8, 1)},
}


def build(src, tag):
    """Compiles src; returns its module and ptxas's registers and spills
    of each of the two kernels timed here."""
    cu = os.path.join('/tmp', 'mp_%s.cu' % tag)
    cubin = cu[:-3] + '.cubin'
    open(cu, 'w').write(src)
    r = subprocess.run(['nvcc', '-arch=sm_' + cc, '-cubin', '-Xptxas', '-v', '-o', cubin, cu], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(' '.join(l for l in r.stderr.splitlines() if 'error' in l)[-600:])
    info = {'gibbs_matrix_pass': '', 'gibbs_exact_gemm': ''}
    lines = r.stderr.splitlines()
    for i, l in enumerate(lines):
        for k in info:
            if l.strip().endswith('Function properties for ' + k):
                info[k] = ' '.join(x.strip() for x in lines[i + 1:i + 3])
    return cp.RawModule(path=cubin), info


def tables(mod, dim, mst, dt, rng):
    """Random tables of the matrix form in its layout: M small enough that
    sweeps stay bounded, N lower triangular with a positive diagonal in
    every frame (frame 2: exact draws)."""
    m = np.zeros((2, dim, mst)); n = np.zeros((3, dim, mst)); c = np.zeros((3, mst))
    for f in range(3):
        if f < 2:
            m[f, :, :dim] = rng.standard_normal((dim, dim)) * (0.5 / np.sqrt(dim))  # row k holds column k
        n[f, :, :dim] = (np.tril(rng.standard_normal((dim, dim)) * 0.1) + np.eye(dim)).T  # row p holds column p
        c[f, :dim] = rng.standard_normal(dim)
    for name, a in (('gibbs_mat_m', m), ('gibbs_mat_n', n), ('gibbs_mat_c', c)):
        host = a.astype(dt).ravel()
        cp.ndarray(host.shape, dt, mod.get_global(name)).set(host)


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
    base_mod, base_info = build(src, name + '_base')
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
        vsrc = src if shape is None else reshape(src, 'Q', *shape)
        if vsrc is None:
            print(f'  {vname}: invalid shape {shape}'); continue
        try:
            mod, info = (base_mod, base_info) if shape is None else build(vsrc, name + '_' + vname)
        except RuntimeError as e:
            print(f'  {vname}: nvcc failed: {e}'); continue
        try:
            pass_variant(vname, shape, vsrc, mod, info['gibbs_matrix_pass'], dim, mst, dt, B, x0, want, t1, t100)
        except Exception as e:  # a launch the device refuses leaves the other variants' figures
            print(f'  {vname}: failed: {e!r}', flush=True)
        if only:
            return
    exact_section(name, src, base_mod, base_info, dim, dt, B)
    torch_sweep(dim, dt, B)


def pass_variant(vname, shape, vsrc, mod, info, dim, mst, dt, B, x0, want, t1, t100):
    """Checks one shape of gibbs_matrix_pass against gibbs_sweep_matrix's
    forward sweep (want) and times it."""
    seed, sweep = np.uint64(0x5eed), np.uint64(1 << 33)
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
    u = cp.uint32 if dt == np.float32 else cp.uint64
    same = bool((y.view(u) == want.view(u)).all())
    if only:
        print(f'  {vname}: one launch, {"same bits" if same else "DIFFERS"}', flush=True)
        return
    t = timeit(lambda: fn((grid,), (th,), args))
    print(f'  {vname} {shape or ""}: {t:.1f} us a pass ({t1 / t:.2f}x the one-sweep launch, {t100 / t:.2f}x a sweep in 100), '
          f'grid {grid}, {"same bits" if same else "DIFFERS from gibbs_sweep_matrix"}; {info}', flush=True)


def torch_sweep(dim, dt, B):
    """The same sweep through PyTorch: randn + two addmm."""
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


EXACT_VARIANTS = {  # gibbs_exact_gemm's shapes: name: (TM, TN, TY, TX, BK, min blocks)
    'float32': {'bm64': (4, 8, 16, 16, 16, 2), 'bn64': (8, 4, 16, 16, 8, 2)},
    'float64': {'bn32': (8, 2, 16, 16, 8, 2)},
}


def exact_section(name, src, base_mod, base_info, dim, dt, B):
    """Exact draws by gibbs_exact_gemm (GPU-checked against the twin in run
    37) at its shape and variants, each checked against the base's bits,
    and PyTorch's exact sampler (randn + addmm)."""
    base = []
    for vname, shape in [('base', None)] + list(EXACT_VARIANTS[np.dtype(dt).name].items()):
        vsrc = src if shape is None else reshape(src, 'G', *shape)
        if vsrc is None:
            print(f'  exact {vname}: invalid shape {shape}'); continue
        try:
            mod, info = (base_mod, base_info) if shape is None else build(vsrc, name + '_x' + vname)
            if shape is not None:
                tables(mod, dim, define(src, 'GG_MST'), dt, np.random.default_rng(7))
            exact_variant(vname, shape, vsrc, mod, info['gibbs_exact_gemm'], dim, dt, B, base)
        except Exception as e:  # nvcc's or the device's refusal leaves the other variants' figures
            print(f'  exact {vname}: failed: {e!r}', flush=True)
    import torch
    tdt = torch.float64 if dt == np.float64 else torch.float32
    L = torch.randn(dim, dim, device='cuda', dtype=tdt).tril()
    c = torch.randn(dim, device='cuda', dtype=tdt)
    def draw():
        return torch.addmm(c, torch.randn(B, dim, device='cuda', dtype=tdt), L.t())
    print(f'  torch exact (randn + addmm): {timeit(draw):.1f} us a draw', flush=True)


def exact_variant(vname, shape, vsrc, mod, info, dim, dt, B, base):
    """Draws with one shape of gibbs_exact_gemm, checks the bits against the
    first shape's (base: empty until then) and times it."""
    fn = mod.get_function('gibbs_exact_gemm')
    th = define(vsrc, 'GG_GTY') * define(vsrc, 'GG_GTX')
    bm, pairs = define(vsrc, 'GG_GBM'), define(vsrc, 'GG_GPAIRS')
    mb = int(re.search(r'__launch_bounds__\(GG_GTHREADS, (\d+)\)', vsrc).group(1))
    grid = min((B + bm - 1) // bm * pairs, mb * sms)
    x = cp.empty((B, dim), dt)
    args = (x, np.uint64(B), np.uint64(0x5eed), np.uint64(1 << 33), np.uint64(0))
    fn((grid,), (th,), args)
    cp.cuda.runtime.deviceSynchronize()
    bits = x.view(cp.uint32 if dt == np.float32 else cp.uint64).copy()
    if not base:
        base.append(bits)
    same = bool((bits == base[0]).all())
    t = timeit(lambda: fn((grid,), (th,), args))
    print(f'  exact {vname} {shape or ""}: {t:.1f} us a draw, grid {grid}, '
          f'{"same bits" if same else "DIFFERS from the base"}; {info}', flush=True)


for path in sorted(glob.glob(os.path.join(here, 'pass*.cu'))):
    if only and only not in path:
        continue
    try:
        run_source(path)
    except Exception as e:  # one shape's failure leaves the others' figures
        print(os.path.basename(path), 'failed:', repr(e), flush=True)
