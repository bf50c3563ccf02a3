package gibbsrt

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/mixing"
)

// A plan is a validated model under a scheme: its kernel tables at the
// scheme's ω and, computed on first use, what the scheme predicts and the
// Chebyshev schedule. The sampler and its twin share the code, so they
// choose the same ω and compute the same coefficients.
type plan[T Float] struct {
	dim    int
	mean   []float64     // mu (a copy)
	q      *mat.SymDense // the symmetric part of Q
	scheme Scheme
	co     *Coefficients[T]

	mu   sync.Mutex
	mix  *Mixing
	cheb *mixing.Chebyshev
	rec  *mixing.Recurrence // where the last chebyshevTable left cheb's recurrence
	mat  *MatrixTables[T]
	rows []T       // co.byRow(), the twin's weights; computed on first use
	inv  []float64 // Q⁻¹ for a linear term per chain (inverse); computed on first use
}

// newPlan validates Q and mu, chooses ω if sc asks for it, and computes
// the tables.
func newPlan[T Float](dim int, Q [][]float64, mu []float64, sc Scheme) (*plan[T], error) {
	if err := sc.check(); err != nil {
		return nil, err
	}
	q, err := validated(dim, Q, mu)
	if err != nil {
		return nil, err
	}
	return planOf[T](q, append([]float64(nil), mu...), sc)
}

// planOf is the plan of a validated model (q the symmetric part of Q)
// under sc: ω and the tables.
func planOf[T Float](q *mat.SymDense, mu []float64, sc Scheme) (*plan[T], error) {
	omega, err := choose(q, sc)
	if err != nil {
		return nil, err
	}
	co, err := relaxedCoefficients[T](q, mu, omega)
	if err != nil {
		return nil, err
	}
	return (&plan[T]{dim: q.SymmetricDim(), mean: mu, q: q, scheme: sc, co: co}).eager()
}

// eager computes the matrix form's tables now if the scheme runs it, so
// that a model they cannot hold is refused by SetModel or SetScheme, not
// by the first sweep; other schemes compute them on first use
// (DrawExact).
func (p *plan[T]) eager() (*plan[T], error) {
	if p.form() == FormMatrix {
		if _, err := p.matrix(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// rescheme returns the plan of the same model under sc, without checking
// or factorizing the model again; where only the form changes, the tables
// and what was computed of the model are kept.
func (p *plan[T]) rescheme(sc Scheme) (*plan[T], error) {
	if err := sc.check(); err != nil {
		return nil, err
	}
	if sc.Kind == p.scheme.Kind && sc.Omega == p.scheme.Omega && sc.Tune == p.scheme.Tune {
		p.mu.Lock()
		np := &plan[T]{dim: p.dim, mean: p.mean, q: p.q, scheme: sc, co: p.co, mix: p.mix, cheb: p.cheb, mat: p.mat, rows: p.rows, inv: p.inv}
		p.mu.Unlock()
		return np.eager()
	}
	np, err := planOf[T](p.q, p.mean, sc)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	np.inv = p.inv // the same model's
	p.mu.Unlock()
	return np, nil
}

// chebyshevRun is a call's Chebyshev iterations: the coefficient table and
// the previous iterates; the zero value means other sweeps.
type chebyshevRun[T Float] struct {
	table []T // kernels.ChebyshevStride per iteration
	prev  []T
}

// MaxChebyshevIterations bounds the iterations a Chebyshev run reaches:
// first + iterations of a SweepChebyshev call. The schedule is computed
// from iteration 0 on every call (O(first+iterations) time and memory on
// the host), and Chebyshev acceleration is for burn-in, which takes far
// fewer (Mixing.ChebyshevBurnIn); sample on with ordinary sweeps.
const MaxChebyshevIterations = 1 << 20

// checkChebyshevArgs validates the iteration range of a SweepChebyshev
// call, on the GPU and in the twin alike: first and iterations at least 0,
// and first + iterations at most MaxChebyshevIterations.
func checkChebyshevArgs(first, iterations int) error {
	if first < 0 || iterations < 0 {
		return fmt.Errorf("gibbsrt: Chebyshev iterations %d from %d; both must be >= 0", iterations, first)
	}
	if first > MaxChebyshevIterations || iterations > MaxChebyshevIterations-first {
		return fmt.Errorf("gibbsrt: Chebyshev iterations %d from %d; first + iterations must be at most MaxChebyshevIterations (%d)", iterations, first, MaxChebyshevIterations)
	}
	return nil
}

// chebyshevRun checks prev against a state of lenX elements and returns
// the run of iterations first, ..., first+n−1.
func (p *plan[T]) chebyshevRun(prev []T, lenX, first, n int) (chebyshevRun[T], error) {
	if len(prev) != lenX {
		return chebyshevRun[T]{}, fmt.Errorf("gibbsrt: Chebyshev previous iterates have %d elements, the state %d", len(prev), lenX)
	}
	t, err := p.chebyshevTable(first, n)
	if err != nil {
		return chebyshevRun[T]{}, err
	}
	return chebyshevRun[T]{table: t, prev: prev}, nil
}

// mixing returns the plan's predictions.
func (p *plan[T]) mixing() (Mixing, error) {
	ch, err := p.chebyshev()
	if err != nil {
		return Mixing{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mix == nil {
		m, err := analyze(p.q, p.scheme, p.co.Omega, ch)
		if err != nil {
			return Mixing{}, fmt.Errorf("gibbsrt: the mixing of %v at ω = %v: %w", p.scheme, p.co.Omega, err)
		}
		p.mix = &m
	}
	return *p.mix, nil
}

// chebyshev returns the plan's Chebyshev schedule, at its ω.
func (p *plan[T]) chebyshev() (mixing.Chebyshev, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cheb == nil {
		c, err := chebyshev(p.q, p.co.Omega)
		if err != nil {
			return mixing.Chebyshev{}, fmt.Errorf("gibbsrt: the Chebyshev schedule of the model at ω = %v: %w", p.co.Omega, err)
		}
		p.cheb = &c
	}
	return *p.cheb, nil
}

// chebyshevTable returns the kernels' coefficient table of iterations
// first, ..., first+n−1 (kernels.ChebyshevStride values each), rounded once
// to T.
func (p *plan[T]) chebyshevTable(first, n int) ([]T, error) {
	if err := checkChebyshevArgs(first, n); err != nil {
		return nil, err
	}
	c, err := p.chebyshev()
	if err != nil {
		return nil, err
	}
	// A run in launches asks for its iterations in increasing chunks; from
	// where the last call left the recurrence, each is computed once.
	// Recomputed from iteration 0, a 20-iteration launch at iteration
	// 40,000 cost 0.4-0.6 ms of host time, with the device idle
	// (mixing.BenchmarkCoefficients; docs/log/BENCHMARKS-runs.md, run 25e).
	p.mu.Lock()
	if p.rec == nil {
		r := c.Start()
		p.rec = &r
	}
	rows := p.rec.Coefficients(first, n)
	p.mu.Unlock()
	out := make([]T, 0, 5*n)
	for _, k := range rows {
		for _, v := range k {
			out = append(out, T(v))
		}
	}
	return out, nil
}

// form is the arithmetic of the plan's passes.
func (p *plan[T]) form() Form { return p.scheme.Form.resolve() }

// matrix returns the plan's matrix-form tables, computed on first use (an
// O(dim³) solve in float64).
func (p *plan[T]) matrix() (*MatrixTables[T], error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mat == nil {
		m, err := newMatrixTables[T](p.q, p.mean, p.co.Omega)
		if err != nil {
			return nil, err
		}
		p.mat = m
	}
	return p.mat, nil
}

// byRow returns co.byRow(), computed once per plan (the twin's sweeps read
// it; a GPU sampler's plan never computes it).
func (p *plan[T]) byRow() []T {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rows == nil {
		p.rows = p.co.byRow()
	}
	return p.rows
}

// ext reports whether sweeps under the plan need the Ext entry points.
func (p *plan[T]) ext() bool { return p.scheme.Kind != Forward || p.co.Omega != 1 }
