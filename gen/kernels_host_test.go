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

// TestKernelsOnHost runs every fatbin sweep kernel of small modules in the
// host emulation and requires the states to equal gibbsrt.Reference's bit
// for bit: the kernels' indexing, stream and arithmetic order, checked
// without a GPU (the GPU suites repeat it on a device).
func TestKernelsOnHost(t *testing.T) {
	for _, dim := range []int{5, 13} {
		t.Run(fmt.Sprintf("dim=%d", dim), func(t *testing.T) {
			t.Parallel()
			s := Spec{Dim: dim, Package: "emu", Dir: "emu"}
			m := buildEmu(t, s)
			rng := rand.New(rand.NewPCG(uint64(dim), 7))
			model := gibbstest.RandomSPD(dim, 100, rng, gibbstest.NonzeroMean(dim))
			co, err := gibbsrt.NewCoefficients[float32](dim, model.Rows(), model.Mu)
			if err != nil {
				t.Fatal(err)
			}
			ref := gibbsrt.NewReference[float32]()
			if err := ref.SetModel(dim, model.Rows(), model.Mu); err != nil {
				t.Fatal(err)
			}
			st := gibbsrt.Stream{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}
			type run struct {
				k              *kernels.Kernel
				chains, sweeps int
			}
			var runs []run
			for _, k := range s.Kernels() {
				if k.Role != kernels.Sweep || k.PTX {
					continue
				}
				for _, c := range []struct{ chains, sweeps int }{{1, 1}, {129, 3}, {300, 2}} {
					runs = append(runs, run{k, c.chains, c.sweeps})
				}
			}
			d := &emuDevice{m: m}
			uploadTables(d, s, co)
			var starts [][]float32
			for _, r := range runs {
				tr := gibbsrt.Trace{Thin: 2, FirstChain: min(1, r.chains-1), Coords: []int{0, 3, 4}}
				x0 := make([]float32, r.chains*dim)
				for i := range x0 {
					x0[i] = float32(4 * rng.NormFloat64())
				}
				starts = append(starts, x0)
				x := d.Upload(x0)
				d.Launch(r.k.Name, r.k.Geometry.Blocks(r.chains), r.k.Geometry.Threads,
					x, uint64(r.chains), uint32(r.sweeps), st.Seed, st.Sweep, st.Chain)
				d.Read(x)
				// The traced entry point, from the same start.
				recs, sh := traceShapeOf(tr, dim, r.chains, st.Sweep, r.sweeps)
				xt, out, index := d.Upload(x0), d.Alloc(uint64(4*max(1, recs*sh.rows*sh.cols))), d.Upload(sh.index)
				d.Launch(r.k.Traced, r.k.Geometry.Blocks(r.chains), r.k.Geometry.Threads,
					xt, uint64(r.chains), uint32(r.sweeps), st.Seed, st.Sweep, st.Chain,
					out, uint32(tr.Thin), uint64(sh.first), uint64(sh.rows), index, uint32(sh.cols))
				d.Read(xt)
				d.Read(out)
			}
			got := d.Run(t)
			for i, r := range runs {
				tr := gibbsrt.Trace{Thin: 2, FirstChain: min(1, r.chains-1), Coords: []int{0, 3, 4}}
				want := append([]float32(nil), starts[i]...)
				if err := ref.Sweep(want, r.sweeps, st); err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s B=%d sweeps=%d", r.k.Name, r.chains, r.sweeps)
				requireSameBits(t, what, float32s(got[3*i]), want, dim)
				recs, sh := traceShapeOf(tr, dim, r.chains, st.Sweep, r.sweeps)
				wantRec := make([]float32, recs*sh.rows*sh.cols)
				want = append(want[:0], starts[i]...)
				if _, err := ref.SweepTrace(want, r.sweeps, st, tr, wantRec); err != nil {
					t.Fatal(err)
				}
				requireSameBits(t, what+" traced: state", float32s(got[3*i+1]), want, dim)
				requireSameBits(t, what+" traced: records", float32s(got[3*i+2])[:len(wantRec)], wantRec, 1)
			}
		})
	}
}

// uploadTables fills the module tables of s's kernels from co, as
// gibbsrt.Sampler.SetModel does.
func uploadTables(d *emuDevice, s Spec, co *gibbsrt.Coefficients[float32]) {
	for _, sym := range kernels.SymbolsOf(s.Kernels()) {
		switch sym.Name {
		case kernels.SymbolWeight, kernels.SymbolWeightG:
			d.Symbol(sym.Name, co.Weight)
		case kernels.SymbolOffset:
			d.Symbol(sym.Name, co.Offset)
		case kernels.SymbolScale:
			d.Symbol(sym.Name, co.Scale)
		case kernels.SymbolKeep:
			d.Symbol(sym.Name, []float32{co.Keep})
		default:
			panic("uploadTables: no data for table " + sym.Name)
		}
	}
}

// requireSameBits fails unless got and want are equal bit for bit.
func requireSameBits(t *testing.T, what string, got, want []float32, dim int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: chain %d coordinate %d is %v (%08x), want %v (%08x)", what, i/dim, i%dim,
				got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestExtKernelsOnHost runs every strategy's Ext entry point in the host
// emulation under each kind of sweep, with over-relaxation, Chebyshev
// iterations and a trace, and requires the states (and records, and
// previous iterates) to equal gibbsrt.Reference's bit for bit.
func TestExtKernelsOnHost(t *testing.T) {
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
	for _, dim := range []int{5, 13} {
		t.Run(fmt.Sprintf("dim=%d", dim), func(t *testing.T) {
			t.Parallel()
			s := Spec{Dim: dim, Package: "emu", Dir: "emu"}
			m := buildEmu(t, s)
			rng := rand.New(rand.NewPCG(uint64(dim), 8))
			model := gibbstest.RandomSPD(dim, 100, rng, gibbstest.NonzeroMean(dim))
			st := gibbsrt.Stream{Seed: 0x0123456789abcdef, Sweep: 1<<33 + 7, Chain: 1<<32 - 3}
			const chains, sweeps, first = 131, 5, 2
			type check struct {
				what                string
				x, prev, rec        []float32
				gotX, gotP, gotRecs int // indices of the reads
			}
			d := &emuDevice{m: m}
			var checks []check
			reads := 0
			for _, c := range cases {
				ref := gibbsrt.NewReference[float32]()
				if err := ref.SetScheme(c.scheme); err != nil {
					t.Fatal(err)
				}
				if err := ref.SetModel(dim, model.Rows(), model.Mu); err != nil {
					t.Fatal(err)
				}
				uploadTables(d, s, ref.Coefficients())
				for _, k := range s.Kernels() {
					if k.Role != kernels.Sweep || k.PTX {
						continue
					}
					x0 := make([]float32, chains*dim)
					p0 := make([]float32, chains*dim)
					for i := range x0 {
						x0[i] = float32(3 * rng.NormFloat64())
						p0[i] = float32(3 * rng.NormFloat64())
					}
					ck := check{what: fmt.Sprintf("%s %s", k.Ext, c.name)}
					want := append([]float32(nil), x0...)
					x := d.Upload(x0)
					var cheb, prev, trace, index any
					kind := uint32(c.scheme.Kind)
					var thin, cols uint32
					var tc0, tcs uint64
					switch {
					case c.cheb:
						wantPrev := append([]float32(nil), p0...)
						if err := ref.SweepChebyshev(want, wantPrev, first, sweeps, st); err != nil {
							t.Fatal(err)
						}
						ck.prev = wantPrev
						table := chebyshevTable(t, ref, first, sweeps)
						cheb, prev = d.Upload(table), d.Upload(p0)
					case c.trace != nil:
						recs, shape := traceShape(*c.trace, dim, chains)
						out := make([]float32, recs*shape.rows*shape.cols)
						n, err := ref.SweepTrace(want, sweeps, st, *c.trace, out)
						if err != nil || n != recs {
							t.Fatalf("SweepTrace: %d records, %v", n, err)
						}
						ck.rec = out
						trace = d.Alloc(uint64(4 * len(out)))
						index = d.Upload(shape.index)
						thin, cols, tc0, tcs = uint32(c.trace.Thin), uint32(shape.cols), uint64(shape.first), uint64(shape.rows)
					default:
						if err := ref.Sweep(want, sweeps, st); err != nil {
							t.Fatal(err)
						}
					}
					ck.x = want
					d.Launch(k.Ext, k.Geometry.Blocks(chains), k.Geometry.Threads,
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
				requireSameBits(t, ck.what+": state", float32s(got[ck.gotX]), ck.x, dim)
				if ck.prev != nil {
					requireSameBits(t, ck.what+": previous iterates", float32s(got[ck.gotP]), ck.prev, dim)
				}
				if ck.rec != nil {
					requireSameBits(t, ck.what+": records", float32s(got[ck.gotRecs]), ck.rec, 1)
				}
			}
		})
	}
}

// emuTrace is a trace resolved as the sampler resolves it for the kernel.
type emuTrace struct {
	first, rows, cols int
	index             []uint32
}

// traceShape returns the records of a call of 5 sweeps from the test's
// stream and tr's kernel arguments.
func traceShape(tr gibbsrt.Trace, dim, chains int) (int, emuTrace) {
	return traceShapeOf(tr, dim, chains, 1<<33+7, 5)
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
func chebyshevTable(t *testing.T, ref *gibbsrt.Reference[float32], first, n int) []float32 {
	ch, err := ref.Chebyshev()
	if err != nil {
		t.Fatal(err)
	}
	var out []float32
	for _, k := range ch.Coefficients(first, n) {
		for _, v := range k {
			out = append(out, float32(v))
		}
	}
	return out
}
