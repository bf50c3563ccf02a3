package gibbsrt

import (
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// TestChoose pins Auto's rule (see Sampler.Choose) on a 132-SM device with
// every strategy, and that an override wins.
func TestChoose(t *testing.T) {
	for _, c := range []struct {
		dim, chains, sweeps int
		want                Strategy
	}{
		{8, 4096, 100, WarpPerChain}, // small batch, many sweeps
		{8, 4096, 1, ConstMemory},    // weights fit, one sweep: no staging
		{8, 1 << 20, 100, SharedMemory},
		{8, 1 << 20, 1, ConstMemory},
		{20, 1 << 20, 1, ConstMemory},  // 20·20·4 = 1600 B fit the 2 KB fast level
		{22, 1 << 20, 1, SharedMemory}, // 22·24·4 = 2112 B (rows padded to 24) do not
		{32, 4096, 1, WarpPerChain},    // one sweep, but the weights do not fit the constant cache
		{32, 4096, 100, WarpPerChain},
		{32, 132*64 - 1, 100, WarpPerChain},
		{32, 132 * 64, 100, SharedMemory},
		{64, 1 << 20, 1, SharedMemory},
		{9, 100, 5, WarpPerChain},
	} {
		s := &Sampler[float32]{m: ModuleSpec{Dim: c.dim}, sms: 132, have: Strategies()}
		if got := s.Choose(c.chains, c.sweeps); got != c.want {
			t.Errorf("dim %d, %d chains, %d sweeps: Auto picks %v, want %v", c.dim, c.chains, c.sweeps, got, c.want)
		}
		s.strategy = ConstMemory
		if got := s.Choose(c.chains, c.sweeps); got != ConstMemory {
			t.Errorf("override ignored: got %v", got)
		}
	}
}

// TestChooseAmongWhatThePackageHas: Auto never picks a strategy the package
// lacks, and falls back to the last it tried when no rule holds.
func TestChooseAmongWhatThePackageHas(t *testing.T) {
	for _, c := range []struct {
		have                []Strategy
		dim, chains, sweeps int
		want                Strategy
	}{
		{[]Strategy{SharedMemory}, 8, 4096, 1, SharedMemory},
		{[]Strategy{WarpPerChain}, 32, 1 << 20, 100, WarpPerChain},
		{[]Strategy{ConstMemory, WarpPerChain}, 32, 1 << 20, 100, WarpPerChain},
		{[]Strategy{ConstMemory, SharedMemory}, 32, 100, 100, SharedMemory},
		{[]Strategy{ConstMemory}, 64, 1 << 20, 100, ConstMemory},
	} {
		s := &Sampler[float32]{m: ModuleSpec{Dim: c.dim}, sms: 132, have: c.have}
		if got := s.Choose(c.chains, c.sweeps); got != c.want {
			t.Errorf("package with %v, dim %d, %d chains, %d sweeps: Auto picks %v, want %v", c.have, c.dim, c.chains, c.sweeps, got, c.want)
		}
	}
}

// TestLaunchArgsMatchTable is the Go side of the kernel ABI check: the
// argument list each role is launched with matches the table's parameters,
// for every row (gen's tests check the template and the manifest).
func TestLaunchArgsMatchTable(t *testing.T) {
	st := Stream{Seed: 1, Sweep: 2, Chain: 3}
	byRole := map[kernels.Role][]any{
		kernels.Sweep:      sweepArgs(1, 10, 5, st),
		kernels.SweepNoise: noiseArgs(1, 2, 10, 5),
		kernels.Normals:    normalsArgs(1, 10, 5, st),
		kernels.Philox:     philoxArgs(1, 2, 10),
		kernels.Moments:    momentsArgs(1, 1000, 8, 128, 2),
		kernels.Transform:  transformArgs(1, 7, 100),
	}
	ext := extArgs(1, 10, 5, st, Symmetric, chebArgs{table: 5, prev: 6}, traceArgs{out: 3, index: 4, thin: 2, cols: 3, chain0: 1, chains: 5})
	for _, k := range kernels.All() {
		args, ok := byRole[k.Role]
		if !ok {
			t.Errorf("kernel %s: no argument builder for its role %d", k.Name, k.Role)
			continue
		}
		if err := checkArgs(k.Name, k.Params, args); err != nil {
			t.Errorf("kernel %s: %v", k.Name, err)
		}
		if k.Role == kernels.Sweep {
			traced := tracedArgs(1, 10, 5, st, traceArgs{out: 3, index: 4, thin: 2, cols: 3, chain0: 1, chains: 5})
			if err := checkArgs(k.Traced, k.TracedParams, traced); err != nil {
				t.Errorf("kernel %s: %v", k.Traced, err)
			}
			if err := checkArgs(k.Ext, k.ExtParams, ext); err != nil {
				t.Errorf("kernel %s: %v", k.Ext, err)
			}
		}
	}
	// The check can fail: a dropped argument, or a 64-bit count where the
	// kernel takes 32 bits.
	k := kernels.ForStrategy(SharedMemory)
	if err := checkArgs(k.Ext, k.ExtParams, ext[:14]); err == nil || !strings.Contains(err.Error(), "takes 15 arguments, launched with 14") {
		t.Errorf("dropped argument: %v", err)
	}
	if err := checkArgs(k.Name, k.Params, ext); err == nil {
		t.Error("the Ext argument list passed for the plain kernel")
	}
	wide := sweepArgs(1, 10, 5, st)
	wide[2] = uint64(5)
	if err := checkArgs(k.Name, k.Params, wide); err == nil || !strings.Contains(err.Error(), "argument 2 (sweeps) must be a uint32") {
		t.Errorf("uint64 for sweeps: %v", err)
	}
	ptr := sweepArgs(1, 10, 5, st)
	ptr[0] = uint64(ptr[0].(cuda.DevicePtr))
	if err := checkArgs(k.Name, k.Params, ptr); err == nil {
		t.Error("a uint64 passed for the state pointer was accepted")
	}
}

// TestModuleSpecKernels: the runtime loads what the package lists and
// refuses what it cannot run, naming it.
func TestModuleSpecKernels(t *testing.T) {
	fat := []byte{1}
	ok := ModuleSpec{Dim: 8, DType: "float32", Fatbin: fat, Kernels: []string{"gibbs_sweep_shared"}}
	if ks, err := ok.kernels(kernels.Float32); err != nil || len(ks) != 1 || ks[0].Strategy != SharedMemory {
		t.Errorf("one-strategy module: %v, %v", ks, err)
	}
	for _, c := range []struct {
		m    ModuleSpec
		want string
	}{
		{ModuleSpec{Dim: 0, DType: "float32", Fatbin: fat, Kernels: ok.Kernels}, "module dim 0"},
		{ModuleSpec{Dim: 8, DType: "float32", Kernels: ok.Kernels}, "no device code"},
		{ModuleSpec{Dim: 8, DType: "float16", Fatbin: fat, Kernels: ok.Kernels}, `unknown dtype "float16"`},
		{ModuleSpec{Dim: 8, DType: "float64", Fatbin: fat, Kernels: ok.Kernels}, "the sampler's element type is float32"},
		{ModuleSpec{Dim: 8, DType: "float32", Fatbin: fat, Kernels: []string{"gibbs_sweep_unknown"}}, `kernel "gibbs_sweep_unknown", which this runtime does not know`},
		{ModuleSpec{Dim: 65, DType: "float32", Fatbin: fat, Kernels: ok.Kernels}, "does not support dim 65"},
		{ModuleSpec{Dim: 8, DType: "float32", Fatbin: fat, Kernels: []string{"gibbs_sweep_shared", "gibbs_sweep_shared"}}, "twice"},
		{ModuleSpec{Dim: 8, DType: "float32", Fatbin: fat, Kernels: []string{"gibbs_philox"}}, "no sweep kernel"},
	} {
		if _, err := c.m.kernels(kernels.Float32); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.m, err, c.want)
		}
	}
}
