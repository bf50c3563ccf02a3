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
// at i, from the twin's matrix tables. Its draws of three groups of
// chains, the last partial, over emuGrid's two blocks (so that a block
// loops), from a state of NaNs it must overwrite, must equal the twin's
// DrawExact bit for bit. Dim 36 in float32 stores its rows through
// shared memory (GG_STAGE_ROWS); the others per thread.
func TestExactModelOnHost(t *testing.T) {
	k := kernels.Named("gibbs_exact_model")
	for _, c := range []struct {
		dim int
		dt  kernels.DType
	}{{5, kernels.Float32}, {13, kernels.Float32}, {36, kernels.Float32}, {5, kernels.Float64}, {13, kernels.Float64}} {
		t.Run(fmt.Sprintf("dim=%d/%s", c.dim, c.dt), func(t *testing.T) {
			t.Parallel()
			s := Spec{Dim: c.dim, DType: c.dt, Package: "emu", Dir: "emu"}
			m := buildEmuImage(t, s, newImage([]*kernels.Kernel{k}))
			if c.dt == kernels.Float64 {
				exactModelOnHost[float64](t, m, s, k)
			} else {
				exactModelOnHost[float32](t, m, s, k)
			}
		})
	}
}

func exactModelOnHost[T gibbsrt.Float](t *testing.T, m *emuModule, s Spec, k *kernels.Kernel) {
	dim := s.Dim
	rng := rand.New(rand.NewPCG(uint64(dim), 11))
	model := gibbstest.RandomSPD(dim, 100, rng, gibbstest.NonzeroMean(dim))
	ref := gibbsrt.NewReference[T](dim)
	if err := ref.SetModel(model.Rows(), model.Mu); err != nil {
		t.Fatal(err)
	}
	mt, err := ref.MatrixTables()
	if err != nil {
		t.Fatal(err)
	}
	n, c := make([]T, dim*dim), make([]T, dim)
	for i := range dim {
		c[i] = mt.C[kernels.MatrixVectorAt(mt.Stride, 2, i)]
		for p := 0; p <= i; p++ {
			n[p*dim+i] = mt.N[kernels.MatrixAt(dim, mt.Stride, 2, i, p)]
		}
	}
	g := k.Launch(dim, s.dtype())
	chains := 2*g.PerBlock + 5
	start := make([]T, chains*dim)
	for i := range start {
		start[i] = T(math.NaN())
	}
	st := gibbsrt.Stream{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}
	d := &emuDevice{m: m}
	d.Symbol("gibbs_emu_exact_n", n)
	d.Symbol("gibbs_emu_exact_c", c)
	x := d.Upload(start)
	d.Launch(k.Name, emuGrid(g, kernels.EntryPlain, chains), g.Threads, x, uint64(chains), st.Seed, st.Sweep, st.Chain)
	d.Read(x)
	got := d.Run(t)
	want := append([]T(nil), start...)
	if err := ref.DrawExact(want, st); err != nil {
		t.Fatal(err)
	}
	requireSameBits(t, "exact draws by "+k.Name, decode[T](got[0]), want, dim)
}
