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
	"github.com/gibbsgen/gibbsgen/mcstat"
)

// TestKernelsOnHost runs every fatbin sweep kernel's entry points, of
// modules of several dims in both dtypes, in the host emulation and
// requires the states to equal gibbsrt.Reference's bit for bit: the
// kernels' indexing, stream and arithmetic order, checked without a GPU
// (the GPU suites repeat it on a device).
func TestKernelsOnHost(t *testing.T) {
	for _, c := range emuCases {
		t.Run(fmt.Sprintf("dim=%d/%s", c.dim, c.dt), func(t *testing.T) {
			t.Parallel()
			s := Spec{Dim: c.dim, DType: c.dt, Package: "emu", Dir: "emu"}
			m := buildEmu(t, s)
			if c.dt == kernels.Float64 {
				kernelsOnHost[float64](t, m, s, c.large)
				extKernelsOnHost[float64](t, m, s, c.large)
				momentsOnHost[float64](t, m, s)
			} else {
				kernelsOnHost[float32](t, m, s, c.large)
				extKernelsOnHost[float32](t, m, s, c.large)
				momentsOnHost[float32](t, m, s)
			}
		})
	}
}

// emuCases are the modules the host tests build: small dims, where every
// strategy exists, and larger ones (large: fewer chains and cases, since
// the emulation runs a thread per CUDA thread) where the tiled kernel runs
// 8 and 16 lanes per chain and streams several tiles of rows.
var emuCases = []struct {
	dim   int
	dt    kernels.DType
	large bool
}{
	{5, kernels.Float32, false}, {13, kernels.Float32, false}, {5, kernels.Float64, false}, {13, kernels.Float64, false},
	{72, kernels.Float32, true}, {129, kernels.Float32, true}, {68, kernels.Float64, true},
}

// emuGrid is the grid of a launch of entry point e over units units in the
// emulation: an entry point that loops over its groups (Geometry.PerSM,
// Loops, PlainLoops) gets at most two blocks, so that a block runs several
// groups, as under a device's cap.
func emuGrid(g kernels.Geometry, e kernels.Entry, units int) int {
	if (e == kernels.EntryExt || g.Loops) && g.PerSM > 0 || e.Plain() && g.PlainLoops {
		return min(g.Blocks(units), 2)
	}
	return g.Blocks(units)
}

// kernelsOnHost runs every fatbin sweep kernel's plain and traced entry
// points of m (built from s) and compares states and records with the twin.
func kernelsOnHost[T gibbsrt.Float](t *testing.T, m *emuModule, s Spec, large bool) {
	dim := s.Dim
	{
		{
			rng := rand.New(rand.NewPCG(uint64(dim), 7))
			model, ref := hostModel[T](t, dim, rng)
			// The Matrix strategy's twin: the same model in the matrix form.
			mref := gibbsrt.NewReference[T](dim)
			if err := mref.SetScheme(gibbsrt.Scheme{Kind: gibbsrt.Forward, Omega: 1, Form: gibbsrt.FormMatrix}); err != nil {
				t.Fatal(err)
			}
			if err := mref.SetModel(model.Rows(), model.Mu); err != nil {
				t.Fatal(err)
			}
			st := gibbsrt.Stream{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}
			type run struct {
				k              *kernels.Kernel
				chains, sweeps int
			}
			var runs []run
			for _, k := range s.kernels() {
				if k.Role != kernels.Sweep || k.PTX {
					continue
				}
				shapes := []struct{ chains, sweeps int }{{1, 1}, {129, 3}, {300, 2}}
				if large {
					shapes = shapes[:2]
					shapes[1].chains = 37
				}
				for _, c := range shapes {
					runs = append(runs, run{k, c.chains, c.sweeps})
				}
			}
			d := &emuDevice{m: m}
			uploadTables(t, d, s, ref)
			var starts [][]T
			for _, r := range runs {
				tr := gibbsrt.Trace{Thin: 2, FirstChain: min(1, r.chains-1), Coords: []int{0, 3, 4}}
				x0 := gibbstest.RandomState[T](rng, r.chains*dim, 4)
				starts = append(starts, x0)
				x := d.Upload(x0)
				d.Launch(r.k.Name, emuGrid(r.k.Launch(dim, s.dtype()), kernels.EntryPlain, r.chains), r.k.Launch(dim, s.dtype()).Threads,
					x, uint64(r.chains), uint32(r.sweeps), st.Seed, st.Sweep, st.Chain)
				d.Read(x)
				// The traced entry point, from the same start.
				recs, sh := traceShapeOf(tr, dim, r.chains, st.Sweep, r.sweeps)
				xt, out, index := d.Upload(x0), d.Alloc(uint64(8*max(1, recs*sh.rows*sh.cols))), d.Upload(sh.index)
				d.Launch(r.k.Traced, r.k.Launch(dim, s.dtype()).Blocks(r.chains), r.k.Launch(dim, s.dtype()).Threads,
					xt, uint64(r.chains), uint32(r.sweeps), st.Seed, st.Sweep, st.Chain,
					out, uint32(tr.Thin), uint64(sh.first), uint64(sh.rows), index, uint32(sh.cols))
				d.Read(xt)
				d.Read(out)
			}
			// Exact draws, against the twin: the matrix strategy's Ext
			// entry point, kind 3, from zeros, and each fatbin exact-draw
			// kernel from NaNs (it overwrites every value), on three
			// groups of chains (the last one partial) over emuGrid's two
			// blocks.
			type exactRun struct {
				what  string
				start []T
			}
			var exacts []exactRun
			if exact := kernels.ForStrategy(kernels.Matrix); slices.Contains(s.kernels(), exact) {
				g := exact.Launch(dim, s.dtype())
				chains := 2*g.PerBlock + 5
				start := make([]T, chains*dim)
				x := d.Upload(start)
				d.Launch(exact.Ext, emuGrid(g, kernels.EntryExt, chains), g.Threads, x, uint64(chains), uint32(1), st.Seed, st.Sweep, st.Chain,
					uint32(kernels.MatrixExactKind), nil, nil, nil, uint32(0), uint64(0), uint64(0), nil, uint32(0))
				d.Read(x)
				exacts = append(exacts, exactRun{exact.Ext + " kind 3", start})
			}
			for _, k := range s.kernels() {
				if k.Role != kernels.Exact || k.PTX { // gibbs_exact_model: TestExactModelOnHost
					continue
				}
				g := k.Launch(dim, s.dtype())
				chains := 2*g.PerBlock + 5 // the last group partial, and a block that loops (emuGrid)
				start := make([]T, chains*dim)
				for i := range start {
					start[i] = T(math.NaN())
				}
				x := d.Upload(start)
				d.Launch(k.Name, emuGrid(g, kernels.EntryPlain, chains), g.Threads, x, uint64(chains), st.Seed, st.Sweep, st.Chain)
				d.Read(x)
				exacts = append(exacts, exactRun{k.Name, start})
			}
			got := d.Run(t)
			for j, e := range exacts {
				want := append([]T(nil), e.start...)
				if err := mref.DrawExact(want, st); err != nil {
					t.Fatal(err)
				}
				requireSameBits(t, "exact draws by "+e.what, decode[T](got[len(got)-len(exacts)+j]), want, dim)
			}
			for i, r := range runs {
				ref := ref
				if r.k.Strategy == kernels.Matrix {
					ref = mref
				}
				tr := gibbsrt.Trace{Thin: 2, FirstChain: min(1, r.chains-1), Coords: []int{0, 3, 4}}
				want := append([]T(nil), starts[i]...)
				if err := ref.Sweep(want, r.sweeps, st); err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s B=%d sweeps=%d", r.k.Name, r.chains, r.sweeps)
				requireSameBits(t, what, decode[T](got[3*i]), want, dim)
				recs, sh := traceShapeOf(tr, dim, r.chains, st.Sweep, r.sweeps)
				wantRec := make([]T, recs*sh.rows*sh.cols)
				want = append(want[:0], starts[i]...)
				if _, err := ref.SweepTrace(want, r.sweeps, st, tr, wantRec); err != nil {
					t.Fatal(err)
				}
				requireSameBits(t, what+" traced: state", decode[T](got[3*i+1]), want, dim)
				requireSameBits(t, what+" traced: records", decode[T](got[3*i+2])[:len(wantRec)], wantRec, 1)
			}
		}
	}
}

// hostModel is a host test's model at dim, random dense and SPD of
// condition 100 with a nonzero mean, drawn from rng, and its twin.
func hostModel[T gibbsrt.Float](t *testing.T, dim int, rng *rand.Rand) (gibbstest.Model, *gibbsrt.Reference[T]) {
	t.Helper()
	model := gibbstest.RandomSPD(dim, 100, rng, gibbstest.NonzeroMean(dim))
	ref := gibbsrt.NewReference[T](dim)
	if err := ref.SetModel(model.Rows(), model.Mu); err != nil {
		t.Fatal(err)
	}
	return model, ref
}

// uploadTables fills the module tables of s's kernels from ref's model and
// scheme, as gibbsrt.Sampler.SetModel and its launches do.
func uploadTables[T gibbsrt.Float](t *testing.T, d *emuDevice, s Spec, ref *gibbsrt.Reference[T]) {
	for _, sym := range kernels.SymbolsOf(s.kernels()) {
		data, err := ref.Table(sym.Name)
		if err != nil {
			t.Fatal(err)
		}
		d.Symbol(sym.Name, data)
	}
}

// requireSameBits fails unless got and want are equal bit for bit.
func requireSameBits[T gibbsrt.Float](t *testing.T, what string, got, want []T, dim int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if bitsOf(got[i]) != bitsOf(want[i]) {
			t.Fatalf("%s: chain %d coordinate %d is %v (%x), want %v (%x)", what, i/dim, i%dim,
				got[i], bitsOf(got[i]), want[i], bitsOf(want[i]))
		}
	}
}

// bitsOf returns v's IEEE-754 bit pattern.
func bitsOf[T gibbsrt.Float](v T) uint64 {
	if f, ok := any(v).(float32); ok {
		return uint64(math.Float32bits(f))
	}
	return math.Float64bits(float64(v))
}

// extKernelsOnHost runs every strategy's Ext entry point of m (built from
// s) under each kind of sweep, with over-relaxation, Chebyshev iterations
// and a trace, and requires the states (and records, and previous
// iterates) to equal gibbsrt.Reference's bit for bit.
func extKernelsOnHost[T gibbsrt.Float](t *testing.T, m *emuModule, s Spec, large bool) {
	dim := s.Dim
	type extCase struct {
		name   string
		scheme gibbsrt.Scheme
		cheb   bool
		trace  *gibbsrt.Trace
	}
	cases := []extCase{
		{"plain", gibbsrt.Plain, false, nil},
		{"forward ω=1.5", gibbsrt.Scheme{Kind: gibbsrt.Forward, Omega: 1.5}, false, nil},
		{"backward ω=0.5", gibbsrt.Scheme{Kind: gibbsrt.Backward, Omega: 0.5}, false, nil},
		{"symmetric ω=1", gibbsrt.Scheme{Kind: gibbsrt.Symmetric, Omega: 1}, false, nil},
		{"symmetric ω=1.3 traced", gibbsrt.Scheme{Kind: gibbsrt.Symmetric, Omega: 1.3}, false, &gibbsrt.Trace{Thin: 2, FirstChain: 3, Chains: 40, Coords: []int{0, 2, 4}}},
		{"backward traced", gibbsrt.Scheme{Kind: gibbsrt.Backward, Omega: 1}, false, &gibbsrt.Trace{Thin: 1}},
		{"chebyshev ω=1.2", gibbsrt.Scheme{Kind: gibbsrt.Symmetric, Omega: 1.2}, true, nil},
	}
	if large {
		cases = []extCase{cases[2], cases[4], cases[6]}
	}
	{
		{
			rng := rand.New(rand.NewPCG(uint64(dim), 8))
			model := gibbstest.RandomSPD(dim, 100, rng, gibbstest.NonzeroMean(dim))
			st := gibbsrt.Stream{Seed: 0x0123456789abcdef, Sweep: 1<<33 + 7, Chain: 1<<32 - 3}
			// An even count here and an odd one at large dims: on chip, the
			// iterates alternate between two slots.
			chains, sweeps, first := 131, 4, 2
			if large {
				chains, sweeps = 45, 3
			}
			type check struct {
				what                string
				x, prev, rec        []T
				gotX, gotP, gotRecs int // indices of the reads
			}
			d := &emuDevice{m: m}
			var checks []check
			reads := 0
			for _, c := range cases {
				refs := map[gibbsrt.Form]*gibbsrt.Reference[T]{}
				for _, form := range []gibbsrt.Form{gibbsrt.FormSequential, gibbsrt.FormMatrix} {
					sc := c.scheme
					sc.Form = form
					refs[form] = gibbsrt.NewReference[T](dim)
					if err := refs[form].SetScheme(sc); err != nil {
						t.Fatal(err)
					}
					if err := refs[form].SetModel(model.Rows(), model.Mu); err != nil {
						t.Fatal(err)
					}
				}
				uploadTables(t, d, s, refs[gibbsrt.FormSequential])
				// A Chebyshev case runs an on-chip strategy twice: with its
				// iterates in x and prev, and in dynamic shared memory.
				type extLaunch struct {
					k      *kernels.Kernel
					shared int
				}
				var launches []extLaunch
				for _, k := range s.kernels() {
					if k.Role != kernels.Sweep || k.PTX {
						continue
					}
					launches = append(launches, extLaunch{k, 0})
					if c.cheb && k.ChebyshevOnChip {
						launches = append(launches, extLaunch{k, k.Launch(dim, s.dtype()).ChebyshevShared})
					}
				}
				for _, l := range launches {
					k := l.k
					ref := refs[gibbsrt.FormSequential]
					if k.Strategy == kernels.Matrix {
						ref = refs[gibbsrt.FormMatrix]
					}
					x0 := make([]T, chains*dim)
					p0 := make([]T, chains*dim)
					for i := range x0 {
						x0[i] = T(3 * rng.NormFloat64())
						p0[i] = T(3 * rng.NormFloat64())
					}
					ck := check{what: fmt.Sprintf("%s %s", k.Ext, c.name)}
					if l.shared > 0 {
						ck.what += " (iterates in shared memory)"
					}
					want := append([]T(nil), x0...)
					x := d.Upload(x0)
					var cheb, prev, trace, index any
					kind := uint32(c.scheme.Kind)
					var thin, cols uint32
					var tc0, tcs uint64
					switch {
					case c.cheb:
						wantPrev := append([]T(nil), p0...)
						if err := ref.SweepChebyshev(want, wantPrev, first, sweeps, st); err != nil {
							t.Fatal(err)
						}
						ck.prev = wantPrev
						table := chebyshevTable(t, ref, first, sweeps)
						cheb, prev = d.Upload(table), d.Upload(p0)
					case c.trace != nil:
						recs, shape := traceShapeOf(*c.trace, dim, chains, st.Sweep, sweeps)
						out := make([]T, recs*shape.rows*shape.cols)
						n, err := ref.SweepTrace(want, sweeps, st, *c.trace, out)
						if err != nil || n != recs {
							t.Fatalf("SweepTrace: %d records, %v", n, err)
						}
						ck.rec = out
						trace = d.Alloc(uint64(8 * len(out)))
						index = d.Upload(shape.index)
						thin, cols, tc0, tcs = uint32(c.trace.Thin), uint32(shape.cols), uint64(shape.first), uint64(shape.rows)
					default:
						if err := ref.Sweep(want, sweeps, st); err != nil {
							t.Fatal(err)
						}
					}
					ck.x = want
					d.LaunchShared(k.Ext, emuGrid(k.Launch(dim, s.dtype()), kernels.EntryExt, chains), k.Launch(dim, s.dtype()).Threads, l.shared,
						x, uint64(chains), uint32(sweeps), st.Seed, st.Sweep, st.Chain,
						kind, cheb, prev, trace, thin, tc0, tcs, index, cols)
					d.Read(x)
					ck.gotX = reads
					reads++
					if prev != nil {
						d.Read(prev.(emuBuf))
						ck.gotP = reads
						reads++
					}
					if trace != nil {
						d.Read(trace.(emuBuf))
						ck.gotRecs = reads
						reads++
					}
					checks = append(checks, ck)
				}
			}
			got := d.Run(t)
			for _, ck := range checks {
				requireSameBits(t, ck.what+": state", decode[T](got[ck.gotX]), ck.x, dim)
				if ck.prev != nil {
					requireSameBits(t, ck.what+": previous iterates", decode[T](got[ck.gotP]), ck.prev, dim)
				}
				if ck.rec != nil {
					requireSameBits(t, ck.what+": records", decode[T](got[ck.gotRecs])[:len(ck.rec)], ck.rec, 1)
				}
			}
		}
	}
}

// emuTrace is a trace resolved as the sampler resolves it for the kernel.
type emuTrace struct {
	first, rows, cols int
	index             []uint32
}

// traceShapeOf returns the records of a call of sweeps sweeps from sweep0
// and tr's kernel arguments, as the sampler resolves them.
func traceShapeOf(tr gibbsrt.Trace, dim, chains int, sweep0 uint64, sweeps int) (int, emuTrace) {
	sh := emuTrace{first: tr.FirstChain, rows: tr.Chains, index: make([]uint32, dim)}
	if sh.rows == 0 {
		sh.rows = chains - tr.FirstChain
	}
	for i := range sh.index {
		sh.index[i] = math.MaxUint32
	}
	if tr.Coords == nil {
		for i := range sh.index {
			sh.index[i] = uint32(i)
		}
		sh.cols = dim
	} else {
		for k, i := range tr.Coords {
			sh.index[i] = uint32(k)
		}
		sh.cols = len(tr.Coords)
	}
	return gibbsrt.Records(tr.Thin, sweep0, sweeps), sh
}

// chebyshevTable is the Ext entry points' coefficient table for
// iterations first.. of ref's schedule, rounded to float32.
func chebyshevTable[T gibbsrt.Float](t *testing.T, ref *gibbsrt.Reference[T], first, n int) []T {
	ch, err := ref.Chebyshev()
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, k := range ch.Coefficients(first, n) {
		for _, v := range k {
			out = append(out, T(v))
		}
	}
	return out
}

// momentsOnHost runs the moments kernel of m on random rows of every
// coordinate and of three, and requires the merged moments to equal
// gibbsrt.TraceMoments's bit for bit.
func momentsOnHost[T gibbsrt.Float](t *testing.T, m *emuModule, s Spec) {
	rng := rand.New(rand.NewPCG(uint64(s.Dim), 9))
	k := kernels.Named("gibbs_moments")
	d := &emuDevice{m: m}
	type run struct{ n, cols, blocks int }
	var runs []run
	var inputs [][]T
	for _, cols := range []int{s.Dim, min(3, s.Dim)} {
		n := 1000
		x := make([]T, n*cols)
		for i := range x {
			x[i] = T(2*rng.NormFloat64() + 1)
		}
		// As gibbsrt's momentPlan.
		tile := kernels.MomentRows(cols, s.dtype())
		nb := kernels.MomentBlockCount(cols)
		per := max(tile, ((n+nb-1)/nb+tile-1)/tile*tile)
		blocks := (n + per - 1) / per
		out := d.Alloc(uint64(8 * blocks * (1 + cols + cols*cols)))
		d.Launch(k.Name, blocks, k.Launch(s.Dim, s.dtype()).Threads, d.Upload(x), uint64(n), uint32(cols), uint64(per), out)
		d.Read(out)
		runs = append(runs, run{n, cols, blocks})
		inputs = append(inputs, x)
	}
	got := d.Run(t)
	for i, r := range runs {
		p := decode[float64](got[i])
		have, err := mcstat.NewMoments(r.cols)
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < r.blocks; b++ {
			q := p[b*(1+r.cols+r.cols*r.cols):]
			part, err := mcstat.FromComoments(r.cols, q[0], q[1:1+r.cols], q[1+r.cols:1+r.cols+r.cols*r.cols])
			if err != nil {
				t.Fatal(err)
			}
			if err := have.Merge(part); err != nil {
				t.Fatal(err)
			}
		}
		want, err := gibbsrt.TraceMoments(inputs[i], r.cols)
		if err != nil {
			t.Fatal(err)
		}
		hc, _ := have.Covariance()
		wc, _ := want.Covariance()
		requireSameBits(t, fmt.Sprintf("moments of %d coordinates: means", r.cols), have.Mean(), want.Mean(), r.cols)
		requireSameBits(t, fmt.Sprintf("moments of %d coordinates: covariances", r.cols), hc.RawSymmetric().Data, wc.RawSymmetric().Data, r.cols)
		if have.Count() != want.Count() {
			t.Fatalf("moments count %v, want %v", have.Count(), want.Count())
		}
	}
}
