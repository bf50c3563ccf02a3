package main

import (
	_ "embed"
	"fmt"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/internal/cuda"
)

// baseline.fatbin holds the kernels of baseline.cu: the unspecialized Gibbs
// sweep (generic_sweep), the ceiling kernels (copy_kernel, fma_kernel,
// dfma_kernel, normals_kernel) and empty_kernel. It is committed; rebuild it after
// editing baseline.cu with `go generate ./bench` (needs nvcc, no GPU), which
// first rewrites rng.cuh, the random stream's device code, from
// templates/rng.cu.tmpl (gen's TestRNGHeader; it fails when rng.cuh is stale).
//
//go:generate go test -count=1 -run TestRNGHeader ../gen -update
//go:generate nvcc -fatbin -O3 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -o baseline.fatbin baseline.cu
//go:embed baseline.fatbin
var baselineFatbin []byte

// Entry points of baseline.fatbin, and the constants baseline.cu compiles in.
const (
	kernelGeneric = "generic_sweep"
	kernelCopy    = "copy_kernel"
	kernelFMA     = "fma_kernel"
	kernelDFMA    = "dfma_kernel"
	kernelNormals = "normals_kernel"
	kernelEmpty   = "empty_kernel"

	genericMaxDim = 64  // GB_MAX_DIM: the largest dim generic_sweep accepts
	genericBlock  = 128 // GB_BLOCK: threads per block of generic_sweep and normals_kernel
	fmaChains     = 8   // GB_FMA_CHAINS: independent FMA chains per thread of fma_kernel
)

// maxGridX is CUDA's limit on gridDim.x.
const maxGridX = 1<<31 - 1

// blocks returns ceil(n/per), or an error past CUDA's grid limit.
func blocks(n, per int) (uint32, error) {
	g := (n + per - 1) / per
	if g > maxGridX {
		return 0, fmt.Errorf("%d elements need %d blocks of %d, over CUDA's grid limit", n, g, per)
	}
	return uint32(g), nil
}

// launchGeneric queues generic_sweep over chains chains at x, a buffer of
// the bench's context, with d's coefficient tables.
func (b *bench) launchGeneric(d *dimRun, x cuda.DevicePtr, chains, sweeps int, st gibbsrt.Stream) error {
	g, err := blocks(chains, genericBlock)
	if err != nil {
		return err
	}
	return b.ctx.Launch(b.fn[kernelGeneric], [3]uint32{g, 1, 1}, [3]uint32{genericBlock, 1, 1}, 0,
		x, uint64(chains), uint32(sweeps), st.Seed, st.Sweep, st.Chain,
		int32(d.e.dim), int32(d.co.Stride), d.w, d.o, d.k)
}
