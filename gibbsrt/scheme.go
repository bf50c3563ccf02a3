package gibbsrt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
	"github.com/gibbsgen/gibbsgen/mixing"
)

// SweepKind is the order of a sweep's coordinate updates (README, "Sweeps").
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
	// smallest IAT of the worst linear functional. (For forward sweeps the
	// worst linear functional's IAT keeps falling as ω nears 2 while the
	// rate nears 1: the chain rotates rather than mixes, so that is no
	// criterion.)
	TuneMean Tune = iota
	// TuneSquares minimizes the largest integrated autocorrelation time of
	// a squared centred coordinate (x_i − mu_i)²: for estimating variances,
	// which a large ω makes worse. It costs about 40 eigendecompositions
	// with eigenvectors: a second at dim 64.
	TuneSquares
)

func (t Tune) String() string {
	switch t {
	case TuneMean:
		return "mean"
	case TuneSquares:
		return "squares"
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
	if sc.Tune != TuneMean && sc.Tune != TuneSquares {
		return fmt.Errorf("gibbsrt: Tune %d; it must be TuneMean or TuneSquares", int(sc.Tune))
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
	// OmegaMean is the best ω of the kind for Rate, when the scheme chose
	// its ω, and OmegaSquares for IATSquares, when it chose it for them
	// (NaN otherwise).
	OmegaMean, OmegaSquares float64
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
	if sc.Tune == TuneSquares {
		w, _, err = bestForSquares(q, sc.Kind)
	} else {
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
		OmegaMean: math.NaN(), OmegaSquares: math.NaN(),
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
		if m.OmegaMean, _, err = bestForRate(q, sc.Kind); err != nil {
			return m, err
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
