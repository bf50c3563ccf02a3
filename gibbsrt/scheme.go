package gibbsrt

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/mixing"
)

// SweepKind is the order of a sweep's coordinate updates (docs/GUIDE.md,
// "Sweeps"). It is mixing.Sweep, which holds the kinds beside the
// ω-tuning policy that depends on them.
type SweepKind = mixing.Sweep

const (
	// Forward sweeps update coordinates 0, 1, ..., dim−1.
	Forward = mixing.Forward
	// Backward sweeps update dim−1, ..., 0.
	Backward = mixing.Backward
	// Symmetric sweeps are a forward pass then a backward one (each with
	// normals of its own): the chain is reversible, and Chebyshev
	// acceleration applies to it.
	Symmetric = mixing.Symmetric
)

// Tune says what an automatic ω (Scheme.Omega = 0) optimizes. It is
// mixing.Tune: package mixing holds the tuning policy.
type Tune = mixing.Tune

const (
	// TuneMean minimizes the spectral radius of the mean error's operator:
	// the fastest burn-in of the mean (see mixing.TuneMean).
	TuneMean = mixing.TuneMean
	// TuneSquares minimizes the largest integrated autocorrelation time of
	// a squared centred coordinate, for estimating variances (see
	// mixing.TuneSquares).
	TuneSquares = mixing.TuneSquares
	// TuneSampling minimizes the cost of an effective sample of the worst
	// linear functional, within SamplingBurnInFactor of the fastest
	// burn-in (see mixing.TuneSampling).
	TuneSampling = mixing.TuneSampling
)

// SamplingBurnInFactor bounds how much slower than the kind's fastest the
// chains of a TuneSampling ω may forget their start (see
// mixing.SamplingBurnInFactor).
const SamplingBurnInFactor = mixing.SamplingBurnInFactor

// SweepCost is the time of one sweep of kind k at ω relative to a plain
// sweep (forward, ω = 1), measured on an H200, as TuneSampling weighs it
// (see mixing.SweepCost).
func SweepCost(k SweepKind, omega float64) float64 { return mixing.SweepCost(k, omega) }

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
	if !sc.Kind.Valid() {
		return fmt.Errorf("gibbsrt: sweep kind %d; it must be %s", int(sc.Kind), mixing.SweepNames())
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
// computed from the sweep's operator by dense eigendecompositions. Beyond
// it an automatic ω comes from Young's formulas in the Jacobi radius, and
// Mixing reports the ω and, for symmetric sweeps, the rate alone (see
// mixing.AnalysisMaxDim).
const AnalysisMaxDim = mixing.AnalysisMaxDim

// Mixing is what the sweep's operator predicts of a scheme on a model,
// computed in float64 (package mixing): how fast the chains forget their
// start, and how correlated their samples are.
type Mixing struct {
	Scheme Scheme  // as set
	Omega  float64 // the over-relaxation in use
	// Prediction is what the sweep's operator predicts at Omega: Rate,
	// BurnIn, IATLinear, IATSquares and the ω of each target with what it
	// would give (package mixing documents each field).
	mixing.Prediction
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
	return mixing.ChooseOmega(q, sc.Kind, sc.Tune)
}

// analyze predicts scheme sc, at ω omega, on q.
func analyze(q *mat.SymDense, sc Scheme, omega float64, ch mixing.Chebyshev) (Mixing, error) {
	p, err := mixing.Predict(q, sc.Kind, omega, sc.Tune, sc.Omega == 0)
	return Mixing{Scheme: sc, Omega: omega, Prediction: p,
		ChebyshevRate: ch.Rate(), ChebyshevBurnIn: ch.Iterations(1e-3)}, err
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
