package gen

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// TestModelOnHost runs gibbs_sweep_model, a PTX kernel, through the host
// emulation: its markers read from tables (GG_HOST_EMU) that hold what
// the runtime writes into its PTX, the twin's Coefficients. Its plain
// entry point (sums pushed), its Pulled one, its Shifted one (on x − d)
// and its traced one must give the twin's bits. Dim 36 loops over groups of chains in its plain entry
// points (Geometry.PlainLoops), over emuGrid's two blocks.
func TestModelOnHost(t *testing.T) {
	k := kernels.Named("gibbs_sweep_model")
	for _, c := range []emuCase{{5, kernels.Float32}, {13, kernels.Float32}, {36, kernels.Float32}, {13, kernels.Float64}} {
		t.Run(fmt.Sprintf("dim=%d/%s", c.dim, c.dt), func(t *testing.T) {
			t.Parallel()
			s := Spec{Dim: c.dim, DType: c.dt, Package: "emu", Dir: "emu"}
			m := buildEmuImage(t, s, newImage([]*kernels.Kernel{k}))
			if c.dt == kernels.Float64 {
				modelOnHost[float64](t, m, s, k)
			} else {
				modelOnHost[float32](t, m, s, k)
			}
		})
	}
}

// modelTables puts into d the emulation's tables of gibbs_sweep_model: co,
// and GGZ's value 0 (the plain entry points do not read it).
func modelTables[T gibbsrt.Float](d *emuDevice, co *gibbsrt.Coefficients[T]) {
	d.Symbol("gibbs_emu_model_w", co.Weight)
	d.Symbol("gibbs_emu_model_o", co.Offset)
	d.Symbol("gibbs_emu_model_s", co.Scale)
	d.Symbol("gibbs_emu_model_k", []T{co.Keep})
	d.Symbol("gibbs_emu_model_staged", []uint32{0})
}

// modelOnHost sweeps random states with k's plain, Pulled and Shifted
// entry points (plain sweeps) and its traced one, and compares states and records with
// the twin's Sweep and SweepTrace.
func modelOnHost[T gibbsrt.Float](t *testing.T, m *emuModule, s Spec, k *kernels.Kernel) {
	dim := s.Dim
	rng := rand.New(rand.NewPCG(uint64(dim), 19))
	model, ref := hostModel[T](t, dim, rng)
	co, err := gibbsrt.NewCoefficients[T](dim, model.Rows(), model.Mu)
	if err != nil {
		t.Fatal(err)
	}
	g := k.Launch(dim, s.dtype())
	st := gibbsrt.Stream{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}
	tr := gibbsrt.Trace{Thin: 2, FirstChain: 1, Coords: []int{0, 3, 4}}
	type run struct {
		entry          string
		chains, sweeps int
		start, shift   []T // shift: the Shifted entry point's d
		traced         bool
	}
	var runs []run
	d := &emuDevice{m: m}
	modelTables(d, co)
	for _, c := range []struct{ chains, sweeps int }{{1, 1}, {2*g.PerBlock + 5, 1}, {129, 3}} {
		for _, entry := range []string{k.Name, k.Pulled, k.Shifted} {
			r := run{entry: entry, chains: c.chains, sweeps: c.sweeps, start: gibbstest.RandomState[T](rng, c.chains*dim, 4)}
			x := d.Upload(r.start)
			args := []any{x, uint64(r.chains), uint32(r.sweeps), st.Seed, st.Sweep, st.Chain}
			if entry == k.Shifted {
				r.shift = gibbstest.RandomState[T](rng, c.chains*dim, 3)
				args = append(args, d.Upload(r.shift))
			}
			d.Launch(entry, emuGrid(g, kernels.EntryPlain, r.chains), g.Threads, args...)
			d.Read(x)
			runs = append(runs, r)
		}
		if c.chains > 1 {
			r := run{entry: k.Traced, chains: c.chains, sweeps: c.sweeps, start: gibbstest.RandomState[T](rng, c.chains*dim, 4), traced: true}
			recs, sh := traceShapeOf(tr, dim, r.chains, st.Sweep, r.sweeps)
			xt, out, index := d.Upload(r.start), d.Alloc(uint64(8*max(1, recs*sh.rows*sh.cols))), d.Upload(sh.index)
			d.Launch(k.Traced, g.Blocks(r.chains), g.Threads,
				xt, uint64(r.chains), uint32(r.sweeps), st.Seed, st.Sweep, st.Chain,
				out, uint32(tr.Thin), uint64(sh.first), uint64(sh.rows), index, uint32(sh.cols))
			d.Read(xt)
			d.Read(out)
			runs = append(runs, r)
		}
	}
	got := d.Run(t)
	for _, r := range runs {
		what := fmt.Sprintf("%s B=%d sweeps=%d", r.entry, r.chains, r.sweeps)
		want := append([]T(nil), r.start...)
		if !r.traced {
			// The Shifted entry point sweeps x − d and hands back x + d,
			// each element rounded once, as gibbs_shift's passes do.
			for i, v := range r.shift {
				want[i] -= v
			}
			if err := ref.Sweep(want, r.sweeps, st); err != nil {
				t.Fatal(err)
			}
			for i, v := range r.shift {
				want[i] += v
			}
			requireSameBits(t, what, decode[T](got[0]), want, dim)
			got = got[1:]
			continue
		}
		recs, sh := traceShapeOf(tr, dim, r.chains, st.Sweep, r.sweeps)
		wantRec := make([]T, recs*sh.rows*sh.cols)
		if _, err := ref.SweepTrace(want, r.sweeps, st, tr, wantRec); err != nil {
			t.Fatal(err)
		}
		requireSameBits(t, what+": state", decode[T](got[0]), want, dim)
		requireSameBits(t, what+": records", decode[T](got[1])[:len(wantRec)], wantRec, 1)
		got = got[2:]
	}
}
