# Writes the PTX variants of gibbs_exact_model that exact_variants.py times
# (issue 28, run 35): from the per-model kernel's CUDA source of dims 32
# and 64 (/tmp/px/exact<dim>.cu: gen's module.render, the PTX image's
# source, written by a throwaway test in package gen), only that entry
# point kept, with its __launch_bounds__ min blocks (mb), the lead of its
# Philox draws in positions (XLEAD: group g drawn at position 4g-XLEAD),
# or no ordering of the draws (XFREE); nvcc 11.8 -ptx, the markers written
# as random values (the same in every variant of a dim), ptxas -v for
# sm_90. Output: dev/px/v<dim>_<name>.ptx.
OUT='/work/main/dev/px'
import re,random,struct,subprocess,sys,os
NEW_STEP=r'''template <int P>
__device__ __forceinline__ void gg_xstep(gg_real (&acc)[GG_DIM], gg_real4& z4, gg_real4& zn, const PhiloxNoise& noise) {
  if constexpr (XLEAD == 0) {
    if constexpr (P % 4 == 0) z4 = XFREE ? noise.group(0, P / 4) : noise.group_after(0, P / 4, acc[P == 0 ? 0 : P - 1]);
  } else {
    if constexpr (P == 0) z4 = noise.group(0, 0);
    else if constexpr (P % 4 == 0) z4 = zn;
    constexpr int Q = P + XLEAD;
    if constexpr (Q % 4 == 0 && Q >= 4 && Q / 4 < GG_GROUPS) zn = noise.group_after(0, Q / 4, acc[P == 0 ? 0 : P - 1]);
  }
  gg_xpush_col<P>(acc, gg_component(z4, P % 4), std::make_integer_sequence<int, GG_DIM - P>{});
}
template <int... Is>
__device__ __forceinline__ void gg_xsums(gg_real (&acc)[GG_DIM], const PhiloxNoise& noise, std::integer_sequence<int, Is...>) {
  ((acc[Is] = gg_xmean<Is>()), ...);
  gg_real4 z4{}, zn{};
  (gg_xstep<Is>(acc, z4, zn, noise), ...);
}
'''
def strip(s):
    # drop the sweep model's entry points
    out=[];i=0
    while True:
        j=s.find('extern "C" __global__',i)
        if j<0: out.append(s[i:]); break
        k=s.find('\n}\n',j)+3
        out.append(s[i:j])
        if 'gibbs_exact_model' in s[j:j+200]: out.append(s[j:k])
        i=k
    return ''.join(out)
def variant(dim, name, mb, lead, free):
    s=strip(open(f'/tmp/px/exact{dim}.cu').read())
    a=s.index('template <int P>\n__device__ __forceinline__ void gg_xstep')
    b=s.index('extern "C" __global__ void __launch_bounds__(GG_BLOCK', a)
    s=s[:a]+f'#define XLEAD {lead}\n#define XFREE {1 if free else 0}\n'+NEW_STEP+'\n'+s[b:]
    s=re.sub(r'__launch_bounds__\(GG_BLOCK, \d+\)\ngibbs_exact_model', f'__launch_bounds__(GG_BLOCK, {mb})\ngibbs_exact_model', s)
    cu=f'/tmp/px/v{dim}_{name}.cu'
    open(cu,'w').write(s)
    ptx=cu[:-3]+'.ptx'
    subprocess.run(['nvcc','-ptx','-O3','--fmad=false','-std=c++17','-arch=compute_75','-o',ptx,cu],check=True)
    p=open(ptx).read()
    rnd=random.Random(dim)
    vals={}
    def imm(m):
        k=m.group(0)
        if k not in vals:
            vals[k]='0f%08X'%struct.unpack('<I',struct.pack('<f',rnd.uniform(-1,1)))[0]
        return vals[k]
    # deterministic: the same marker gets the same value in every variant
    rnd=random.Random(dim)
    keys=sorted(set(re.findall(r'GG[NC]_\d+',p)),key=lambda k:(k[2],int(k[4:])))
    for k in keys: vals[k]='0f%08X'%struct.unpack('<I',struct.pack('<f',rnd.uniform(-1,1)))[0]
    p=re.sub(r'GG[NC]_\d+',lambda m: vals[m.group(0)],p)
    p=re.sub(r'\bGG[WOS][A-Z]?_[0-9]+','0f3F000000',p); p=re.sub(r'\bGGZ\b','0',p); p=re.sub(r'\bGGK\b','0f3F800000',p)
    out=f'{OUT}/v{dim}_{name}.ptx'
    open(out,'w').write(p)
    r=subprocess.run(['ptxas','-arch=sm_90','-v',out,'-o','/tmp/px/t.cubin'],capture_output=True,text=True)
    lines=r.stderr.splitlines()
    for i,l in enumerate(lines):
        if "for gibbs_exact_model" in l:
            print(dim,name,lines[i+1].strip(),lines[i+2].strip())
V=[(64,'mb5L2',5,2,0),(64,'mb5L4',5,4,0),(64,'mb5free',5,0,1),(32,'mb8L2',8,2,0),(32,'mb8L4',8,4,0),(32,'mb8free',8,0,1),(64,'base',4,0,0),(64,'L1',4,1,0),(64,'L2',4,2,0),(64,'L3',4,3,0),(64,'L4',4,4,0),(64,'mb3',3,0,0),(64,'mb3L2',3,2,0),(64,'mb5',5,0,0),(64,'free',4,0,1),(64,'mb6',6,0,0),
   (32,'base',6,0,0),(32,'mb8',8,0,0),(32,'L2',6,2,0),(32,'L4',6,4,0),(32,'mb4L2',4,2,0),(32,'free',6,0,1)]
for v in V: variant(*v)
