package gibbsrt

import (
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"
	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// TestPassStart: however many passes, none reads the array it writes, the
// first reads x or (odd counts) the copy of x, and the last writes x.
func TestPassStart(t *testing.T) {
	const x, tmp = cuda.DevicePtr(1), cuda.DevicePtr(2)
	for n := 1; n <= 6; n++ {
		src, dst, copyFirst := passStart(n, x, tmp)
		if copyFirst != (n%2 == 1) || (src == x) == copyFirst {
			t.Errorf("%d passes: the first reads %d, copy %v", n, src, copyFirst)
		}
		for i := range n {
			if src == dst {
				t.Fatalf("%d passes: pass %d reads and writes %d", n, i, src)
			}
			if i < n-1 {
				src, dst = dst, src
			}
		}
		if dst != x {
			t.Errorf("%d passes: the last writes %d, not x", n, dst)
		}
	}
}

// TestPassKernel: the matrix form's sweeps run a launch a pass only where
// the hook asks, the module has the pass kernel, the strategy is Matrix and
// the launch records no trace and runs no Chebyshev iteration.
func TestPassKernel(t *testing.T) {
	resolve := func(names ...string) []*kernels.Kernel {
		var ks []*kernels.Kernel
		for _, n := range names {
			ks = append(ks, kernels.Named(n))
		}
		return ks
	}
	mat := kernels.ForStrategy(Matrix)
	s := &Sampler[float32]{m: impl.Module{Dim: 128}, kernels: resolve("gibbs_sweep_tile", "gibbs_sweep_matrix", "gibbs_matrix_pass")}
	check := func(what string, k *kernels.Kernel, tr traceArgs, ch chebArgs, want bool) {
		t.Helper()
		got := s.passKernel(k, tr, ch)
		name := "none"
		if got != nil {
			name = got.Name
		}
		if (got != nil) != want || got != nil && got.Name != "gibbs_matrix_pass" {
			t.Errorf("%s: %s, want the pass kernel %v", what, name, want)
		}
	}
	check("hook off", mat, traceArgs{}, chebArgs{}, false)
	s.matrixPasses = true
	check("hook on", mat, traceArgs{}, chebArgs{}, true)
	check("a trace", mat, traceArgs{out: 1}, chebArgs{}, false)
	check("Chebyshev", mat, traceArgs{}, chebArgs{table: 1}, false)
	check("the tiled strategy", kernels.ForStrategy(Tiled), traceArgs{}, chebArgs{}, false)
	s.kernels = resolve("gibbs_sweep_tile", "gibbs_sweep_matrix")
	check("no pass kernel", mat, traceArgs{}, chebArgs{}, false)
}
