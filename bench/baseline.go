package main

import _ "embed"

// baseline.fatbin holds the kernels of baseline.cu: the unspecialized Gibbs
// sweep (generic_sweep), the ceiling kernels (copy_kernel, fma_kernel,
// normals_kernel) and empty_kernel. It is committed; rebuild it after
// editing baseline.cu with `go generate ./bench` (needs nvcc, no GPU).
//
//go:generate go run ./internal/rnggen -o rng.cuh
//go:generate nvcc -fatbin -O3 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -o baseline.fatbin baseline.cu
//go:embed baseline.fatbin
var baselineFatbin []byte

// Entry points of baseline.fatbin, and the constants baseline.cu compiles in.
const (
	kernelGeneric = "generic_sweep"
	kernelCopy    = "copy_kernel"
	kernelFMA     = "fma_kernel"
	kernelNormals = "normals_kernel"
	kernelEmpty   = "empty_kernel"

	genericMaxDim = 64  // GB_MAX_DIM: the largest dim generic_sweep accepts
	genericBlock  = 128 // GB_BLOCK: threads per block of generic_sweep and normals_kernel
	fmaChains     = 8   // GB_FMA_CHAINS: independent FMA chains per thread of fma_kernel
)
