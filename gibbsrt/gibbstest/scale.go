package gibbstest

import "math/rand/v2"

// The suites' sizes are chosen for dims up to 64. The CPU twin's work per
// chain and sweep grows as dim², so beyond 64 the CPU-only suites run fewer
// chains, sweeps and models (the statistical bounds follow the sample size,
// so they stay valid, only less tight), and the GPU suites compare fewer
// chains with the twin; the GPU's own batches stay large.

// largeDim is the dim from which the suites scale down.
const largeDim = 64

// cpuChains scales a CPU suite's chain count n by (64/dim)², to at least
// least.
func cpuChains(n, dim, least int) int {
	if dim <= largeDim {
		return n
	}
	return max(least, n*largeDim*largeDim/(dim*dim))
}

// twinBatches are the batch sizes of the GPU-vs-twin comparisons: every
// edge of the blocks up to dim 64, fewer beyond.
func twinBatches(dim int) []int {
	switch {
	case dim <= largeDim:
		return []int{1, 31, 127, 128, 129, 1000, 4097}
	case dim <= 256:
		return []int{1, 31, 129, 600}
	}
	return []int{1, 33, 260}
}

// gpuDistChains is the batch of the GPU distribution checks: a million
// chains up to dim 128, which makes the bounds about 25 times tighter than
// the CPU suite's 4000 (variance errors of about 1% are caught); 65536
// beyond (the host's covariance estimates and exact draws, not the device,
// bound it there).
func gpuDistChains(dim int) int {
	if dim <= 128 {
		return 1 << 20
	}
	return 1 << 16
}

// targetsFor is Targets, or beyond largeDim two of them: the correlated
// chain and the ill-conditioned dense model.
func targetsFor(dim int, rng *rand.Rand) []Model {
	ms := Targets(dim, rng)
	if dim <= largeDim {
		return ms
	}
	return []Model{ms[1], ms[4]}
}
