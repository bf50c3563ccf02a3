package gibbsrt

import (
	"errors"
	"fmt"
	"math"

	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/mixing"
)

// Burnin says whether Run burns the chains in before it samples (docs/GUIDE.md,
// "Getting results out").
type Burnin int

const (
	// BurninNone samples from the given state at once: the default.
	BurninNone Burnin = iota
	// BurninAuto first runs Chebyshev-accelerated symmetric sweeps at the
	// scheme's ω (SweepChebyshev), as many as BurninIterations says, then
	// the scheme's sweeps.
	BurninAuto
)

func (b Burnin) String() string {
	switch b {
	case BurninNone:
		return "none"
	case BurninAuto:
		return "auto"
	}
	return fmt.Sprintf("Burnin(%d)", int(b))
}

// DefaultBurninTolerance is the factor by which automatic burn-in cuts the
// mean error when RunOptions.BurninTolerance is 0.
const DefaultBurninTolerance = 1e-3

// checkBurnin validates Run's burn-in options and returns the tolerance in
// use (0 without burn-in).
func checkBurnin(b Burnin, tol float64) (float64, error) {
	switch {
	case b != BurninNone && b != BurninAuto:
		return 0, fmt.Errorf("gibbsrt: Run: Burnin = %d; it must be BurninNone or BurninAuto", int(b))
	case b == BurninNone && tol != 0:
		return 0, fmt.Errorf("gibbsrt: Run: BurninTolerance = %v without Burnin = BurninAuto; it would be ignored", tol)
	case b == BurninNone:
		return 0, nil
	case tol == 0:
		return DefaultBurninTolerance, nil
	case !(tol > 0 && tol < 1):
		return 0, fmt.Errorf("gibbsrt: Run: BurninTolerance = %v; it must lie in (0, 1), or be 0 for DefaultBurninTolerance (%v)", tol, DefaultBurninTolerance)
	}
	return tol, nil
}

// BurninIterations returns the Chebyshev iterations Run's automatic
// burn-in runs on the model under the scheme, to cut the mean error by tol
// (0: DefaultBurninTolerance): see plan.burninIterations.
func (s *Sampler[T]) BurninIterations(tol float64) (int, error) {
	s.mu.Lock()
	p, closed := s.p, s.closed
	s.mu.Unlock()
	if closed {
		return 0, ErrClosed
	}
	return burninOf(p, tol)
}

// BurninIterations returns the Chebyshev iterations Run's automatic
// burn-in runs (see Sampler.BurninIterations).
func (r *Reference[T]) BurninIterations(tol float64) (int, error) {
	if r.closed.Load() {
		return 0, ErrClosed
	}
	return burninOf(r.p, tol)
}

func burninOf[T Float](p *plan[T], tol float64) (int, error) {
	tol, err := checkBurnin(BurninAuto, tol)
	if err != nil {
		return 0, err
	}
	if p == nil {
		return 0, errors.New("gibbsrt: BurninIterations called before SetModel")
	}
	return p.burninIterations(tol)
}

// burninIterations is the least k for which k Chebyshev iterations
// (SweepChebyshev's schedule) cut the Q-norm of the mean error,
// ‖E[x_k] − mu‖_Q = sqrt(eᵀQe), to at most tol times the start's, from
// every start: ‖P_k‖_Q ≤ tol (mixing.Chebyshev.MeanErrorNorms), computed in
// float64 from the eigenvalues of the SSOR splitting where dim ≤
// AnalysisMaxDim. Beyond, it is the least k whose Chebyshev bound
// 2σᵏ/(1+σ²ᵏ) is at most tol (mixing.Chebyshev.Iterations, σ the rate),
// which holds ‖P_k‖_Q since the splitting's eigenvalues lie in the
// schedule's interval; it is the exact count or a little more. The count
// depends on the model, ω and tol alone, so the sampler and its twin run
// the same iterations, and it holds for every chain's start, however the
// chains started: the covariance error, P_k(Σ − Var x_0)P_kᵀ, is then cut
// by tol² in the same norm.
func (p *plan[T]) burninIterations(tol float64) (int, error) {
	c, err := p.chebyshev()
	if err != nil {
		return 0, err
	}
	// The bound's k is about log(tol/2)/log σ: refuse before Iterations
	// counts to it.
	tooMany := func(k float64) error {
		return fmt.Errorf("gibbsrt: automatic burn-in: Chebyshev iterations at ω = %v cut the mean error by %v each; cutting it to %v of the start's would take about %.0f, more than MaxChebyshevIterations (%d)", p.co.Omega, c.Rate(), tol, k, MaxChebyshevIterations)
	}
	if est := math.Log(tol/2) / math.Log(c.Rate()); !(est <= MaxChebyshevIterations) {
		return 0, tooMany(est)
	}
	bound := c.Iterations(tol)
	if bound > MaxChebyshevIterations {
		return 0, tooMany(float64(bound))
	}
	if p.dim > AnalysisMaxDim {
		return bound, nil
	}
	lambdas, err := mixing.SSOREigenvalues(p.q, p.co.Omega)
	if err != nil {
		return 0, fmt.Errorf("gibbsrt: automatic burn-in: the SSOR splitting at ω = %v: %w", p.co.Omega, err)
	}
	for k, n := range c.MeanErrorNorms(lambdas, bound) {
		if n <= tol {
			return k, nil
		}
	}
	return bound, nil // the bound holds; float64 rounding kept the norm a hair above tol
}

// cloneState returns a new device state equal to x: Chebyshev's previous
// iterates at iteration 0.
func (s *Sampler[T]) cloneState(x *DeviceState[T]) (*DeviceState[T], error) {
	s.mu.Lock()
	err := s.own(x)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	c, err := s.NewDeviceState(x.chains)
	if err != nil || x.chains == 0 {
		return c, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.own(x); err != nil {
		return c, err
	}
	return c, s.ctx.Do(func(l cuda.Locked) error {
		return l.CopyDeviceToDevice(c.ptr, x.ptr, uint64(x.chains)*uint64(s.m.Dim)*elemSize[T]())
	})
}
