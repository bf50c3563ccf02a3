// Baseline and ceiling kernels for gibbsbench (bench/main.go). Not part of
// any generated package; built into baseline.fatbin by
//
//   nvcc -fatbin -O3 -gencode arch=compute_80,code=sm_80 \
//        -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
//        -o baseline.fatbin baseline.cu
//
// (see the go:generate line in baseline.go).
//
//   generic_sweep   the unspecialized Gibbs sweep: one thread per chain, dim a
//                   run-time argument, coefficients in global memory, plain
//                   loops, state in a local array sized GB_MAX_DIM. Same
//                   random stream, update order and rounding as the generated
//                   kernels and gibbsrt.Reference, so its results are checked
//                   bit for bit against the CPU twin.
//   copy_kernel     device-to-device copy, for the memory-bandwidth ceiling.
//   fma_kernel      long independent FMA chains, for the FP32 FMA ceiling.
//   normals_kernel  draws dim normals per chain-sweep with gg_normals4 and
//                   writes one checksum per chain, for the RNG ceiling.
//   empty_kernel    does nothing, for the launch-overhead floor.

#define GB_MAX_DIM 64  // the largest dim generic_sweep accepts
#define GB_BLOCK 128   // threads per block of generic_sweep and normals_kernel

// ---------------------------------------------------------------- random stream
//
// Copied from templates/sampler.cu.tmpl (gg_philox ... gg_normals4) with the
// constants as rendered in out/gibbs*/gibbs*.cu; they are those of
// gibbsrt.TransformConstants.

#define GG_LOG_P0 __uint_as_float(0x3D9021BBu)  // 0.070376836
#define GG_LOG_P1 __uint_as_float(0xBDEBD1B8u)  // -0.1151461
#define GG_LOG_P2 __uint_as_float(0x3DEF251Au)  // 0.116769984
#define GG_LOG_P3 __uint_as_float(0xBDFE5D4Fu)  // -0.12420141
#define GG_LOG_P4 __uint_as_float(0x3E11E9BFu)  // 0.14249323
#define GG_LOG_P5 __uint_as_float(0xBE2AAE50u)  // -0.16668057
#define GG_LOG_P6 __uint_as_float(0x3E4CCEACu)  // 0.20000714
#define GG_LOG_P7 __uint_as_float(0xBE7FFFFCu)  // -0.24999994
#define GG_LOG_P8 __uint_as_float(0x3EAAAAAAu)  // 0.3333333
#define GG_LOG_Q1 __uint_as_float(0xB95E8083u)  // -0.00021219444
#define GG_LOG_Q2 __uint_as_float(0x3F318000u)  // 0.6933594
#define GG_SIN_P0 __uint_as_float(0xB94CA1F9u)  // -0.00019515296
#define GG_SIN_P1 __uint_as_float(0x3C08839Eu)  // 0.008332161
#define GG_SIN_P2 __uint_as_float(0xBE2AAAA3u)  // -0.16666655
#define GG_COS_P0 __uint_as_float(0x37CCF5CEu)  // 2.4433157e-05
#define GG_COS_P1 __uint_as_float(0xBAB6061Au)  // -0.0013887316
#define GG_COS_P2 __uint_as_float(0x3D2AAAA5u)  // 0.041666646
#define GG_ANGLE_STEP __uint_as_float(0x34C90FDBu)  // 3.7450704e-07
#define GG_TWO_M24  __uint_as_float(0x33800000u)  // 2^-24
#define GG_SQRTHF   0x3F3504F3u                    // float32 bits of sqrt(1/2)

__device__ __forceinline__ uint4 gg_philox(uint4 c, uint2 k) {
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k.x += 0x9E3779B9u;
      k.y += 0xBB67AE85u;
    }
    const unsigned hi0 = __umulhi(0xD2511F53u, c.x), lo0 = 0xD2511F53u * c.x;
    const unsigned hi1 = __umulhi(0xCD9E8D57u, c.z), lo1 = 0xCD9E8D57u * c.z;
    c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
  }
  return c;
}

// ln u for u = k*2^-24, k in [1, 2^24] (Cephes logf, see gibbsrt.Log32).
__device__ __forceinline__ float gg_log(float u) {
  const unsigned b = __float_as_uint(u);
  int e = (int)(b >> 23) - 126;
  unsigned mb = (b & 0x007FFFFFu) | 0x3F000000u;
  if (mb < GG_SQRTHF) {
    e -= 1;
    mb += 0x00800000u;
  }
  const float f = __fadd_rn(__uint_as_float(mb), -1.0f);
  const float fe = __int2float_rn(e);
  const float z = __fmul_rn(f, f);
  float p = __fmaf_rn(GG_LOG_P0, f, GG_LOG_P1);
  p = __fmaf_rn(p, f, GG_LOG_P2);
  p = __fmaf_rn(p, f, GG_LOG_P3);
  p = __fmaf_rn(p, f, GG_LOG_P4);
  p = __fmaf_rn(p, f, GG_LOG_P5);
  p = __fmaf_rn(p, f, GG_LOG_P6);
  p = __fmaf_rn(p, f, GG_LOG_P7);
  p = __fmaf_rn(p, f, GG_LOG_P8);
  float y = __fmul_rn(__fmul_rn(p, f), z);
  y = __fmaf_rn(GG_LOG_Q1, fe, y);
  y = __fmaf_rn(-0.5f, z, y);
  return __fmaf_rn(GG_LOG_Q2, fe, __fadd_rn(f, y));
}

// sin and cos of 2*pi*k/2^24 for a 24-bit k (see gibbsrt.SinCos2Pi).
__device__ __forceinline__ void gg_sincos2pi(unsigned k, float* sn, float* cs) {
  const unsigned q = (k + (1u << 21)) >> 22;  // nearest quarter turn
  const int r = (int)k - (int)(q << 22);
  const float a = __fmul_rn(__int2float_rn(r), GG_ANGLE_STEP);
  const float z = __fmul_rn(a, a);
  float ps = __fmaf_rn(GG_SIN_P0, z, GG_SIN_P1);
  ps = __fmaf_rn(ps, z, GG_SIN_P2);
  ps = __fmul_rn(ps, z);
  float s = __fmaf_rn(ps, a, a);
  float pc = __fmaf_rn(GG_COS_P0, z, GG_COS_P1);
  pc = __fmaf_rn(pc, z, GG_COS_P2);
  pc = __fmul_rn(pc, z);
  float c = __fmaf_rn(pc, z, __fmaf_rn(-0.5f, z, 1.0f));
  if (q & 1u) {  // a quarter turn: (s, c) -> (c, -s)
    const float t = s;
    s = c;
    c = -t;
  }
  if (q & 2u) {  // a half turn
    s = -s;
    c = -c;
  }
  *sn = s;
  *cs = c;
}

// Box-Muller on one pair of words: (R cos theta, R sin theta).
__device__ __forceinline__ float2 gg_box_muller(unsigned wr, unsigned wa) {
  const float u = __fmul_rn(__uint2float_rn((wr >> 8) + 1u), GG_TWO_M24);
  const float R = __fsqrt_rn(__fmul_rn(-2.0f, gg_log(u)));
  float s, c;
  gg_sincos2pi(wa >> 8, &s, &c);
  return make_float2(__fmul_rn(R, c), __fmul_rn(R, s));
}

// The four normals of coordinate group g for one chain and sweep.
__device__ __forceinline__ float4 gg_normals4(unsigned long long seed, unsigned long long chain,
                                              unsigned long long sweep, unsigned g) {
  const uint4 ctr = make_uint4((unsigned)chain, (unsigned)(chain >> 32), (unsigned)sweep,
                               ((unsigned)(sweep >> 32) << 16) | g);
  const uint4 w = gg_philox(ctr, make_uint2((unsigned)seed, (unsigned)(seed >> 32)));
  const float2 a = gg_box_muller(w.x, w.y);
  const float2 b = gg_box_muller(w.z, w.w);
  return make_float4(a.x, a.y, b.x, b.y);
}

__device__ __forceinline__ float gg_component(float4 v, int k) {
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

// ---------------------------------------------------------------- generic sweep

// x: [chains][dim] row-major state, updated in place; same parameters as the
// generated gibbs_sweep_* kernels, then dim, the weight row stride
// ((dim+3)&~3) and the coefficient tables in gibbsrt.Coefficients' layout:
// weight[j*stride+i] is the weight of x_j in x_i's conditional mean.
// Requires 1 <= dim <= GB_MAX_DIM (checked by the host).
//
// One sweep updates i = 0, ..., dim-1 in turn, pulling the conditional mean
// in the cyclic order of gibbsrt.Reference:
//   acc = offset[i]; acc = fma(w[j][i], x[j], acc) for j = i+1..dim-1, 0..i-1;
//   x[i] = fma(scale[i], z[i], acc).
extern "C" __global__ void __launch_bounds__(GB_BLOCK)
generic_sweep(float* x, unsigned long long chains, unsigned sweeps, unsigned long long seed,
              unsigned long long sweep0, unsigned long long chain0, int dim, int stride,
              const float* __restrict__ weight, const float* __restrict__ offset,
              const float* __restrict__ scale) {
  const unsigned long long c = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= chains) return;
  float* xc = x + c * (unsigned long long)dim;
  float r[GB_MAX_DIM];
  for (int i = 0; i < dim; ++i) r[i] = xc[i];
  for (unsigned s = 0; s < sweeps; ++s) {
    float4 z = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int i = 0; i < dim; ++i) {
      if ((i & 3) == 0) z = gg_normals4(seed, chain0 + c, sweep0 + s, (unsigned)(i >> 2));
      float acc = offset[i];
      for (int j = i + 1; j < dim; ++j) acc = __fmaf_rn(weight[j * stride + i], r[j], acc);
      for (int j = 0; j < i; ++j) acc = __fmaf_rn(weight[j * stride + i], r[j], acc);
      r[i] = __fmaf_rn(scale[i], gg_component(z, i & 3), acc);
    }
  }
  for (int i = 0; i < dim; ++i) xc[i] = r[i];
}

// ---------------------------------------------------------------- ceilings

// dst[k] = src[k] for k < n (float4s), grid-stride.
extern "C" __global__ void copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst,
                                       unsigned long long n) {
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
       k += step)
    dst[k] = src[k];
}

#define GB_FMA_CHAINS 8  // independent FMA chains per thread

// Each thread runs GB_FMA_CHAINS independent chains v = fma(v, a, b) of
// iters steps: GB_FMA_CHAINS*iters FMAs per thread. The sum is written so
// that nothing is dead code; a and b are run-time values, so nothing folds.
extern "C" __global__ void fma_kernel(float* out, unsigned iters, float a, float b) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float v[GB_FMA_CHAINS];
#pragma unroll
  for (int k = 0; k < GB_FMA_CHAINS; ++k) v[k] = __int2float_rn((int)(t & 1023u) + k) * 1e-3f;
#pragma unroll 32  // 256 FFMAs per loop trip, so loop overhead is < 2% of issue slots
  for (unsigned it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < GB_FMA_CHAINS; ++k) v[k] = __fmaf_rn(v[k], a, b);
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < GB_FMA_CHAINS; ++k) s += v[k];
  out[t] = s;
}

// Draws the dim normals of each chain-sweep with the samplers' gg_normals4
// calls (ceil(dim/4) per chain-sweep) and writes their sum per chain.
extern "C" __global__ void __launch_bounds__(GB_BLOCK)
normals_kernel(float* out, unsigned long long chains, unsigned sweeps, unsigned long long seed,
               unsigned long long sweep0, unsigned long long chain0, int dim) {
  const unsigned long long c = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= chains) return;
  const int groups = (dim + 3) >> 2;
  float sum = 0.0f;
  for (unsigned s = 0; s < sweeps; ++s) {
    for (int g = 0; g < groups; ++g) {
      const float4 z = gg_normals4(seed, chain0 + c, sweep0 + s, (unsigned)g);
      sum += (z.x + z.y) + (z.z + z.w);
    }
  }
  out[c] = sum;
}

// ---------------------------------------------------------------- launch floor

extern "C" __global__ void empty_kernel() {}
