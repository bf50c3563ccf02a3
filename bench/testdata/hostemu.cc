// Runs baseline.cu's generic_sweep on the CPU, thread by thread, for
// hostemu_test.go. Build: g++ -O2 -ffp-contract=off -I. -I.. hostemu.cc
//
// stdin, little-endian: int32 dim, stride, chains, sweeps; uint64 seed,
// sweep0, chain0; float32 weight[dim*stride], offset[dim], scale[dim],
// x[chains*dim]. stdout: x after the sweeps.
#include "hostemu.h"
#include "baseline.cu"

#include <cstdio>
#include <vector>

int main() {
  int32_t h[4];
  uint64_t s[3];
  if (fread(h, 4, 4, stdin) != 4 || fread(s, 8, 3, stdin) != 3) return 1;
  const int dim = h[0], stride = h[1], chains = h[2], sweeps = h[3];
  if (dim < 1 || dim > GB_MAX_DIM || stride < dim || chains < 0 || sweeps < 0) return 2;
  std::vector<float> w((size_t)dim * stride), o(dim), k(dim), x((size_t)chains * dim);
  if (fread(w.data(), 4, w.size(), stdin) != w.size() || fread(o.data(), 4, o.size(), stdin) != o.size() ||
      fread(k.data(), 4, k.size(), stdin) != k.size() || fread(x.data(), 4, x.size(), stdin) != x.size())
    return 3;
  blockDim = {GB_BLOCK, 1, 1};
  gridDim = {(unsigned)((chains + GB_BLOCK - 1) / GB_BLOCK), 1, 1};
  // Every thread's share of the normal table, as a block stages it before
  // its barrier (which is a no-op here).
  for (unsigned t = 0; t < GB_BLOCK; ++t) {
    threadIdx = {t, 0, 0};
    gg_stage_normals();
  }
  for (unsigned b = 0; b < gridDim.x; ++b) {
    for (unsigned t = 0; t < GB_BLOCK; ++t) {
      blockIdx = {b, 0, 0};
      threadIdx = {t, 0, 0};
      generic_sweep(x.data(), (unsigned long long)chains, (unsigned)sweeps, s[0], s[1], s[2], dim, stride,
                    w.data(), o.data(), k.data());
    }
  }
  if (fwrite(x.data(), 4, x.size(), stdout) != x.size()) return 4;
  return 0;
}
