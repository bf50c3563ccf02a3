package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// TestLinearOnHost runs a linear term per chain through the host
// emulation as the GPU sampler does: gibbs_linear computes the shifts,
// gibbs_shift takes them off the state, a traced sweep kernel of each
// strategy runs, and gibbs_shift puts them back on the state and the
// records; state and records must equal the twin's SweepTrace with
// SetLinear bit for bit. A NaN in h must lower the bad flag to its chain.
func TestLinearOnHost(t *testing.T) {
	// Dims 5 and 13 run gibbs_linear's chain-a-thread form, 72 its
	// element-a-thread form (kernels.LinearShape).
	for _, c := range append(emuCases[:4:4], emuCases[4]) {
		t.Run(fmt.Sprintf("dim=%d/%s", c.dim, c.dt), func(t *testing.T) {
			t.Parallel()
			s := Spec{Dim: c.dim, DType: c.dt, Package: "emu", Dir: "emu"}
			m := buildEmu(t, s)
			if c.dt == kernels.Float64 {
				linearOnHost[float64](t, m, s, c.large)
			} else {
				linearOnHost[float32](t, m, s, c.large)
			}
		})
	}
}

func linearOnHost[T gibbsrt.Float](t *testing.T, m *emuModule, s Spec, large bool) {
	dim, dt := s.Dim, s.dtype()
	rng := rand.New(rand.NewPCG(uint64(dim), 29))
	model, ref := hostModel[T](t, dim, rng)
	chains, sweeps, badChain := 300, 3, 123
	if large {
		chains, sweeps, badChain = 37, 2, 29
	}
	h, _ := gibbstest.LinearTerms[T](model, chains, rng)
	if err := ref.SetLinear(h); err != nil {
		t.Fatal(err)
	}
	inv, err := ref.Inverse()
	if err != nil {
		t.Fatal(err)
	}
	st := gibbsrt.Stream{Seed: 0x1234, Sweep: 1<<40 + 1, Chain: 1<<33 + 2}
	tr := gibbsrt.Trace{Thin: 2, FirstChain: 7, Chains: chains / 3, Coords: []int{0, dim / 2, dim - 1}}
	tr.Coords = slices.Compact(tr.Coords)
	recs, sh := traceShapeOf(tr, dim, chains, st.Sweep, sweeps)
	coord := make([]uint32, sh.cols)
	for i, col := range sh.index {
		if col != math.MaxUint32 {
			coord[col] = uint32(i)
		}
	}
	lin, shift := kernels.Named("gibbs_linear"), kernels.Named("gibbs_shift")
	n := chains * dim
	d := &emuDevice{m: m}
	uploadTables(t, d, s, ref)
	// The shifts, and with a NaN in chain 123 the bad flag.
	shifts := d.Alloc(uint64(n * dt.Size()))
	pinv := d.Upload(inv)
	launchLinear := func(h []T, out emuBuf) emuBuf {
		bad := d.Upload([]uint32{math.MaxUint32})
		g, units := lin.Launch(dim, dt), len(h)
		if g.Unit == "chains" {
			units /= dim
		}
		d.Launch(lin.Name, g.Blocks(units), g.Threads, out, d.Upload(h), pinv, uint64(len(h)/dim), bad)
		return bad
	}
	bad := launchLinear(h, shifts)
	nan := slices.Clone(h)
	nan[badChain*dim+dim-1] = T(math.NaN())
	badNaN := launchLinear(nan, d.Alloc(uint64(n*dt.Size())))
	// The traced chains' shifts, for their records: the same kernel on
	// their rows of h gives the same values.
	traced := d.Alloc(uint64(sh.rows * dim * dt.Size()))
	launchLinear(h[sh.first*dim:(sh.first+sh.rows)*dim], traced)
	d.Read(bad)
	d.Read(badNaN)
	launchShift := func(out emuBuf, elems, rows, cols int, coord any, sub uint32, from emuBuf) {
		g := shift.Launch(dim, dt)
		d.Launch(shift.Name, g.Blocks(elems), g.Threads, out, from, uint64(elems), uint64(rows), uint32(cols), coord, sub)
	}
	var sweepers []*kernels.Kernel
	for _, k := range s.kernels() {
		if k.Role == kernels.Sweep && !k.PTX && k.Strategy != kernels.Matrix {
			sweepers = append(sweepers, k)
		}
	}
	x0 := gibbstest.RandomState[T](rng, n, 4)
	for _, k := range sweepers {
		g := k.Launch(dim, dt)
		x := d.Upload(x0)
		out := d.Alloc(uint64(max(1, recs*sh.rows*sh.cols) * dt.Size()))
		launchShift(x, n, chains, dim, nil, 1, shifts)
		d.Launch(k.Traced, g.Blocks(chains), g.Threads, x, uint64(chains), uint32(sweeps), st.Seed, st.Sweep, st.Chain,
			out, uint32(tr.Thin), uint64(sh.first), uint64(sh.rows), d.Upload(sh.index), uint32(sh.cols))
		launchShift(x, n, chains, dim, nil, 0, shifts)
		launchShift(out, recs*sh.rows*sh.cols, sh.rows, sh.cols, d.Upload(coord), 0, traced)
		d.Read(x)
		d.Read(out)
	}
	got := d.Run(t)
	if b := decode[float32](got[0]); math.Float32bits(b[0]) != math.MaxUint32 {
		t.Errorf("gibbs_linear's bad flag is %d with every h finite, want none (2³²−1)", math.Float32bits(b[0]))
	}
	if b := math.Float32bits(decode[float32](got[1])[0]); b != uint32(badChain) {
		t.Errorf("gibbs_linear's bad flag is %d with a NaN in chain %d's h, want %[2]d", b, badChain)
	}
	want, wantRec := slices.Clone(x0), make([]T, recs*sh.rows*sh.cols)
	if _, err := ref.SweepTrace(want, sweeps, st, tr, wantRec); err != nil {
		t.Fatal(err)
	}
	for i, k := range sweepers {
		requireSameBits(t, k.Traced+" with a linear term: state", decode[T](got[2+2*i]), want, dim)
		requireSameBits(t, k.Traced+" with a linear term: records", decode[T](got[3+2*i])[:len(wantRec)], wantRec, sh.cols)
	}
}
