package gibbsrt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// The public API's promise (issue 19, item 8): no call panics, whatever
// its arguments; every call returns an error or succeeds; and a call that
// returns an error leaves the state slices passed to it unchanged. The
// property tests call every public method of the CPU twin, and the shared
// argument checks of the GPU sampler, with random and extreme arguments
// from a fixed seed and a fixed number of cases. gibbstest.GPUAPI is the
// same for the GPU sampler.

// apiCases is the number of random calls per element type.
const apiCases = 4000

// apiInts are the extreme values every int argument draws from, besides
// small ones: none makes a call that is accepted do much work (a sweep
// count the stream accepts, such as 1<<47, would).
var apiInts = []int{-1, math.MinInt, math.MaxInt, 1 << 62, 1<<48 + 1}

// pick returns a random element of vs.
func pick[V any](rng *rand.Rand, vs ...V) V { return vs[rng.IntN(len(vs))] }

// apiInt returns a small int (0..3) half the time, else an extreme one.
func apiInt(rng *rand.Rand) int {
	if rng.IntN(2) == 0 {
		return rng.IntN(4)
	}
	return pick(rng, apiInts...)
}

// apiFloat returns a finite value or one of the values that break
// arithmetic.
func apiFloat(rng *rand.Rand) float64 {
	return pick(rng, math.NaN(), math.Inf(1), math.Inf(-1), 1e308, -1e308, 1e-308, 0, -1, 3.5)
}

// apiStream returns a stream with counters at and past their limits.
func apiStream(rng *rand.Rand) Stream {
	return Stream{
		Seed:  rng.Uint64(),
		Sweep: pick[uint64](rng, 0, 0, 5, MaxSweepIndex-3, MaxSweepIndex, math.MaxUint64),
		Chain: pick[uint64](rng, 0, 0, 7, math.MaxUint64-1, math.MaxUint64),
	}
}

// apiModel returns a valid dim-dimensional model (diagonally dominant),
// with probability bad one broken in a random way.
func apiModel(rng *rand.Rand, dim int, bad float64) (Q [][]float64, mu []float64) {
	Q = make([][]float64, dim)
	mu = make([]float64, dim)
	for i := range Q {
		Q[i] = make([]float64, dim)
		mu[i] = rng.NormFloat64()
	}
	for i := 0; i < dim; i++ {
		for j := i + 1; j < dim; j++ {
			v := 0.4 * (rng.Float64() - 0.5)
			Q[i][j], Q[j][i] = v, v
		}
		Q[i][i] = 1 + rng.Float64()
	}
	if rng.Float64() >= bad {
		return Q, mu
	}
	i, j := rng.IntN(dim), rng.IntN(dim)
	switch rng.IntN(9) {
	case 0:
		Q[i][j] = apiFloat(rng)
	case 1:
		Q[i][j], Q[j][i] = apiFloat(rng), apiFloat(rng)
	case 2:
		mu[i] = apiFloat(rng)
	case 3:
		Q[i] = Q[i][:rng.IntN(dim)]
	case 4:
		Q[i] = nil
	case 5:
		Q = Q[:rng.IntN(dim)]
	case 6:
		mu = pick(rng, nil, mu[:rng.IntN(dim)], append(mu, 1))
	case 7:
		Q = nil
	case 8: // finite, but sums and products overflow
		for a := range Q {
			for b := range Q[a] {
				Q[a][b] *= pick(rng, 1e300, 1e-300, -1e300)
			}
		}
	}
	return Q, mu
}

// apiScheme returns a scheme, valid or not.
func apiScheme(rng *rand.Rand) Scheme {
	return Scheme{
		Kind:  SweepKind(pick(rng, 0, 1, 2, 3, -1)),
		Omega: pick(rng, 0, 1, 1, 1.3, 0.7, 2, -1, math.NaN(), math.Inf(1)),
		Tune:  Tune(pick(rng, 0, 0, 1, 2, 3, -1)),
		Form:  Form(pick(rng, 0, 0, 1, 2, 3, -1)),
	}
}

// apiState returns a state for dim-dimensional chains: nil, empty, whole
// chains, ragged, or large (2^17 elements, for products that overflow).
func apiState[T Float](rng *rand.Rand, dim int, large []T) []T {
	switch rng.IntN(8) {
	case 0:
		return nil
	case 1:
		return []T{}
	case 2:
		return make([]T, dim*(1+rng.IntN(3))+1) // ragged for dim > 1
	case 3:
		return large
	}
	x := make([]T, dim*(1+rng.IntN(3)))
	for i := range x {
		x[i] = T(rng.NormFloat64())
		if rng.IntN(50) == 0 {
			x[i] = T(apiFloat(rng))
		}
	}
	return x
}

// apiTrace returns a trace, valid or not.
func apiTrace(rng *rand.Rand, dim int) Trace {
	if rng.IntN(2) == 0 { // valid for a call of at least one chain
		return Trace{Thin: 1 + rng.IntN(3)}
	}
	tr := Trace{
		Thin:       pick(rng, 1, 1, 2, 3, 0, -1, math.MaxUint32, math.MaxUint32+1, math.MaxInt),
		FirstChain: pick(rng, 0, 0, 1, 2, -1, math.MaxInt, math.MinInt),
		Chains:     pick(rng, 0, 0, 1, 2, -1, math.MaxInt, math.MinInt),
	}
	switch rng.IntN(8) {
	case 0:
		tr.Coords = []int{}
	case 1:
		tr.Coords = []int{pick(rng, -1, dim, math.MaxInt, math.MinInt)}
	case 2:
		tr.Coords = []int{dim - 1, 0}
	case 3:
		tr.Coords = []int{0, 0}
	case 4, 5:
		for i := 0; i < dim; i++ {
			if rng.IntN(2) == 0 {
				tr.Coords = append(tr.Coords, i)
			}
		}
	}
	return tr
}

// same reports whether a and b hold the same bits (NaNs included).
func same[T Float](a, b []T) bool {
	return len(a) == len(b) && slices.EqualFunc(a, b, func(x, y T) bool { return bitsOf(x) == bitsOf(y) })
}

// apiCall runs f, a call of the method what, and fails t if it panics, or
// if it returns an error after changing one of the slices in state.
func apiCall[T Float](t *testing.T, what string, state [][]T, f func() error) (err error) {
	t.Helper()
	before := make([][]T, len(state))
	for i, s := range state {
		before[i] = slices.Clone(s)
	}
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%s panicked: %v\n%s", what, p, debug.Stack())
		}
		if err == nil {
			return
		}
		if !strings.HasPrefix(err.Error(), "gibbsrt: ") {
			t.Errorf("%s: error %q does not say where it comes from (gibbsrt: …)", what, err)
		}
		for i := range state {
			if !same(state[i], before[i]) {
				t.Fatalf("%s failed (%v) but changed argument slice %d", what, err, i)
			}
		}
	}()
	return f()
}

// TestReferenceAPIProperty calls every public method of the CPU twin (and
// the package functions it shares with the GPU sampler) with random and
// extreme arguments: no panic, an error or success, and on error the
// slices passed in are unchanged.
func TestReferenceAPIProperty(t *testing.T) {
	t.Run("float32", func(t *testing.T) { referenceAPIProperty[float32](t, 1) })
	t.Run("float64", func(t *testing.T) { referenceAPIProperty[float64](t, 2) })
}

func referenceAPIProperty[T Float](t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(19, seed))
	large := make([]T, 1<<17)
	var r *Reference[T]
	dim := 0
	errs, oks := map[string]int{}, map[string]int{}
	for c := 0; c < apiCases; c++ {
		if r == nil || rng.IntN(20) == 0 { // a fresh twin, sometimes with no model
			dim = pick(rng, 1, 2, 3, 5, 8)
			r = NewReference[T](dim)
			if rng.IntN(4) != 0 {
				Q, mu := apiModel(rng, dim, 0)
				if err := r.SetModel(Q, mu); err != nil {
					t.Fatalf("SetModel of a valid model: %v", err)
				}
			}
		}
		var x, prev, noise, out []T
		var what string
		var call func() error
		switch m := rng.IntN(16); m {
		case 0:
			d := dim
			if rng.IntN(4) == 0 {
				d = pick(rng, 0, -1, dim+1, math.MaxInt, math.MinInt)
			}
			Q, mu := apiModel(rng, max(dim, 1), 0.7)
			if d < 1 && rng.IntN(2) == 0 {
				Q, mu = nil, nil
			}
			what = fmt.Sprintf("SetModel(dim %d)", d)
			target := r // a twin of another dim, made for the call
			if d != dim {
				target = NewReference[T](d)
			}
			co := target.Coefficients()
			call = func() error {
				err := target.SetModel(Q, mu)
				if err != nil && target.Coefficients() != co {
					t.Fatalf("%s failed (%v) but changed the twin", what, err)
				}
				return err
			}
		case 1:
			sc := apiScheme(rng)
			what = fmt.Sprintf("SetScheme(%+v)", sc)
			co := r.Coefficients()
			call = func() error {
				err := r.SetScheme(sc)
				if err != nil && r.Coefficients() != co {
					t.Fatalf("%s failed (%v) but changed the tables", what, err)
				}
				return err
			}
		case 2:
			what = "Mixing"
			call = func() error { _, err := r.Mixing(); return err }
		case 3:
			what = "Chebyshev"
			call = func() error { _, err := r.Chebyshev(); return err }
		case 4:
			f := pick(rng, -1, 0, 1, 2, math.MaxInt, math.MinInt)
			what = fmt.Sprintf("Coefficients().Frame(%d), MatrixTables, Scheme", f)
			call = func() error {
				_ = r.Scheme()
				if co := r.Coefficients(); co != nil {
					w, o, s := co.Frame(f)
					if (f == 0 || f == 1) != (w != nil && o != nil && s != nil) {
						t.Fatalf("Frame(%d) = %d, %d, %d values", f, len(w), len(o), len(s))
					}
				}
				_, err := r.MatrixTables()
				return err
			}
		case 15:
			x = apiState(rng, dim, large)
			sweeps, st, tr := apiInt(rng), apiStream(rng), apiTrace(rng, dim)
			what = fmt.Sprintf("SweepMoments(%d elements, %d sweeps, %+v, %+v)", len(x), sweeps, st, tr)
			call = func() error { _, err := r.SweepMoments(x, sweeps, st, tr); return err }
		case 5:
			x = apiState(rng, dim, large)
			sweeps, st := apiInt(rng), apiStream(rng)
			what = fmt.Sprintf("Sweep(%d elements, %d sweeps, %+v)", len(x), sweeps, st)
			call = func() error { return r.Sweep(x, sweeps, st) }
		case 6:
			x = apiState(rng, dim, large)
			out = make([]T, pick(rng, 0, 1, 7, 400, 400))
			sweeps, st, tr := apiInt(rng), apiStream(rng), apiTrace(rng, dim)
			what = fmt.Sprintf("SweepTrace(%d elements, %d sweeps, %+v, %+v, %d out)", len(x), sweeps, st, tr, len(out))
			call = func() error {
				n, err := r.SweepTrace(x, sweeps, st, tr, out)
				if err == nil && n < 0 {
					t.Fatalf("%s: %d records", what, n)
				}
				return err
			}
		case 7:
			x = apiState(rng, dim, large)
			prev = slices.Clone(x)
			if rng.IntN(4) == 0 {
				prev = apiState[T](rng, dim, nil)
			}
			first := pick(rng, 0, 0, 1, 3, -1, MaxChebyshevIterations, MaxChebyshevIterations+1, math.MaxInt, math.MinInt, 1<<62)
			n := apiInt(rng)
			st := apiStream(rng)
			what = fmt.Sprintf("SweepChebyshev(%d, %d elements, first %d, %d iterations, %+v)", len(x), len(prev), first, n, st)
			call = func() error { return r.SweepChebyshev(x, prev, first, n, st) }
		case 8:
			x = apiState(rng, dim, large)
			st := apiStream(rng)
			what = fmt.Sprintf("DrawExact(%d elements, %+v)", len(x), st)
			call = func() error { return r.DrawExact(x, st) }
		case 9:
			x = apiState(rng, dim, large)
			sweeps := pick(rng, 0, 1, 2, -1, 1<<47, 1<<46, 1<<61, math.MaxInt)
			noise = make([]T, pick(rng, 0, 0, 1, dim, len(x), 2*len(x)))
			what = fmt.Sprintf("SweepNoise(%d elements, %d noise, %d sweeps)", len(x), len(noise), sweeps)
			call = func() error { return r.SweepNoise(x, noise, sweeps) }
		case 10:
			d, n, sweeps, st := pick(rng, dim, 0, -1, math.MinInt), apiInt(rng), apiInt(rng), apiStream(rng)
			what = fmt.Sprintf("checkSweepArgs(%d, %d, %d, %+v)", d, n, sweeps, st)
			call = func() error { _, err := checkSweepArgs(d, n, sweeps, st); return err }
		case 11:
			x = apiState[T](rng, dim, nil)
			k := pick(rng, 1, dim, 0, -1, MaxTraceCoords+1, 1<<40, math.MaxInt, math.MinInt)
			what = fmt.Sprintf("TraceMoments(%d values, k %d)", len(x), k)
			call = func() error { _, err := TraceMoments(x, k); return err }
		case 12:
			thin, sweep0, sweeps := apiInt(rng), apiStream(rng).Sweep, apiInt(rng)
			what = fmt.Sprintf("Records(%d, %d, %d)", thin, sweep0, sweeps)
			call = func() error { _ = Records(thin, sweep0, sweeps); return nil }
		case 13: // the GPU sampler's checks, which the CPU can exercise
			first, n := apiInt(rng), apiInt(rng)
			chains, records, sweeps := apiInt(rng), apiInt(rng), apiInt(rng)
			lenX, lenNoise := apiInt(rng), apiInt(rng)
			tr, st := apiTrace(rng, dim), apiStream(rng)
			what = fmt.Sprintf("GPU checks (first %d, n %d, chains %d, records %d, sweeps %d, lenX %d, lenNoise %d, %+v)", first, n, chains, records, sweeps, lenX, lenNoise, tr)
			call = func() error {
				return errorsOf(checkChebyshevArgs(first, n), checkChains[T](dim, chains, 0), checkChains[T](dim, chains, 1),
					func() error { _, err := normalsLen[T](dim, chains, sweeps, st); return err }(),
					func() error { _, err := checkNoiseArgs(dim, lenX, lenNoise, sweeps); return err }(),
					func() error { _, _, err := deviceTraceShape[T](tr, dim, chains, records); return err }())
			}
		case 14:
			x = apiState(rng, dim, large)
			sweeps, st := apiInt(rng), apiStream(rng)
			o := RunOptions[T]{Chunk: pick(rng, 0, 1, 3, -1, math.MaxInt), Burnin: pick(rng, BurninNone, BurninAuto, BurninAuto, 2, -1),
				BurninTolerance: pick(rng, 0, 0, 0, 1e-2, -1, math.NaN(), 1, 1e-300)}
			if rng.IntN(10) == 0 {
				o.Trace = &DeviceTrace[T]{}
			}
			ctx := context.Background()
			if rng.IntN(10) == 0 {
				ctx = nil
			}
			what = fmt.Sprintf("Run(%d elements, %d sweeps, %+v, chunk %d, %v, tolerance %v)", len(x), sweeps, st, o.Chunk, o.Burnin, o.BurninTolerance)
			call = func() error {
				res, err := r.Run(ctx, x, sweeps, st, o)
				if err != nil && res != (RunResult{}) {
					t.Fatalf("%s failed (%v) after %+v", what, err, res)
				}
				return err
			}
		}
		name, _, _ := strings.Cut(what, "(")
		if err := apiCall(t, what, [][]T{x, prev, noise, out}, call); err != nil {
			errs[name]++
		} else {
			oks[name]++
		}
	}
	// The cases must reach both outcomes of the calls that do the work.
	for _, m := range []string{"SetModel", "Sweep", "SweepTrace", "SweepMoments", "SweepChebyshev", "DrawExact", "SweepNoise", "Run"} {
		if errs[m] == 0 || oks[m] == 0 {
			t.Errorf("%s: %d errors and %d successes; the cases should reach both", m, errs[m], oks[m])
		}
	}
}

// errorsOf returns the first non-nil error of errs, or nil: the checks of
// the GPU case must each name their value, which apiCall checks of the
// first; the others are run for their panics.
func errorsOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestChebyshevNegativeFirst is the report: the GPU sampler sliced
// the schedule at a negative first iteration and panicked, where the twin
// refused it. Both now refuse it, with one error, before any table is
// made: checkChebyshevArgs, which chebyshevTable (the GPU's path) calls
// too.
func TestChebyshevNegativeFirst(t *testing.T) {
	r := NewReference[float32](3)
	Q, mu := apiModel(rand.New(rand.NewPCG(1, 2)), 3, 0)
	if err := r.SetModel(Q, mu); err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 6)
	want := checkChebyshevArgs(-1, 4)
	if want == nil || !strings.Contains(want.Error(), "iterations 4 from -1; both must be >= 0") {
		t.Fatalf("checkChebyshevArgs(-1, 4) = %v", want)
	}
	if err := r.SweepChebyshev(x, slices.Clone(x), -1, 4, Stream{}); err == nil || err.Error() != want.Error() {
		t.Errorf("Reference.SweepChebyshev(first -1) = %v, want %v", err, want)
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("chebyshevTable(-1, 4), the GPU sampler's path, panicked: %v", p)
			}
		}()
		if _, err := r.p.chebyshevTable(-1, 4); err == nil || err.Error() != want.Error() {
			t.Errorf("chebyshevTable(-1, 4) = %v, want %v", err, want)
		}
	}()
	for _, c := range []struct{ first, n int }{{0, MaxChebyshevIterations + 1}, {MaxChebyshevIterations, 1}, {math.MaxInt, math.MaxInt}} {
		if err := checkChebyshevArgs(c.first, c.n); err == nil || !strings.Contains(err.Error(), "at most MaxChebyshevIterations") {
			t.Errorf("checkChebyshevArgs(%d, %d) = %v", c.first, c.n, err)
		}
	}
	if err := checkChebyshevArgs(MaxChebyshevIterations-5, 5); err != nil {
		t.Errorf("checkChebyshevArgs at the limit: %v", err)
	}
}
