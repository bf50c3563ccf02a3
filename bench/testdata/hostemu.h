// Host definitions of the CUDA types and intrinsics baseline.cu uses, so that
// its kernels compile as C++ and run on a CPU (see hostemu.cc and
// hostemu_test.go). Each intrinsic is one correctly rounded IEEE-754 float
// operation, as on the GPU; compile with -ffp-contract=off so the compiler
// fuses nothing.
#include <cmath>
#include <cstdint>
#include <cstring>

struct uint4 { unsigned x, y, z, w; };
struct uint2 { unsigned x, y; };
struct float4 { float x, y, z, w; };
struct float2 { float x, y; };
struct dim3 { unsigned x, y, z; };
static inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
static inline uint2 make_uint2(unsigned a, unsigned b) { return {a, b}; }
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
static inline float2 make_float2(float a, float b) { return {a, b}; }
static dim3 blockIdx, blockDim, threadIdx, gridDim;

#define __device__
#define __forceinline__ inline
#define __global__
#define __launch_bounds__(x)
#define __restrict__
#define __shared__ static

// Threads run one after another, so a barrier has nothing to wait for;
// hostemu.cc stages the shared normal table for every thread first.
static inline void __syncthreads() {}
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }

static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
static inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fmaf_rn(float a, float b, float c) { return std::fmaf(a, b, c); }
static inline float __fsqrt_rn(float a) { return std::sqrt(a); }
static inline float __int2float_rn(int i) { return (float)i; }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline double __int2double_rn(int i) { return (double)i; }
static inline float __uint2float_rn(unsigned i) { return (float)i; }
