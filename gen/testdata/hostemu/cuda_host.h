// Host definitions of the CUDA constructs a generated module uses, so that
// the module compiles as C++20 and its kernels run on a CPU: one fiber per
// CUDA thread, switched at __syncthreads and at every warp shuffle. Each arithmetic intrinsic is one correctly rounded
// IEEE-754 operation, as on the GPU; compile with -ffp-contract=off so that
// the compiler fuses nothing. The module is compiled with GG_HOST_EMU
// defined, which replaces its few lines of inline PTX (see sampler.cu.tmpl).
//
// Used by gen's TestKernelsOnHost: a check of the kernels' indexing, stream
// and arithmetic order against gibbsrt.Reference that needs no GPU. It says
// nothing about what only a GPU shows (registers, spills, timing, races
// that this schedule does not produce).
#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct uint4 { unsigned x, y, z, w; };
struct uint2 { unsigned x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct dim3 { unsigned x, y, z; };
static inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
static inline uint2 make_uint2(unsigned a, unsigned b) { return {a, b}; }
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
static inline double2 make_double2(double a, double b) { return {a, b}; }

#define __device__
#define __host__
#define __forceinline__ inline
#define __global__
#define __constant__
#define __launch_bounds__(...)
#define __restrict__
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static

// The launch: blocks run one after another; the threads of a block are
// fibers (ucontext) of one OS thread, each run until it reaches a barrier
// or returns, round robin, so that a barrier costs a context switch in user
// space. __syncthreads waits for every live thread of the block; a shuffle
// publishes the lane's value, waits for the live lanes of its warp, reads
// its source lane's, and waits again before the slots are reused.
static dim3 blockIdx, blockDim, gridDim, threadIdx;
// The launch's dynamic shared memory, which its blocks reuse in turn.
static std::vector<char> gg_emu_dynamic_shared;

struct GgFiber {
  ucontext_t ctx;
  unsigned tid;
  int wait;  // 0 runnable, 1 at the block's barrier, 2 at its warp's
  bool done;
};
static std::vector<GgFiber> gg_fibers;
static std::vector<std::vector<char>> gg_stacks;
static std::vector<uint64_t> gg_lanes;  // one exchange slot per thread
static ucontext_t gg_main;
static int gg_cur;
static void (*gg_body)(void*);
static void* gg_body_arg;

static void gg_yield(int wait) {
  gg_fibers[gg_cur].wait = wait;
  swapcontext(&gg_fibers[gg_cur].ctx, &gg_main);
}
static inline void __syncthreads() { gg_yield(1); }

template <class T>
static inline T gg_emu_shfl(T v, int src, int width) {
  static_assert(sizeof(T) <= 8);
  const unsigned t = threadIdx.x, lane = t & 31u;
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  gg_lanes[t] = bits;
  gg_yield(2);
  const unsigned from = (lane & ~(unsigned)(width - 1)) + ((unsigned)src & (unsigned)(width - 1));
  bits = gg_lanes[(t & ~31u) + from];
  gg_yield(2);
  T r;
  std::memcpy(&r, &bits, sizeof(T));
  return r;
}
// __syncwarp waits for the warp's live lanes, the shuffle's barrier: the
// kernels name in mask every lane of the warp that has not returned.
static inline void __syncwarp(unsigned = 0xFFFFFFFFu) { gg_yield(2); }
template <class T>
static inline T __shfl_sync(unsigned, T v, int src, int width = 32) { return gg_emu_shfl(v, src, width); }

static void gg_fiber_main() {
  gg_body(gg_body_arg);
  gg_fibers[gg_cur].done = true;
  swapcontext(&gg_fibers[gg_cur].ctx, &gg_main);
}

// gg_release lets the threads waiting at a barrier everyone live has
// reached go on; it reports whether any did.
static bool gg_release() {
  bool any = false, all = true, someone = false;
  for (auto& f : gg_fibers) {
    if (f.done) continue;
    someone = true;
    if (f.wait != 1) all = false;
  }
  if (someone && all) {
    for (auto& f : gg_fibers) f.wait = 0;
    return true;
  }
  for (size_t w = 0; w * 32 < gg_fibers.size(); ++w) {
    bool warp = true, live = false;
    for (size_t i = 32 * w; i < std::min(gg_fibers.size(), 32 * w + 32); ++i) {
      if (gg_fibers[i].done) continue;
      live = true;
      if (gg_fibers[i].wait != 2) warp = false;
    }
    if (live && warp) {
      for (size_t i = 32 * w; i < std::min(gg_fibers.size(), 32 * w + 32); ++i) gg_fibers[i].wait = 0;
      any = true;
    }
  }
  return any;
}

template <class F>
static void gg_emu_launch(unsigned blocks, unsigned threads, F kernel) {
  gridDim = {blocks, 1, 1};
  blockDim = {threads, 1, 1};
  gg_body = [](void* k) { (*static_cast<F*>(k))(); };
  gg_body_arg = &kernel;
  gg_fibers.assign(threads, GgFiber{});
  gg_lanes.assign(threads, 0);
  gg_stacks.resize(threads);
  for (auto& st : gg_stacks) st.resize(1 << 18);
  for (unsigned b = 0; b < blocks; ++b) {
    blockIdx = {b, 0, 0};
    for (unsigned t = 0; t < threads; ++t) {
      GgFiber& f = gg_fibers[t];
      f.tid = t, f.wait = 0, f.done = false;
      getcontext(&f.ctx);
      f.ctx.uc_stack.ss_sp = gg_stacks[t].data();
      f.ctx.uc_stack.ss_size = gg_stacks[t].size();
      f.ctx.uc_link = nullptr;
      makecontext(&f.ctx, gg_fiber_main, 0);
    }
    for (;;) {
      bool ran = false, left = false;
      for (unsigned t = 0; t < threads; ++t) {
        GgFiber& f = gg_fibers[t];
        if (f.done) continue;
        left = true;
        if (f.wait != 0) continue;
        gg_cur = (int)t;
        threadIdx = {t, 0, 0};
        swapcontext(&gg_main, &f.ctx);
        ran = true;
      }
      if (!left) break;
      if (!ran && !gg_release()) {
        fprintf(stderr, "host emulation: deadlock in block %u\n", b);
        abort();
      }
    }
  }
}

template <class T>
static inline T __ldg(const T* p) { return *p; }
template <typename T>
static inline void __stcg(T* p, T v) { *p = v; }
static inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline int min(int a, int b) { return a < b ? a : b; }
static inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }

static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
static inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static inline float __uint2float_rn(unsigned i) { return (float)i; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fmaf_rn(float a, float b, float c) { return std::fmaf(a, b, c); }
static inline float __fsqrt_rn(float a) { return std::sqrt(a); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline double __drcp_rn(double a) { return 1.0 / a; }
static inline double __dsqrt_rn(double a) { return std::sqrt(a); }
static inline float __double2float_rn(double a) { return (float)a; }
using std::isfinite;
// The fibers of a launch take turns, so an atomic is a plain update.
static inline unsigned atomicMin(unsigned* p, unsigned v) {
  const unsigned old = *p;
  if (v < old) *p = v;
  return old;
}
