package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// TestExactModelOnHost runs gibbs_exact_model, a PTX kernel, through the
// host emulation: its markers read from tables (GG_HOST_EMU) that hold
// what the runtime writes into its PTX, N_2[i][p] at p*dim+i and c_2[i]
// at i, from the twin's matrix tables; its Shifted entry point must give
// those draws plus d. Dim 36 in float32 stores its rows through shared
// memory (GG_STAGE_ROWS); the others per thread.
func TestExactModelOnHost(t *testing.T) {
	k := kernels.Named("gibbs_exact_model")
	exactCases(t, []emuCase{{5, kernels.Float32}, {13, kernels.Float32}, {36, kernels.Float32}, {5, kernels.Float64}, {13, kernels.Float64}},
		func(s Spec) *emuModule { return buildEmuImage(t, s, newImage([]*kernels.Kernel{k})) }, k)
}

// exactModelTables puts into d the emulation's tables of gibbs_exact_model
// from the twin's matrix tables mt.
func exactModelTables[T gibbsrt.Float](d *emuDevice, dim int, mt *gibbsrt.MatrixTables[T]) {
	n, c := make([]T, dim*dim), make([]T, dim)
	for i := range dim {
		c[i] = mt.C[kernels.MatrixVectorAt(mt.Stride, 2, i)]
		for p := 0; p <= i; p++ {
			n[p*dim+i] = mt.N[kernels.MatrixAt(dim, mt.Stride, 2, i, p)]
		}
	}
	d.Symbol("gibbs_emu_exact_n", n)
	d.Symbol("gibbs_emu_exact_c", c)
}

// TestExactGemmOnHost runs gibbs_exact_gemm through the host emulation at
// dims whose coordinate tiles are odd in number (three: a pair of the
// longest and the shortest, then the middle one alone), which
// TestKernelsOnHost's dims do not reach.
func TestExactGemmOnHost(t *testing.T) {
	k := kernels.Named("gibbs_exact_gemm")
	cases := []emuCase{{130, kernels.Float64}, {259, kernels.Float32}}
	for _, c := range cases {
		if sh := kernels.ExactGemmShapeOf(c.dim, c.dt); sh.Tiles != 3 {
			t.Fatalf("dim %d in %s has %d tiles of %d coordinates; the test wants 3", c.dim, c.dt, sh.Tiles, sh.BN)
		}
	}
	exactCases(t, cases, func(s Spec) *emuModule {
		return buildEmuImage(t, s, newImage([]*kernels.Kernel{kernels.ForStrategy(kernels.Matrix), k}))
	}, k)
}

// emuCase is a module's dim and dtype.
type emuCase struct {
	dim int
	dt  kernels.DType
}

// exactCases runs exact-draw kernel k, in the module build makes of each
// case, against the twin (exactOnHost).
func exactCases(t *testing.T, cases []emuCase, build func(Spec) *emuModule, k *kernels.Kernel) {
	runEmuCases(t, cases, build,
		func(t *testing.T, m *emuModule, s Spec) { exactOnHost[float32](t, m, s, k) },
		func(t *testing.T, m *emuModule, s Spec) { exactOnHost[float64](t, m, s, k) })
}

// runEmuCases runs, in parallel subtests, the check of each case's dtype
// (f32 or f64) on the module build makes of it.
func runEmuCases(t *testing.T, cases []emuCase, build func(Spec) *emuModule, f32, f64 func(*testing.T, *emuModule, Spec)) {
	for _, c := range cases {
		t.Run(fmt.Sprintf("dim=%d/%s", c.dim, c.dt), func(t *testing.T) {
			t.Parallel()
			s := Spec{Dim: c.dim, DType: c.dt, Package: "emu", Dir: "emu"}
			run := f32
			if c.dt == kernels.Float64 {
				run = f64
			}
			run(t, build(s), s)
		})
	}
}

// exactOnHost draws three groups of chains, the last partial, over
// emuGrid's two blocks (so that a block loops), from a state of NaNs that
// k must overwrite, and requires the twin's DrawExact bit for bit. A PTX
// kernel (gibbs_exact_model) reads the model from the emulation's tables
// of its markers, the others the matrix block's tables.
func exactOnHost[T gibbsrt.Float](t *testing.T, m *emuModule, s Spec, k *kernels.Kernel) {
	dim := s.Dim
	rng := rand.New(rand.NewPCG(uint64(dim), 11))
	_, ref := hostModel[T](t, dim, rng)
	mt, err := ref.MatrixTables()
	if err != nil {
		t.Fatal(err)
	}
	d := &emuDevice{m: m}
	if k.PTX {
		exactModelTables(d, dim, mt)
	} else {
		d.Symbol(kernels.SymbolMatN, mt.N)
		d.Symbol(kernels.SymbolMatC, mt.C)
	}
	g := k.Launch(dim, s.dtype())
	chains := 2*g.PerBlock + 5
	start := make([]T, chains*dim)
	for i := range start {
		start[i] = T(math.NaN())
	}
	st := gibbsrt.Stream{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}
	x := d.Upload(start)
	d.Launch(k.Name, emuGrid(g, kernels.EntryPlain, chains), g.Threads, x, uint64(chains), st.Seed, st.Sweep, st.Chain)
	d.Read(x)
	var shift []T // the Shifted entry point's d, where k has one
	if k.Shifted != "" {
		shift = gibbstest.RandomState[T](rng, chains*dim, 3)
		xs := d.Upload(start)
		d.Launch(k.Shifted, emuGrid(g, kernels.EntryShifted, chains), g.Threads, xs, uint64(chains), st.Seed, st.Sweep, st.Chain,
			d.Upload(shift))
		d.Read(xs)
	}
	got := d.Run(t)
	want := append([]T(nil), start...)
	if err := ref.DrawExact(want, st); err != nil {
		t.Fatal(err)
	}
	requireSameBits(t, "exact draws by "+k.Name, decode[T](got[0]), want, dim)
	if shift != nil {
		for i, v := range shift { // each element rounded once, as gibbs_shift's pass
			want[i] += v
		}
		requireSameBits(t, "exact draws plus d by "+k.Shifted, decode[T](got[1]), want, dim)
	}
}

// TestExactTriOnHost runs gibbs_exact_tri through the host emulation at
// the shapes TestKernelsOnHost's dims (72 and 129: 16 threads along
// chains, two blocks and one) do not reach: dim 128 (no padding: the
// last Philox group and the last slab count) and dim 250 (8 threads along
// chains, a warp spanning 4 along coordinates).
func TestExactTriOnHost(t *testing.T) {
	k := kernels.Named("gibbs_exact_tri")
	cases := []emuCase{{128, kernels.Float32}, {250, kernels.Float32}}
	if sh := kernels.ExactTriShapeOf(250); sh.TY != 8 {
		t.Fatalf("dim 250 has %d threads along chains; the test wants 8", sh.TY)
	}
	exactCases(t, cases, func(s Spec) *emuModule {
		return buildEmuImage(t, s, newImage([]*kernels.Kernel{kernels.ForStrategy(kernels.Matrix), k}))
	}, k)
}
