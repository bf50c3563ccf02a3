package gibbsrt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
	"github.com/gibbsgen/gibbsgen/mixing"
)

// SweepKind is the order of a sweep's coordinate updates (docs/GUIDE.md,
// "Sweeps").
type SweepKind = kernels.SweepKind

const (
	// Forward sweeps update coordinates 0, 1, ..., dim−1.
	Forward = kernels.Forward
	// Backward sweeps update dim−1, ..., 0.
	Backward = kernels.Backward
	// Symmetric sweeps are a forward pass then a backward one (each with
	// normals of its own): the chain is reversible, and Chebyshev
	// acceleration applies to it.
	Symmetric = kernels.Symmetric
)

// Tune says what an automatic ω (Scheme.Omega = 0) optimizes.
type Tune int

const (
	// TuneMean minimizes the spectral radius of the mean error's operator:
	// the fastest burn-in of the mean, and for symmetric sweeps the
	// smallest IAT of the worst linear functional.
	TuneMean Tune = iota
	// TuneSquares minimizes the largest integrated autocorrelation time of
	// a squared centred coordinate (x_i − mu_i)²: for estimating variances,
	// which a large ω makes worse. It costs about 40 eigendecompositions
	// with eigenvectors: a second at dim 64.
	TuneSquares
	// TuneSampling minimizes the cost of an effective sample of the worst
	// linear functional aᵀx: its integrated autocorrelation time times the
	// sweep's cost (SweepCost), among the ω whose mean error still falls
	// 1000× within SamplingBurnInFactor times the sweeps of the kind's
	// fastest burn-in (TuneMean's). For forward sweeps plain Gibbs (ω = 1,
	// the cheaper kernel) is kept where it is at least as good. For
	// symmetric sweeps, which are reversible, it is TuneMean's ω. About 40
	// IATs beside TuneMean's search: under a second at dim 64.
	TuneSampling
)

// SamplingBurnInFactor bounds how much slower than the kind's fastest the
// chains of a TuneSampling ω may forget their start. Without a bound the
// target runs to ω → 2 for forward and backward sweeps: there the worst
// linear functional's IAT keeps falling while the spectral radius nears 1,
// the chain rotating rather than mixing, and at ω = 2 a sweep is a
// deterministic reflection that never forgets. Such a chain carries
// whatever the burn-in left behind ever longer, its IAT describes only
// runs many relaxation times 1/(1 − Rate) long, and the IATs of its
// squares grow without bound. A factor of 10 keeps the sampling sweep's
// forgetting within one order of magnitude of the best its kind can do and
// keeps most of the gain: closed form, the dense SPD model of
// docs/BENCHMARKS.md 24.6× plain Gibbs's IAT (ω = 1.922), AR(1) 510×
// (1.996), the seed's recipe 8× (1.778). A forward run of any length at
// those ω has a run-mean variance on the worst linear functional at most
// 3% above plain's run of the same length (mixing.IATLinearRun,
// TestSamplingRunLengths).
const SamplingBurnInFactor = 10

// SweepCost is the time of one sweep of kind k at ω relative to a plain
// sweep (forward, ω = 1), measured on an H200 at B = 1M chains
// (docs/log/BENCHMARKS-runs.md, run 13: µs per sweep on AR(1) D = 64 and the dense
// SPD D = 32 models: plain 132.5 and 90.5, forward with ω ≠ 1 144.1 and
// 96.4, symmetric 301.5 and 247.2). Each is the larger of the two models'
// ratios, so that over-relaxation must earn its cost. Backward sweeps run
// the forward ones' entry point on reordered tables; they were not
// measured apart.
func SweepCost(k SweepKind, omega float64) float64 {
	switch {
	case k == Symmetric:
		return 2.73 // 247.2/90.5: two passes and the Ext entry point
	case k == Forward && omega == 1:
		return 1
	}
	return 1.09 // 144.1/132.5: the Ext entry point's keep term
}

func (t Tune) String() string {
	switch t {
	case TuneMean:
		return "mean"
	case TuneSquares:
		return "squares"
	case TuneSampling:
		return "sampling"
	}
	return fmt.Sprintf("Tune(%d)", int(t))
}

// Scheme is how sweeps update the chains: the order of each sweep's
// coordinate updates and the over-relaxation ω of each update,
//
//	x_i ← (1−ω)·x_i + ω·m_i + sqrt(ω(2−ω))·z/sqrt(Q_ii),
//
// which leaves N(mu, Q⁻¹) invariant for every ω in (0, 2) (Adler 1981).
// Plain is the default.
type Scheme struct {
	Kind  SweepKind
	Omega float64 // in (0, 2); 1 is plain Gibbs; 0 chooses ω from the model as Tune says
	Tune  Tune
	// Form is the arithmetic of the passes: sequential updates (the
	// default) or the matrix form, which the Matrix strategy runs.
	Form Form
}

// Plain is plain Gibbs sampling: forward sweeps, ω = 1.
var Plain = Scheme{Kind: Forward, Omega: 1}

func (sc Scheme) String() string {
	w := "ω chosen for the " + sc.Tune.String()
	if sc.Omega != 0 {
		w = fmt.Sprintf("ω = %v", sc.Omega)
	}
	if sc.Form.resolve() == FormMatrix {
		w += ", matrix form"
	}
	return fmt.Sprintf("%v sweeps, %s", sc.Kind, w)
}

func (sc Scheme) check() error {
	switch sc.Kind {
	case Forward, Backward, Symmetric:
	default:
		return fmt.Errorf("gibbsrt: sweep kind %d; it must be Forward, Backward or Symmetric", int(sc.Kind))
	}
	if sc.Omega != 0 && !(sc.Omega > 0 && sc.Omega < 2) {
		return fmt.Errorf("gibbsrt: over-relaxation ω = %v; it must lie in (0, 2), or be 0 to choose it from the model", sc.Omega)
	}
	if sc.Tune != TuneMean && sc.Tune != TuneSquares && sc.Tune != TuneSampling {
		return fmt.Errorf("gibbsrt: Tune %d; it must be TuneMean, TuneSquares or TuneSampling", int(sc.Tune))
	}
	if sc.Form < FormAuto || sc.Form > FormMatrix {
		return fmt.Errorf("gibbsrt: Form %d; it must be FormAuto, FormSequential or FormMatrix", int(sc.Form))
	}
	return nil
}

// AnalysisMaxDim is the largest dim for which the mixing predictions are
// computed from the sweep's operator by dense eigendecompositions (a few
// O(dim³) solves per ω tried). Beyond it an automatic ω comes from Young's
// formulas in the Jacobi radius ρ_J (ω = 2/(1+sqrt(1−ρ_J²)) for forward
// and backward sweeps, 2/(1+sqrt(2(1−ρ_J))) for symmetric ones: exact for
// consistently ordered models, near for others; ω = 1 where ρ_J ≥ 1, as for
// many dense models, where the formulas do not apply), and Mixing reports
// the ω and, for symmetric sweeps, the rate alone.
const AnalysisMaxDim = 128

// Mixing is what the sweep's operator predicts of a scheme on a model,
// computed in float64 (package mixing): how fast the chains forget their
// start, and how correlated their samples are.
type Mixing struct {
	Scheme Scheme  // as set
	Omega  float64 // the over-relaxation in use
	// Rate is the spectral radius of one sweep's mean-error operator: the
	// mean error shrinks by about this factor per sweep.
	Rate float64
	// BurnIn is the number of sweeps that cut the mean error 1000× at Rate.
	BurnIn int
	// IATLinear is the integrated autocorrelation time, in sweeps, of the
	// worst linear functional aᵀx; IATSquares the largest of a squared
	// centred coordinate (x_i − mu_i)². NaN beyond AnalysisMaxDim.
	IATLinear, IATSquares float64
	// OmegaMean is the best ω of the kind for Rate (TuneMean's, for
	// burn-in) and OmegaSampling TuneSampling's, for sampling, when the
	// scheme chose its ω and dim ≤ AnalysisMaxDim; OmegaSquares is the best
	// for IATSquares, when the scheme chose it for them (NaN otherwise).
	OmegaMean, OmegaSampling, OmegaSquares float64
	// MeanBurnIn and MeanIATLinear are BurnIn and IATLinear at OmegaMean;
	// SamplingBurnIn and SamplingIATLinear at OmegaSampling (0 and NaN
	// where the ω is NaN).
	MeanBurnIn, SamplingBurnIn       int
	MeanIATLinear, SamplingIATLinear float64
	// ChebyshevRate and ChebyshevBurnIn are what Chebyshev-accelerated
	// symmetric sweeps at Omega (SweepChebyshev) predict: the factor per
	// iteration on the mean error, and the iterations (two passes each)
	// that cut it 1000×.
	ChebyshevRate   float64
	ChebyshevBurnIn int
}

// choose returns the ω of scheme sc on q: sc.Omega, or the one its Tune
// asks for.
func choose(q *mat.SymDense, sc Scheme) (float64, error) {
	if sc.Omega != 0 {
		return sc.Omega, nil
	}
	if q.SymmetricDim() > AnalysisMaxDim {
		return youngOmega(q, sc.Kind)
	}
	var w float64
	var err error
	switch sc.Tune {
	case TuneSquares:
		w, _, err = bestForSquares(q, sc.Kind)
	case TuneSampling:
		sigma, e := covariance(q)
		if e != nil {
			return 0, e
		}
		_, best, e := bestForRate(q, sc.Kind)
		if e != nil {
			return 0, e
		}
		w, err = bestForSampling(q, sigma, sc.Kind, best)
	default:
		w, _, err = bestForRate(q, sc.Kind)
	}
	return w, err
}

// rate is the spectral radius of a sweep of kind k with ω: for symmetric
// sweeps 1 − λmin of the SSOR splitting, from a symmetric eigenproblem.
func rate(q *mat.SymDense, omega float64, k SweepKind) (float64, error) {
	if k == Symmetric {
		lmin, _, err := mixing.SSORSpectrum(q, omega)
		return 1 - lmin, err
	}
	return mixing.Rate(q, omega, k)
}

func bestForRate(q *mat.SymDense, k SweepKind) (float64, float64, error) {
	return mixing.Minimize(func(w float64) (float64, error) { return rate(q, w, k) })
}

func bestForSquares(q *mat.SymDense, k SweepKind) (float64, float64, error) {
	sigma, err := covariance(q)
	if err != nil {
		return 0, 0, err
	}
	return mixing.MinimizeCoarse(func(w float64) (float64, error) {
		g, err := mixing.Operator(q, w, k)
		if err != nil {
			return 0, err
		}
		sq, err := mixing.IATSquares(g, sigma)
		if err != nil {
			return math.Inf(1), nil // the sweep does not converge at this ω
		}
		return maxOf(sq), nil
	})
}

// samplingCost is TuneSampling's objective at ω: the worst linear
// functional's IAT times the sweep's cost, +Inf where the mean error's
// 1000× burn-in takes more than maxBurnIn sweeps (or never ends); and
// that IAT.
func samplingCost(q, sigma *mat.SymDense, k SweepKind, omega, maxBurnIn float64) (cost, iat float64, err error) {
	g, err := mixing.Operator(q, omega, k)
	if err != nil {
		return 0, 0, err
	}
	var r float64
	if k == Symmetric {
		r, err = rate(q, omega, k) // from the symmetric eigenproblem
	} else {
		r, err = mixing.SpectralRadius(g)
	}
	if err != nil {
		return 0, 0, err
	}
	if r >= 1 || float64(mixing.Sweeps(r, 1e-3)) > maxBurnIn {
		return math.Inf(1), math.NaN(), nil
	}
	if iat, err = mixing.IATLinear(g, sigma); err != nil {
		return math.Inf(1), math.NaN(), nil // I − G singular to working precision
	}
	return iat * SweepCost(k, omega), iat, nil
}

// bestForSampling is TuneSampling's ω (see TuneSampling), given the
// kind's least spectral radius best (bestForRate's). The objective is
// costly (an IAT per ω) and smooth but at the bound, which golden section
// finds to 1e-5: the coarse search suffices.
func bestForSampling(q, sigma *mat.SymDense, k SweepKind, best float64) (float64, error) {
	limit := SamplingBurnInFactor * float64(mixing.Sweeps(best, 1e-3))
	w, v, err := mixing.MinimizeCoarse(func(w float64) (float64, error) {
		c, _, err := samplingCost(q, sigma, k, w, limit)
		return c, err
	})
	if err != nil {
		return 0, err
	}
	if k == Forward {
		// Plain Gibbs is what the user would run otherwise: never worse,
		// whatever its burn-in.
		plain, _, err := samplingCost(q, sigma, k, 1, math.Inf(1))
		if err != nil {
			return 0, err
		}
		if plain <= v {
			w = 1
		}
	}
	return w, nil
}

// youngOmega is Young's ω from the Jacobi radius (see AnalysisMaxDim).
func youngOmega(q *mat.SymDense, k SweepKind) (float64, error) {
	n := q.SymmetricDim()
	j := mat.NewSymDense(n, nil)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			j.SetSym(a, b, -q.At(a, b)/math.Sqrt(q.At(a, a)*q.At(b, b)))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(j, false) {
		return 0, fmt.Errorf("gibbsrt: the Jacobi matrix's eigenvalues did not converge")
	}
	v := eig.Values(nil)
	rj := math.Max(math.Abs(v[0]), math.Abs(v[len(v)-1]))
	if rj >= 1 {
		// The Jacobi iteration diverges and Young's theory says nothing;
		// its formula would give an ω next to 2, whose sweeps barely
		// move (sqrt(ω(2−ω)) → 0). Plain Gibbs converges on every SPD Q.
		return 1, nil
	}
	if k == Symmetric {
		return 2 / (1 + math.Sqrt(2*(1-rj))), nil
	}
	return 2 / (1 + math.Sqrt(1-rj*rj)), nil
}

// covariance returns Q⁻¹.
func covariance(q *mat.SymDense) (*mat.SymDense, error) {
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		return nil, fmt.Errorf("gibbsrt: Q is not positive definite")
	}
	var s mat.SymDense
	if err := ch.InverseTo(&s); err != nil {
		return nil, err
	}
	return &s, nil
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// analyze predicts scheme sc, at ω omega, on q.
func analyze(q *mat.SymDense, sc Scheme, omega float64, ch mixing.Chebyshev) (Mixing, error) {
	m := Mixing{Scheme: sc, Omega: omega, IATLinear: math.NaN(), IATSquares: math.NaN(),
		OmegaMean: math.NaN(), OmegaSampling: math.NaN(), OmegaSquares: math.NaN(),
		MeanIATLinear: math.NaN(), SamplingIATLinear: math.NaN(),
		ChebyshevRate: ch.Rate(), ChebyshevBurnIn: ch.Iterations(1e-3)}
	if q.SymmetricDim() > AnalysisMaxDim {
		m.Rate = math.NaN()
		if sc.Kind == Symmetric {
			r, err := rate(q, omega, Symmetric)
			if err != nil {
				return m, err
			}
			m.Rate = r
		}
		m.BurnIn = burnIn(m.Rate)
		return m, nil
	}
	r, err := rate(q, omega, sc.Kind)
	if err != nil {
		return m, err
	}
	m.Rate, m.BurnIn = r, burnIn(r)
	sigma, err := covariance(q)
	if err != nil {
		return m, err
	}
	g, err := mixing.Operator(q, omega, sc.Kind)
	if err != nil {
		return m, err
	}
	if r < 1 {
		if m.IATLinear, err = mixing.IATLinear(g, sigma); err != nil {
			return m, err
		}
		sq, err := mixing.IATSquares(g, sigma)
		if err != nil {
			return m, err
		}
		m.IATSquares = maxOf(sq)
	}
	if sc.Omega == 0 {
		var best float64
		if m.OmegaMean, best, err = bestForRate(q, sc.Kind); err != nil {
			return m, err
		}
		m.OmegaSampling = omega
		if sc.Tune != TuneSampling {
			if m.OmegaSampling, err = bestForSampling(q, sigma, sc.Kind, best); err != nil {
				return m, err
			}
		}
		for _, c := range []struct {
			w      float64
			burnIn *int
			iat    *float64
		}{{m.OmegaMean, &m.MeanBurnIn, &m.MeanIATLinear}, {m.OmegaSampling, &m.SamplingBurnIn, &m.SamplingIATLinear}} {
			r, err := rate(q, c.w, sc.Kind)
			if err != nil {
				return m, err
			}
			if *c.burnIn = burnIn(r); r < 1 {
				if _, *c.iat, err = samplingCost(q, sigma, sc.Kind, c.w, math.Inf(1)); err != nil {
					return m, err
				}
			}
		}
		if sc.Tune == TuneSquares {
			m.OmegaSquares = omega
		}
	}
	return m, nil
}

func burnIn(rate float64) int {
	if math.IsNaN(rate) {
		return 0
	}
	return mixing.Sweeps(rate, 1e-3)
}

// ChebyshevMargin is the factor on the estimated λmin of the SSOR splitting
// that the Chebyshev schedule uses: the interval [0.99·λmin, 1] holds the
// float32 sampler's spectrum too, whose tables differ from float64's in
// the last bit. A λmin too large would make the iteration diverge; 1% too
// small slows it by about half a percent.
const ChebyshevMargin = 0.99

// chebyshev returns the schedule of Chebyshev-accelerated symmetric sweeps
// at ω on q: λmax = 1 (the bound for every SSOR splitting), λmin estimated
// from the splitting and rounded down by ChebyshevMargin.
func chebyshev(q *mat.SymDense, omega float64) (mixing.Chebyshev, error) {
	lmin, _, err := mixing.SSORSpectrum(q, omega)
	if err != nil {
		return mixing.Chebyshev{}, err
	}
	return mixing.NewChebyshev(omega, ChebyshevMargin*lmin, 1)
}
