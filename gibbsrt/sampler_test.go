package gibbsrt

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"
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
		s := &Sampler[float32]{m: impl.Module{Dim: c.dim}, sms: 132, have: Strategies()}
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
		s := &Sampler[float32]{m: impl.Module{Dim: c.dim}, sms: 132, have: c.have}
		if got := s.Choose(c.chains, c.sweeps); got != c.want {
			t.Errorf("package with %v, dim %d, %d chains, %d sweeps: Auto picks %v, want %v", c.have, c.dim, c.chains, c.sweeps, got, c.want)
		}
	}
}

// TestLaunchArgsMatchTable is the Go side of the kernel ABI check: every
// entry point of every row gets, from its role's builder, the values and
// types it took before the arguments were built from the table's lists
// (written out below), in the same order.
func TestLaunchArgsMatchTable(t *testing.T) {
	st := Stream{Seed: 1, Sweep: 2, Chain: 3}
	p := func(v uint64) cuda.DevicePtr { return cuda.DevicePtr(v) }
	tr := traceArgs{out: 3, index: 4, thin: 2, cols: 3, chain0: 1, chains: 5}
	ch := chebArgs{table: 5, prev: 6}
	sweep := []any{p(1), uint64(10), uint32(5), uint64(1), uint64(2), uint64(3)}
	type want struct {
		vs   argValues
		args []any
	}
	byRole := map[kernels.Role]want{
		kernels.Sweep:      {sweepArgs(1, 10, 5, st), sweep},
		kernels.SweepNoise: {noiseArgs(1, 2, 10, 5), []any{p(1), p(2), uint64(10), uint32(5)}},
		kernels.Normals:    {normalsArgs(1, 10, 5, st), []any{p(1), uint64(10), uint32(5), uint64(1), uint64(2), uint64(3)}},
		kernels.Philox:     {philoxArgs(1, 2, 10), []any{p(1), p(2), uint32(10)}},
		kernels.Moments:    {momentsArgs(1, 1000, 8, 128, 2), []any{p(1), uint64(1000), uint32(8), uint64(128), p(2)}},
		kernels.Transform:  {transformArgs(1, 7, 100), []any{p(1), uint32(7), uint32(100)}},
		kernels.Exact:      {exactArgs(1, 10, st), []any{p(1), uint64(10), uint64(1), uint64(2), uint64(3)}},
		kernels.Linear:     {linearArgs(1, 2, 3, 10, 4), []any{p(1), p(2), p(3), uint64(10), p(4)}},
		kernels.Shift:      {shiftArgs(1, 2, 300, 10, 30, 3, true), []any{p(1), p(2), uint64(300), uint64(10), uint32(30), p(3), uint32(1)}},
		kernels.Family: {familyArgs(1, 10, 5, st, familyTabs{m: 4, md: 5, b: 6, members: 3, s: 7, w: 8, h: 9, badChains: 11}),
			append(append([]any(nil), sweep...), p(4), p(5), p(6), uint32(3), p(7), p(8), p(9), p(11))},
		kernels.MatrixPass: {passArgs(1, 2, 10, 1, st, 4), []any{p(1), p(2), uint64(10), uint32(1), uint64(1), uint64(6), uint64(3)}},
		kernels.FamilyExact: {familyExactArgs(1, 10, st, familyTabs{m: 4, md: 5, b: 6, members: 3, s: 7, w: 8, h: 9, badChains: 11}),
			[]any{p(1), uint64(10), uint64(1), uint64(2), uint64(3), p(4), p(5), p(6), uint32(3), p(7), p(8), p(9), p(11)}},
	}
	all := extArgs(1, 10, 5, st, Symmetric, ch, tr)
	traced := append(append([]any(nil), sweep...), p(3), uint32(2), uint64(1), uint64(5), p(4), uint32(3))
	ext := append(append([]any(nil), sweep...), uint32(Symmetric), p(5), p(6), p(3), uint32(2), uint64(1), uint64(5), p(4), uint32(3))
	check := func(name string, params []kernels.Param, vs argValues, want []any) {
		t.Helper()
		got, err := vs.args(name, params)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("kernel %s: arguments %#v, %v; want %#v", name, got, err, want)
		}
	}
	for _, k := range kernels.All() {
		w, ok := byRole[k.Role]
		if !ok {
			t.Errorf("kernel %s: no argument builder for its role %d", k.Name, k.Role)
			continue
		}
		check(k.Name, k.Params, w.vs, w.args)
		if k.Role == kernels.Sweep {
			// launchSweeps passes every value to every entry point.
			check(k.Name, k.Params, all, sweep)
			check(k.Traced, k.TracedParams, all, traced)
			check(k.Ext, k.ExtParams, all, ext)
		}
	}
	exact := append(append([]any(nil), sweep...), uint32(kernels.MatrixExactKind), p(0), p(0), p(0), uint32(0), uint64(0), uint64(0), p(0), uint32(0))
	exact[2] = uint32(1)
	k := kernels.ForStrategy(Matrix)
	check(k.Ext, k.ExtParams, exactArgs(1, 10, st), exact)

	// The building can fail: a value the list names that the launch
	// lacks, and a count that does not fit a 32-bit parameter.
	k = kernels.ForStrategy(SharedMemory)
	if _, err := sweepArgs(1, 10, 5, st).args(k.Ext, k.ExtParams); err == nil || !strings.Contains(err.Error(), "argument 6 (kind): the launch has no value for it") {
		t.Errorf("Ext entry point from a plain launch's values: %v", err)
	}
	if _, err := sweepArgs(1, 10, 1<<32, st).args(k.Name, k.Params); err == nil || !strings.Contains(err.Error(), "argument 2 (sweeps) = 4294967296; it must fit 32 bits") {
		t.Errorf("2³² sweeps: %v", err)
	}
}

// TestModuleResolve: the runtime loads what the package lists and
// refuses what it cannot run, naming it.
func TestModuleResolve(t *testing.T) {
	fat := []byte{1}
	ok := impl.Module{Dim: 8, DType: "float32", Fatbin: fat, Kernels: []string{"gibbs_sweep_shared"}}
	if ks, err := ok.Resolve(kernels.Float32); err != nil || len(ks) != 1 || ks[0].Strategy != SharedMemory {
		t.Errorf("one-strategy module: %v, %v", ks, err)
	}
	for _, c := range []struct {
		m    impl.Module
		want string
	}{
		{impl.Module{Dim: 0, DType: "float32", Fatbin: fat, Kernels: ok.Kernels}, "module dim 0"},
		{impl.Module{Dim: 8, DType: "float32", Kernels: ok.Kernels}, "no device code"},
		{impl.Module{Dim: 8, DType: "float16", Fatbin: fat, Kernels: ok.Kernels}, `unknown dtype "float16"`},
		{impl.Module{Dim: 8, DType: "float64", Fatbin: fat, Kernels: ok.Kernels}, "the sampler's element type is float32"},
		{impl.Module{Dim: 8, DType: "float32", Fatbin: fat, Kernels: []string{"gibbs_sweep_unknown"}}, `kernel "gibbs_sweep_unknown", which this runtime does not know`},
		{impl.Module{Dim: 65, DType: "float32", Fatbin: fat, Kernels: ok.Kernels}, "does not support dim 65"},
		{impl.Module{Dim: 8, DType: "float32", Fatbin: fat, Kernels: []string{"gibbs_sweep_shared", "gibbs_sweep_shared"}}, "twice"},
		{impl.Module{Dim: 8, DType: "float32", Fatbin: fat, Kernels: []string{"gibbs_philox"}}, "no sweep kernel"},
	} {
		if _, err := c.m.Resolve(kernels.Float32); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.m, err, c.want)
		}
	}
}

// TestExactKernelChoice: DrawExact launches the tiled exact kernel where
// the module has it, and the matrix kernel's Ext entry point (kind 3,
// the same bits) for a module of gibbsgen 0.9.0 or before, which lacks it.
func TestExactKernelChoice(t *testing.T) {
	resolve := func(names ...string) []*kernels.Kernel {
		ks, err := impl.Module{Dim: 8, DType: "float32", Fatbin: []byte{1}, Kernels: names}.Resolve(kernels.Float32)
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}
	for _, c := range []struct {
		names []string
		want  string
		entry kernels.Entry
	}{
		{[]string{"gibbs_sweep_shared", "gibbs_sweep_matrix", "gibbs_exact"}, "gibbs_exact", kernels.EntryPlain},
		{[]string{"gibbs_sweep_shared", "gibbs_sweep_matrix"}, "gibbs_sweep_matrix", kernels.EntryExt},
	} {
		s := &Sampler[float32]{m: impl.Module{Dim: 8}, kernels: resolve(c.names...), p: &plan[float32]{}}
		k, e, chains, err := s.exactEntry(3*8, Stream{})
		if err != nil || k.Name != c.want || e != c.entry || chains != 3 {
			t.Errorf("module %v: %v entry %v, %d chains, %v; want %s entry %v, 3 chains", c.names, k, e, chains, err, c.want, c.entry)
		}
	}
	s := &Sampler[float32]{m: impl.Module{Dim: 8}, kernels: resolve("gibbs_sweep_shared"), p: &plan[float32]{}}
	var mk *MissingKernelError
	if _, _, err := s.exactCall(8, Stream{}); !errors.As(err, &mk) || mk.Kernel != "gibbs_sweep_matrix" {
		t.Errorf("module without the matrix strategy: %v, want MissingKernelError for gibbs_sweep_matrix", err)
	}
	// With a precision per chain: gibbs_family_exact, up to its dims.
	s = &Sampler[float32]{m: impl.Module{Dim: 8}, kernels: resolve("gibbs_sweep_shared", "gibbs_sweep_matrix", "gibbs_exact"), p: &plan[float32]{},
		prec: &devicePrecision[float32]{}}
	if _, _, err := s.exactCall(8, Stream{}); !errors.As(err, &mk) || mk.Kernel != "gibbs_family_exact" {
		t.Errorf("a precision per chain, module without gibbs_family_exact: %v, want MissingKernelError for it", err)
	}
	s.kernels = resolve("gibbs_sweep_shared", "gibbs_family", "gibbs_family_exact")
	if _, chains, err := s.exactCall(3*8, Stream{}); err != nil || chains != 3 {
		t.Errorf("a precision per chain: %d chains, %v; want 3, nil", chains, err)
	}
	s.m.Dim = kernels.FamilyExactMaxDim(kernels.Float32) + 1
	if _, _, err := s.exactCall(s.m.Dim, Stream{}); err == nil || !strings.Contains(err.Error(), "draws dims up to") {
		t.Errorf("a precision per chain above FamilyExactMaxDim: %v, want errFamilyExactDim", err)
	}
}

// TestSweepNoiseWithoutItsKernel: in a package without the noise kernel
// (dims beyond a chain per thread's) SweepNoise is there and returns
// MissingKernelError, as a generated Sampler, an alias of this type, must.
func TestSweepNoiseWithoutItsKernel(t *testing.T) {
	ks, err := impl.Module{Dim: 8, DType: "float32", Fatbin: []byte{1}, Kernels: []string{"gibbs_sweep_tile"}}.Resolve(kernels.Float32)
	if err != nil {
		t.Fatal(err)
	}
	s := &Sampler[float32]{m: impl.Module{Dim: 8}, kernels: ks, p: &plan[float32]{}}
	var mk *MissingKernelError
	if err := s.SweepNoise(make([]float32, 8), make([]float32, 8), 1); !errors.As(err, &mk) || mk.Kernel != "gibbs_sweep_noise" {
		t.Errorf("SweepNoise without its kernel: %v, want MissingKernelError for gibbs_sweep_noise", err)
	}
}
