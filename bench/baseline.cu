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
//   fma_kernel      long independent FMA chains, for the FP32 FMA ceiling;
//   dfma_kernel     the same in float64, for the FP64 one.
//   normals_kernel  draws dim normals per chain-sweep with gg_normals4 and
//                   writes one checksum per chain, for the RNG ceiling.
//   empty_kernel    does nothing, for the launch-overhead floor.

#define GB_MAX_DIM 64  // the largest dim generic_sweep accepts
#define GB_BLOCK 128   // threads per block of generic_sweep and normals_kernel

// ---------------------------------------------------------------- random stream
//
// rng.cuh is rendered from templates/rng.cu.tmpl, the template the generated
// samplers use (go generate ./bench; a test fails when it is stale).
#include "rng.cuh"

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
  gg_stage_normals();
  __syncthreads();
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

// fma_kernel in float64: the FP64 FMA ceiling.
extern "C" __global__ void dfma_kernel(double* out, unsigned iters, double a, double b) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  double v[GB_FMA_CHAINS];
#pragma unroll
  for (int k = 0; k < GB_FMA_CHAINS; ++k) v[k] = __int2double_rn((int)(t & 1023u) + k) * 1e-3;
#pragma unroll 32
  for (unsigned it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < GB_FMA_CHAINS; ++k) v[k] = __fma_rn(v[k], a, b);
  }
  double s = 0.0;
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
  gg_stage_normals();
  __syncthreads();
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
