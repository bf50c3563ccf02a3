// Host definitions of the CUDA constructs a generated module uses, so that
// the module compiles as C++20 and its kernels run on a CPU: one std::thread
// per CUDA thread, std::barrier for __syncthreads and for the exchange of
// every warp shuffle. Each arithmetic intrinsic is one correctly rounded
// IEEE-754 operation, as on the GPU; compile with -ffp-contract=off so that
// the compiler fuses nothing. The module is compiled with GG_HOST_EMU
// defined, which replaces its few lines of inline PTX (see sampler.cu.tmpl).
//
// Used by gen's TestKernelsOnHost: a check of the kernels' indexing, stream
// and arithmetic order against gibbsrt.Reference that needs no GPU. It says
// nothing about what only a GPU shows (registers, spills, timing, races
// that this schedule does not produce).
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
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

// The launch: blocks run one after another, the threads of a block at once.
static dim3 blockIdx, blockDim, gridDim;
static thread_local dim3 threadIdx;

struct GgEmuBlock {
  std::barrier<> block;
  std::vector<std::barrier<>*> warps;
  std::vector<uint64_t> lanes;  // one exchange slot per thread
  explicit GgEmuBlock(unsigned threads) : block((std::ptrdiff_t)threads), lanes(threads) {
    for (unsigned w = 0; w * 32 < threads; ++w) warps.push_back(new std::barrier<>((std::ptrdiff_t)std::min(32u, threads - 32 * w)));
  }
  ~GgEmuBlock() {
    for (auto* w : warps) delete w;
  }
};
static GgEmuBlock* gg_emu_block;

static inline void __syncthreads() { gg_emu_block->block.arrive_and_wait(); }

// A shuffle: every lane of the warp publishes its value, waits for the
// others, reads its source lane's, and waits again before the slots are
// reused.
template <class T>
static inline T gg_emu_shfl(T v, int src, int width) {
  static_assert(sizeof(T) <= 8);
  const unsigned t = threadIdx.x, lane = t & 31u;
  auto* w = gg_emu_block->warps[t / 32];
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  gg_emu_block->lanes[t] = bits;
  w->arrive_and_wait();
  const unsigned from = (lane & ~(unsigned)(width - 1)) + ((unsigned)src & (unsigned)(width - 1));
  bits = gg_emu_block->lanes[(t & ~31u) + from];
  w->arrive_and_wait();
  T r;
  std::memcpy(&r, &bits, sizeof(T));
  return r;
}
template <class T>
static inline T __shfl_sync(unsigned, T v, int src, int width = 32) { return gg_emu_shfl(v, src, width); }

template <class F>
static void gg_emu_launch(unsigned blocks, unsigned threads, F kernel) {
  gridDim = {blocks, 1, 1};
  blockDim = {threads, 1, 1};
  for (unsigned b = 0; b < blocks; ++b) {
    blockIdx = {b, 0, 0};
    GgEmuBlock blk(threads);
    gg_emu_block = &blk;
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < threads; ++t) {
      ts.emplace_back([t, &kernel, &blk] {
        threadIdx = {t, 0, 0};
        kernel();
        // A returned thread no longer takes part in barriers.
        blk.block.arrive_and_drop();
        blk.warps[t / 32]->arrive_and_drop();
      });
    }
    for (auto& th : ts) th.join();
  }
}

template <class T>
static inline T __ldg(const T* p) { return *p; }
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
