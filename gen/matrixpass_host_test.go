package gen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// TestMatrixPassOnHost runs gibbs_matrix_pass through the host
// emulation, a launch a pass, against the twin's sweeps in the matrix form
// bit for bit: two forward sweeps (frame 0), a backward one (frame 1) and
// a symmetric one (frames 0 then 1, one sweep index), over three groups of
// chains, the last partial, on emuGrid's two blocks (so that a block
// loops over its work items). The dims reach every path: 13 (one tile;
// dim not a multiple of 4 or of a slab: scalar loads and stores, M's last
// slab partial), 36 (whole vectors), 72 in float32 (one partial tile),
// 130 (two tiles in float32, three in float64, the last partial; scalar
// loads of the state, vector stores in float64).
func TestMatrixPassOnHost(t *testing.T) {
	k := kernels.Named("gibbs_matrix_pass")
	cases := []emuCase{{13, kernels.Float32}, {36, kernels.Float32}, {72, kernels.Float32}, {130, kernels.Float32},
		{13, kernels.Float64}, {130, kernels.Float64}}
	runEmuCases(t, cases, func(s Spec) *emuModule {
		return buildEmuImage(t, s, newImage([]*kernels.Kernel{kernels.ForStrategy(kernels.Matrix), k}))
	}, func(t *testing.T, m *emuModule, s Spec) { matrixPassOnHost[float32](t, m, s, k) },
		func(t *testing.T, m *emuModule, s Spec) { matrixPassOnHost[float64](t, m, s, k) })
}

func matrixPassOnHost[T gibbsrt.Float](t *testing.T, m *emuModule, s Spec, k *kernels.Kernel) {
	dim := s.Dim
	rng := rand.New(rand.NewPCG(uint64(dim), 13))
	model, ref := hostModel[T](t, dim, rng)
	mt, err := ref.MatrixTables()
	if err != nil {
		t.Fatal(err)
	}
	d := &emuDevice{m: m}
	d.Symbol(kernels.SymbolMatM, mt.M)
	d.Symbol(kernels.SymbolMatN, mt.N)
	d.Symbol(kernels.SymbolMatC, mt.C)
	g := k.Launch(dim, s.dtype())
	chains := 2*g.PerBlock + 5
	blocks := emuGrid(g, kernels.EntryPlain, chains)
	st := gibbsrt.Stream{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}
	x0 := gibbstest.RandomState[T](rng, chains*dim, 2)
	pass := func(x, y emuBuf, frame uint32, sweep uint64) {
		d.Launch(k.Name, blocks, g.Threads, x, y, uint64(chains), frame, st.Seed, sweep, st.Chain)
	}
	// Each case's passes, in order: frame and sweep index.
	type step struct {
		frame uint32
		sweep uint64
	}
	cases := []struct {
		kind   gibbsrt.SweepKind
		sweeps int
		steps  []step
	}{
		{gibbsrt.Forward, 2, []step{{0, st.Sweep}, {0, st.Sweep + 1}}},
		{gibbsrt.Backward, 1, []step{{1, st.Sweep}}},
		{gibbsrt.Symmetric, 1, []step{{0, st.Sweep}, {1, st.Sweep}}},
	}
	for _, c := range cases {
		a, b := d.Upload(x0), d.Alloc(uint64(len(x0))*uint64(elemBytes[T]()))
		for _, p := range c.steps {
			pass(a, b, p.frame, p.sweep)
			a, b = b, a
		}
		d.Read(a)
	}
	got := d.Run(t)
	for i, c := range cases {
		mref := gibbsrt.NewReference[T](dim)
		if err := mref.SetScheme(gibbsrt.Scheme{Kind: c.kind, Omega: 1, Form: gibbsrt.FormMatrix}); err != nil {
			t.Fatal(err)
		}
		if err := mref.SetModel(model.Rows(), model.Mu); err != nil {
			t.Fatal(err)
		}
		want := append([]T(nil), x0...)
		if err := mref.Sweep(want, c.sweeps, st); err != nil {
			t.Fatal(err)
		}
		requireSameBits(t, fmt.Sprintf("%v sweeps (%d) by %s, a launch a pass", c.kind, c.sweeps, k.Name), decode[T](got[i]), want, dim)
	}
}

// elemBytes is the size of T in bytes.
func elemBytes[T gibbsrt.Float]() int {
	var z T
	if _, ok := any(z).(float32); ok {
		return 4
	}
	return 8
}

// TestMatrixPassSource writes, where GIBBSGEN_CALIBRATE_OUT names a
// directory, the CUDA source of a module of the matrix strategy,
// gibbs_exact_gemm and the candidate gibbs_matrix_pass at each shape
// bench/calibrate/matrix_pass.py times: pass<dim>_<dtype>.cu. It checks
// nothing otherwise.
func TestMatrixPassSource(t *testing.T) {
	dir := os.Getenv("GIBBSGEN_CALIBRATE_OUT")
	if dir == "" {
		t.Skip("GIBBSGEN_CALIBRATE_OUT is not set")
	}
	for _, c := range []emuCase{{128, kernels.Float32}, {256, kernels.Float32}, {1024, kernels.Float32},
		{128, kernels.Float64}, {256, kernels.Float64}, {1024, kernels.Float64}} {
		s := Spec{Dim: c.dim, DType: c.dt, Package: "calibrate", Dir: "calibrate"}
		m, err := resolve(s)
		if err != nil {
			t.Fatal(err)
		}
		src, err := m.renderImage("module.cu", newImage([]*kernels.Kernel{kernels.ForStrategy(kernels.Matrix),
			kernels.Named("gibbs_exact_gemm"), kernels.Named("gibbs_matrix_pass")}))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("pass%d_%s.cu", c.dim, c.dt)), src.Text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
