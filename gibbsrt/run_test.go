package gibbsrt

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/mixing"
)

// ar1Model is AR(1) with coefficient rho as a precision matrix, mean mu.
func ar1Model(dim int, rho float64) (*mat.SymDense, []float64) {
	q := mat.NewSymDense(dim, nil)
	mu := make([]float64, dim)
	for i := 0; i < dim; i++ {
		d := 1 + rho*rho
		if i == 0 || i == dim-1 {
			d = 1
		}
		q.SetSym(i, i, d)
		if i+1 < dim {
			q.SetSym(i, i+1, -rho)
		}
		mu[i] = math.Sin(float64(i))
	}
	return q, mu
}

// qNorm returns ‖P‖_Q = ‖LᵀPL⁻ᵀ‖₂ (Q = LLᵀ): the largest factor by which P
// shrinks a vector in the Q-norm, by SVD, independently of the
// eigenvalue recurrence BurninIterations uses.
func qNorm(t *testing.T, q *mat.SymDense, p *mat.Dense) float64 {
	t.Helper()
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		t.Fatal("Q is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	var a, b mat.Dense
	a.Mul(l.T(), p)
	if err := b.Solve(&l, a.T()); err != nil {
		t.Fatal(err)
	}
	var svd mat.SVD
	if !svd.Factorize(&b, mat.SVDNone) {
		t.Fatal("SVD did not converge")
	}
	return svd.Values(nil)[0]
}

// TestBurninIterationsClosedForm: the burn-in's k is the least whose mean
// error's operator P_k (mixing.Chebyshev.MeanOperators, the matrices) has
// Q-norm at most the tolerance: after k − 1 iterations some start's error
// is above it. Beyond AnalysisMaxDim, k is the Chebyshev bound's.
func TestBurninIterationsClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 2))
	ar1, ar1Mu := ar1Model(24, 0.97)
	spd, spdMu := spdModel(12, 1e4, rng)
	for _, m := range []struct {
		name string
		q    *mat.SymDense
		mu   []float64
	}{{"AR1", ar1, ar1Mu}, {"SPD", spd, spdMu}} {
		for _, sc := range []Scheme{Plain, {Kind: Symmetric}, {Kind: Forward, Omega: 1.5}} {
			r := NewReference[float32](m.q.SymmetricDim())
			if err := r.SetScheme(sc); err != nil {
				t.Fatal(err)
			}
			if err := r.SetModel(rowsOf(m.q), m.mu); err != nil {
				t.Fatal(err)
			}
			c, err := r.Chebyshev()
			if err != nil {
				t.Fatal(err)
			}
			gs, err := mixing.Operator(m.q, c.Omega, Symmetric)
			if err != nil {
				t.Fatal(err)
			}
			for _, tol := range []float64{0, 1e-2, 1e-6} {
				k, err := r.BurninIterations(tol)
				if err != nil {
					t.Fatal(err)
				}
				want := tol
				if tol == 0 {
					want = DefaultBurninTolerance
				}
				ops := c.MeanOperators(gs, k)
				at, before := qNorm(t, m.q, ops[k]), qNorm(t, m.q, ops[k-1])
				if !(at <= want && before > want) {
					t.Errorf("%s %v tol %g: k = %d; ‖P_k‖_Q = %.6g, ‖P_{k−1}‖_Q = %.6g; want ≤ %g and above it", m.name, sc, tol, k, at, before, want)
				}
				if b := c.Iterations(want); k > b {
					t.Errorf("%s %v tol %g: k = %d above the Chebyshev bound's %d", m.name, sc, tol, k, b)
				}
			}
		}
	}
	t.Run("beyond AnalysisMaxDim", func(t *testing.T) {
		q, mu := ar1Model(AnalysisMaxDim+2, 0.9)
		r := NewReference[float32](q.SymmetricDim())
		if err := r.SetScheme(Scheme{Kind: Symmetric, Omega: 1.6}); err != nil {
			t.Fatal(err)
		}
		if err := r.SetModel(rowsOf(q), mu); err != nil {
			t.Fatal(err)
		}
		c, _ := r.Chebyshev()
		k, err := r.BurninIterations(1e-4)
		if err != nil || k != c.Iterations(1e-4) {
			t.Errorf("k = %d (%v), want the bound's %d", k, err, c.Iterations(1e-4))
		}
	})
}

// runTwin is a twin on AR(1) ρ = 0.9 in dim 6 under a symmetric scheme.
func runTwin[T Float](t *testing.T) (*Reference[T], []T, int) {
	t.Helper()
	q, mu := ar1Model(6, 0.9)
	r := NewReference[T](6)
	if err := r.SetScheme(Scheme{Kind: Symmetric}); err != nil {
		t.Fatal(err)
	}
	if err := r.SetModel(rowsOf(q), mu); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(20, 3))
	x := make([]T, 37*6)
	for i := range x {
		x[i] = T(10 + rng.NormFloat64())
	}
	k, err := r.BurninIterations(0)
	if err != nil {
		t.Fatal(err)
	}
	return r, x, k
}

// TestRunBurnin: Run with automatic burn-in is SweepChebyshev's k
// iterations from prev = x at stream sweeps st.Sweep…, then the scheme's
// sweeps from st.Sweep + k, bit for bit, however it is chunked; progress
// counts every chunk of both phases.
// TestDefaultChunk pins Run's default chunking: at most 100 launches, of
// at least minChunk sweeps where the phase has them, as even as can be.
func TestDefaultChunk(t *testing.T) {
	for _, c := range []struct{ n, chunk int }{
		{0, 1}, {1, 1}, {9, 9}, {32, 32}, {33, 33}, {64, 32}, {67, 34}, {3200, 32}, {3201, 33}, {10000, 100}, {10001, 101},
	} {
		if got := defaultChunk(c.n); got != c.chunk {
			t.Errorf("defaultChunk(%d) = %d, want %d", c.n, got, c.chunk)
		}
	}
	for n := 1; n < 20000; n++ {
		c := defaultChunk(n)
		launches := (n + c - 1) / c
		if launches > 100 || (c < minChunk && launches > 1) {
			t.Fatalf("defaultChunk(%d) = %d: %d launches", n, c, launches)
		}
	}
}

func TestRunBurnin(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testRunBurnin[float32](t) })
	t.Run("float64", func(t *testing.T) { testRunBurnin[float64](t) })
}

func testRunBurnin[T Float](t *testing.T) {
	r, x0, k := runTwin[T](t)
	if k < 4 {
		t.Fatalf("burn-in of %d iterations: too few to chunk", k)
	}
	const sweeps = 9
	st := Stream{Seed: 7, Sweep: 1<<40 + 5, Chain: 3}
	want, prev := slices.Clone(x0), slices.Clone(x0)
	if err := r.SweepChebyshev(want, prev, 0, k, st); err != nil {
		t.Fatal(err)
	}
	if err := r.Sweep(want, sweeps, RunResult{Burnin: k}.Next(st)); err != nil {
		t.Fatal(err)
	}
	total := RunResult{Burnin: k, Sweeps: sweeps}
	for _, chunk := range []int{0, 1, 4, k + sweeps} {
		x := slices.Clone(x0)
		var reports []RunResult
		done, err := r.Run(context.Background(), x, sweeps, st, RunOptions[T]{Chunk: chunk, Burnin: BurninAuto,
			Progress: func(done, tot RunResult) {
				if tot != total {
					t.Errorf("chunk %d: progress total %+v, want %+v", chunk, tot, total)
				}
				reports = append(reports, done)
			}})
		if err != nil || done != total {
			t.Fatalf("chunk %d: Run = %+v, %v; want %+v", chunk, done, err, total)
		}
		if !same(x, want) {
			t.Errorf("chunk %d: state differs from SweepChebyshev then Sweep", chunk)
		}
		var wantReports []RunResult
		c := chunk
		for b := 0; b < k; {
			if chunk == 0 {
				c = defaultChunk(k)
			}
			b = min(k, b+c)
			wantReports = append(wantReports, RunResult{Burnin: b})
		}
		for s := 0; s < sweeps; {
			if chunk == 0 {
				c = defaultChunk(sweeps)
			}
			s = min(sweeps, s+c)
			wantReports = append(wantReports, RunResult{Burnin: k, Sweeps: s})
		}
		if fmt.Sprint(reports) != fmt.Sprint(wantReports) {
			t.Errorf("chunk %d: progress %v, want %v", chunk, reports, wantReports)
		}
	}

	t.Run("Cancel", func(t *testing.T) {
		for _, at := range []RunResult{{Burnin: 2}, {Burnin: k, Sweeps: 2}} {
			ctx, cancel := context.WithCancel(context.Background())
			x := slices.Clone(x0)
			done, err := r.Run(ctx, x, sweeps, st, RunOptions[T]{Chunk: 2, Burnin: BurninAuto, Progress: func(done, _ RunResult) {
				if done == at {
					cancel()
				}
			}})
			cancel()
			if !errors.Is(err, context.Canceled) || done != at {
				t.Fatalf("cancelled at %+v: Run = %+v, %v", at, done, err)
			}
			w, p := slices.Clone(x0), slices.Clone(x0)
			if err := r.SweepChebyshev(w, p, 0, at.Burnin, st); err != nil {
				t.Fatal(err)
			}
			if err := r.Sweep(w, at.Sweeps, RunResult{Burnin: at.Burnin}.Next(st)); err != nil {
				t.Fatal(err)
			}
			if !same(x, w) {
				t.Errorf("cancelled at %+v: the state is not the one of what was done", at)
			}
		}
	})

	t.Run("NoBurnin", func(t *testing.T) {
		x, w := slices.Clone(x0), slices.Clone(x0)
		done, err := r.Run(context.Background(), x, sweeps, st, RunOptions[T]{Chunk: 4})
		if err != nil || done != (RunResult{Sweeps: sweeps}) {
			t.Fatalf("Run = %+v, %v", done, err)
		}
		if err := r.Sweep(w, sweeps, st); err != nil {
			t.Fatal(err)
		}
		if !same(x, w) {
			t.Error("Run without burn-in differs from Sweep")
		}
	})

	// One Run that burns in under r's scheme and samples under another
	// equals the two calls of docs/GUIDE.md's recipe ("Sweeps"); the
	// sampler keeps the
	// sampling scheme; a Run cancelled during the burn-in keeps the old.
	t.Run("Sampling", func(t *testing.T) {
		orig := r.Scheme()
		defer func() {
			if err := r.SetScheme(orig); err != nil {
				t.Fatal(err)
			}
		}()
		sampling := Scheme{Kind: Forward, Tune: TuneSampling}
		w, p := slices.Clone(x0), slices.Clone(x0)
		if err := r.SweepChebyshev(w, p, 0, k, st); err != nil {
			t.Fatal(err)
		}
		if err := r.SetScheme(sampling); err != nil {
			t.Fatal(err)
		}
		if err := r.Sweep(w, sweeps, RunResult{Burnin: k}.Next(st)); err != nil {
			t.Fatal(err)
		}
		if err := r.SetScheme(orig); err != nil {
			t.Fatal(err)
		}
		if same(w, want) {
			t.Fatal("the sampling scheme's sweeps equal the burn-in scheme's: the test cannot tell them apart")
		}
		x := slices.Clone(x0)
		done, err := r.Run(context.Background(), x, sweeps, st, RunOptions[T]{Chunk: 4, Burnin: BurninAuto, Sampling: &sampling})
		if err != nil || done != total {
			t.Fatalf("Run = %+v, %v; want %+v", done, err, total)
		}
		if !same(x, w) {
			t.Error("Run with Sampling differs from SweepChebyshev, SetScheme and Sweep")
		}
		if got := r.Scheme(); got != sampling {
			t.Errorf("after Run the scheme is %v, want %v", got, sampling)
		}
		if err := r.SetScheme(orig); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		_, err = r.Run(ctx, slices.Clone(x0), sweeps, st, RunOptions[T]{Chunk: 2, Burnin: BurninAuto, Sampling: &sampling,
			Progress: func(RunResult, RunResult) { cancel() }})
		cancel()
		if !errors.Is(err, context.Canceled) || r.Scheme() != orig {
			t.Errorf("cancelled in the burn-in: %v, scheme %v; want context.Canceled and %v", err, r.Scheme(), orig)
		}
	})

	t.Run("BadOptions", func(t *testing.T) {
		ctx := context.Background()
		for _, c := range []struct {
			ctx    context.Context
			r      *Reference[T]
			sweeps int
			st     Stream
			o      RunOptions[T]
			want   string
		}{
			{ctx, r, 1, st, RunOptions[T]{Burnin: 2}, "Burnin = 2; it must be BurninNone or BurninAuto"},
			{ctx, r, 1, st, RunOptions[T]{Burnin: -1}, "Burnin = -1; it must be BurninNone or BurninAuto"},
			{ctx, r, 1, st, RunOptions[T]{BurninTolerance: 0.1}, "BurninTolerance = 0.1 without Burnin = BurninAuto"},
			{ctx, r, 1, st, RunOptions[T]{Burnin: BurninAuto, BurninTolerance: 1}, "BurninTolerance = 1; it must lie in (0, 1)"},
			{ctx, r, 1, st, RunOptions[T]{Burnin: BurninAuto, BurninTolerance: -1e-3}, "BurninTolerance = -0.001; it must lie in (0, 1)"},
			{ctx, r, 1, st, RunOptions[T]{Burnin: BurninAuto, BurninTolerance: math.NaN()}, "BurninTolerance = NaN; it must lie in (0, 1)"},
			{ctx, r, 1, st, RunOptions[T]{Chunk: -1}, "Chunk = -1"},
			{ctx, r, 1, st, RunOptions[T]{Burnin: BurninAuto, Sampling: &Scheme{Kind: 9}}, "sweep kind 9; it must be Forward, Backward or Symmetric (RunOptions.Sampling)"},
			{ctx, r, -1, st, RunOptions[T]{}, "sweeps = -1"},
			{nil, r, 1, st, RunOptions[T]{}, "nil Context"},
			{ctx, r, 1, st, RunOptions[T]{Trace: &DeviceTrace[T]{}}, "Trace and Moments are device buffers"},
			{ctx, NewReference[T](r.Dim()), 1, st, RunOptions[T]{Burnin: BurninAuto}, "Run called before SetModel"},
			{ctx, r, 1, Stream{Sweep: MaxSweepIndex - uint64(k)}, RunOptions[T]{Burnin: BurninAuto}, fmt.Sprintf("+ %d sweeps exceeds the stream's 48-bit sweep counter", k+1)},
			{ctx, r, math.MaxInt, st, RunOptions[T]{Burnin: BurninAuto}, "overflow an int"},
		} {
			x := slices.Clone(x0)
			done, err := c.r.Run(c.ctx, x, c.sweeps, c.st, c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) || done != (RunResult{}) {
				t.Errorf("Run(%+v): %+v, %v; want an error containing %q", c.o, done, err, c.want)
			}
			if !same(x, x0) {
				t.Errorf("Run(%+v) failed but changed the state", c.o)
			}
		}
		if _, err := r.Run(ctx, x0[:5], 1, st, RunOptions[T]{}); err == nil || !strings.Contains(err.Error(), "not a multiple of dim") {
			t.Errorf("Run of a ragged state: %v", err)
		}
	})
}

// TestBurninRefusesWhatItCannotReach: a schedule that would need more than
// MaxChebyshevIterations is refused with the numbers, not run.
func TestBurninRefusesWhatItCannotReach(t *testing.T) {
	q, mu := ar1Model(64, 0.99)
	r := NewReference[float32](64)
	if err := r.SetScheme(Scheme{Kind: Symmetric, Omega: 1e-4}); err != nil {
		t.Fatal(err)
	}
	if err := r.SetModel(rowsOf(q), mu); err != nil {
		t.Fatal(err)
	}
	k, err := r.BurninIterations(1e-300)
	if err == nil || !strings.Contains(err.Error(), "more than MaxChebyshevIterations") {
		t.Errorf("BurninIterations(1e-300) = %d, %v; want a refusal", k, err)
	}
	x := make([]float32, 64)
	if done, err := r.Run(context.Background(), x, 1, Stream{}, RunOptions[float32]{Burnin: BurninAuto, BurninTolerance: 1e-300}); err == nil || done != (RunResult{}) {
		t.Errorf("Run = %+v, %v; want the refusal", done, err)
	}
}
