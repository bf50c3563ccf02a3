package mixing

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The ω-tuning policy: what an automatic ω optimizes (Tune), the ω it
// picks (ChooseOmega) and what the sweep predicts (Predict). The runtime
// (gibbsrt.Scheme with Omega = 0, gibbsrt's Mixing) hands the model's
// precision matrix to these two calls and to nothing else here.

// Tune says what an automatic ω optimizes (gibbsrt.Tune is this type).
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
// 3% above plain's run of the same length (IATLinearRun;
// gibbsrt's TestSamplingRunLengths).
const SamplingBurnInFactor = 10

// AnalysisMaxDim is the largest dim for which ChooseOmega and Predict work
// from the sweep's operator by dense eigendecompositions (a few O(dim³)
// solves per ω tried). Beyond it an automatic ω comes from Young's
// formulas in the Jacobi radius ρ_J (ω = 2/(1+sqrt(1−ρ_J²)) for forward
// and backward sweeps, 2/(1+sqrt(2(1−ρ_J))) for symmetric ones: exact for
// consistently ordered models, near for others; ω = 1 where ρ_J ≥ 1, as
// for many dense models, where the formulas do not apply), and Predict
// reports, for symmetric sweeps, the rate alone.
const AnalysisMaxDim = 128

// ChooseOmega returns the ω in (0, 2) that t asks for of sweeps of kind k
// on the precision matrix q: by eigenanalysis up to AnalysisMaxDim, by
// Young's formulas beyond.
func ChooseOmega(q mat.Symmetric, k Sweep, t Tune) (float64, error) {
	if q.SymmetricDim() > AnalysisMaxDim {
		return youngOmega(q, k)
	}
	var w float64
	var err error
	switch t {
	case TuneSquares:
		w, _, err = bestForSquares(q, k)
	case TuneSampling:
		sigma, e := covariance(q)
		if e != nil {
			return 0, e
		}
		_, best, e := bestForRate(q, k)
		if e != nil {
			return 0, e
		}
		w, err = bestForSampling(q, sigma, k, best)
	default:
		w, _, err = bestForRate(q, k)
	}
	return w, err
}

// Prediction is what the sweep's operator predicts of sweeps on a model,
// in float64: how fast the chains forget their start, and how correlated
// their samples are (gibbsrt's Mixing reports it).
type Prediction struct {
	// Rate is the spectral radius of one sweep's mean-error operator: the
	// mean error shrinks by about this factor per sweep. NaN beyond
	// AnalysisMaxDim but for symmetric sweeps.
	Rate float64
	// BurnIn is the number of sweeps that cut the mean error 1000× at
	// Rate (0 where Rate is NaN).
	BurnIn int
	// IATLinear is the integrated autocorrelation time, in sweeps, of the
	// worst linear functional aᵀx; IATSquares the largest of a squared
	// centred coordinate (x_i − mu_i)². NaN beyond AnalysisMaxDim, or where
	// Rate ≥ 1.
	IATLinear, IATSquares float64
	// OmegaMean is the best ω of the kind for Rate (TuneMean's) and
	// OmegaSampling TuneSampling's, when the ω was chosen and dim ≤
	// AnalysisMaxDim; OmegaSquares is the ω in use when it was chosen for
	// TuneSquares (NaN otherwise).
	OmegaMean, OmegaSampling, OmegaSquares float64
	// MeanBurnIn and MeanIATLinear are BurnIn and IATLinear at OmegaMean;
	// SamplingBurnIn and SamplingIATLinear at OmegaSampling (0 and NaN
	// where the ω is NaN).
	MeanBurnIn, SamplingBurnIn       int
	MeanIATLinear, SamplingIATLinear float64
}

// Predict returns the prediction of sweeps of kind k with over-relaxation
// omega on the precision matrix q. chosen says that omega is
// ChooseOmega(q, k, t)'s: the prediction then also holds the ω of the
// other targets and what they would give.
func Predict(q mat.Symmetric, k Sweep, omega float64, t Tune, chosen bool) (Prediction, error) {
	m := Prediction{IATLinear: math.NaN(), IATSquares: math.NaN(),
		OmegaMean: math.NaN(), OmegaSampling: math.NaN(), OmegaSquares: math.NaN(),
		MeanIATLinear: math.NaN(), SamplingIATLinear: math.NaN()}
	if q.SymmetricDim() > AnalysisMaxDim {
		m.Rate = math.NaN()
		if k.Reversible() {
			r, err := sweepRate(q, omega, k)
			if err != nil {
				return m, err
			}
			m.Rate = r
		}
		m.BurnIn = burnIn(m.Rate)
		return m, nil
	}
	r, err := sweepRate(q, omega, k)
	if err != nil {
		return m, err
	}
	m.Rate, m.BurnIn = r, burnIn(r)
	sigma, err := covariance(q)
	if err != nil {
		return m, err
	}
	g, err := Operator(q, omega, k)
	if err != nil {
		return m, err
	}
	if r < 1 {
		if m.IATLinear, err = IATLinear(g, sigma); err != nil {
			return m, err
		}
		sq, err := IATSquares(g, sigma)
		if err != nil {
			return m, err
		}
		m.IATSquares = maxOf(sq)
	}
	if chosen {
		var best float64
		if m.OmegaMean, best, err = bestForRate(q, k); err != nil {
			return m, err
		}
		m.OmegaSampling = omega
		if t != TuneSampling {
			if m.OmegaSampling, err = bestForSampling(q, sigma, k, best); err != nil {
				return m, err
			}
		}
		for _, c := range []struct {
			w      float64
			burnIn *int
			iat    *float64
		}{{m.OmegaMean, &m.MeanBurnIn, &m.MeanIATLinear}, {m.OmegaSampling, &m.SamplingBurnIn, &m.SamplingIATLinear}} {
			r, err := sweepRate(q, c.w, k)
			if err != nil {
				return m, err
			}
			if *c.burnIn = burnIn(r); r < 1 {
				if _, *c.iat, err = samplingCost(q, sigma, k, c.w, math.Inf(1)); err != nil {
					return m, err
				}
			}
		}
		if t == TuneSquares {
			m.OmegaSquares = omega
		}
	}
	return m, nil
}

// sweepRate is the spectral radius of a sweep of kind k with ω: for
// symmetric sweeps 1 − λmin of the SSOR splitting, from a symmetric
// eigenproblem (Rate's general eigenproblem would agree, less exactly).
func sweepRate(q mat.Symmetric, omega float64, k Sweep) (float64, error) {
	if k.Reversible() {
		lmin, _, err := SSORSpectrum(q, omega)
		return 1 - lmin, err
	}
	return Rate(q, omega, k)
}

func bestForRate(q mat.Symmetric, k Sweep) (float64, float64, error) {
	return Minimize(func(w float64) (float64, error) { return sweepRate(q, w, k) })
}

func bestForSquares(q mat.Symmetric, k Sweep) (float64, float64, error) {
	sigma, err := covariance(q)
	if err != nil {
		return 0, 0, err
	}
	return MinimizeCoarse(func(w float64) (float64, error) {
		g, err := Operator(q, w, k)
		if err != nil {
			return 0, err
		}
		sq, err := IATSquares(g, sigma)
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
func samplingCost(q mat.Symmetric, sigma *mat.SymDense, k Sweep, omega, maxBurnIn float64) (cost, iat float64, err error) {
	g, err := Operator(q, omega, k)
	if err != nil {
		return 0, 0, err
	}
	var r float64
	if k.Reversible() {
		r, err = sweepRate(q, omega, k) // from the symmetric eigenproblem
	} else {
		r, err = SpectralRadius(g)
	}
	if err != nil {
		return 0, 0, err
	}
	if r >= 1 || float64(Sweeps(r, 1e-3)) > maxBurnIn {
		return math.Inf(1), math.NaN(), nil
	}
	if iat, err = IATLinear(g, sigma); err != nil {
		return math.Inf(1), math.NaN(), nil // I − G singular to working precision
	}
	return iat * SweepCost(k, omega), iat, nil
}

// bestForSampling is TuneSampling's ω (see TuneSampling), given the
// kind's least spectral radius best (bestForRate's). The objective is
// costly (an IAT per ω) and smooth but at the bound, which golden section
// finds to 1e-5: the coarse search suffices.
func bestForSampling(q mat.Symmetric, sigma *mat.SymDense, k Sweep, best float64) (float64, error) {
	limit := SamplingBurnInFactor * float64(Sweeps(best, 1e-3))
	w, v, err := MinimizeCoarse(func(w float64) (float64, error) {
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
func youngOmega(q mat.Symmetric, k Sweep) (float64, error) {
	n := q.SymmetricDim()
	j := mat.NewSymDense(n, nil)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			j.SetSym(a, b, -q.At(a, b)/math.Sqrt(q.At(a, a)*q.At(b, b)))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(j, false) {
		return 0, errors.New("mixing: the Jacobi matrix's eigenvalues did not converge")
	}
	v := eig.Values(nil)
	rj := math.Max(math.Abs(v[0]), math.Abs(v[len(v)-1]))
	if rj >= 1 {
		// The Jacobi iteration diverges and Young's theory says nothing;
		// its formula would give an ω next to 2, whose sweeps barely
		// move (sqrt(ω(2−ω)) → 0). Plain Gibbs converges on every SPD Q.
		return 1, nil
	}
	if k.Reversible() {
		return 2 / (1 + math.Sqrt(2*(1-rj))), nil
	}
	return 2 / (1 + math.Sqrt(1-rj*rj)), nil
}

// covariance returns Q⁻¹.
func covariance(q mat.Symmetric) (*mat.SymDense, error) {
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		return nil, errors.New("mixing: Q is not positive definite")
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

// burnIn is the sweeps that cut the mean error 1000× at rate, 0 for NaN.
func burnIn(rate float64) int {
	if math.IsNaN(rate) {
		return 0
	}
	return Sweeps(rate, 1e-3)
}
