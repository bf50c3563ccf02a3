package main

// Section 9 (-mixing): how fast the sweep schemes of issue 10 mix, measured
// on the GPU beside the closed forms of package mixing. Per model and
// scheme: the sweeps (and GPU seconds) that burn-in takes from a far start,
// until the chains' mean and covariance reach the target, and the effective
// samples per second of the worst linear functional, of x_i and of x_i² in
// the stationary regime. Everything but the GPU runner and the printing
// works on host states through chainRunner, so that the tests run the same
// code on gibbsrt.Reference.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/mcstat"
	"github.com/gibbsgen/gibbsgen/mixing"
)

// The section's constants.
const (
	mixMeanThreshold = 1e-3 // burn-in of the mean: ‖mean − mu‖ ≤ 1e-3 · the start's
	mixCovThreshold  = 1e-2 // burn-in of the covariance: ‖cov − Σ‖_F ≤ 1e-2 · ‖Σ‖_F
	mixGrowth        = 1.25 // each burn-in check is at least 1.25× the sweeps of the last
	mixBandZ         = 4.0  // the expected range: where the expected error ± 4 sd crosses
	mixTimeSweeps    = 20   // sweeps (Chebyshev iterations) per timed launch at B
	mixStartFloor    = 1e-4 // the start is far enough that the mean's floor is at most this
	essIATs          = 50   // an ESS trace spans this many predicted IATs, as essMaxSweeps allows
	essMaxSweeps     = 500000
)

// MixingRow is one model and scheme of section 9.
type MixingRow struct {
	Model       string  `json:"model"` // the -mixing name: ar1, spd, lattice, seed
	Description string  `json:"description"`
	Dim         int     `json:"dim"`
	Scheme      string  `json:"scheme"` // plain, forward, symmetric, chebyshev
	Omega       float64 `json:"omega"`  // the over-relaxation in use
	// Rate is the closed form's factor per sweep on the mean error: the
	// spectral radius of the sweep's operator, for chebyshev its
	// asymptotic rate per iteration.
	Rate     float64 `json:"rate"`
	Chains   int     `json:"chains"`   // B
	Strategy string  `json:"strategy"` // Auto's choice at B
	// SecPerSweep is one sweep at B (a symmetric sweep: both passes; a
	// Chebyshev iteration), median of CUDA-event-timed launches.
	SecPerSweep float64 `json:"sec_per_sweep"`
	// StartSD is the start's distance: every chain starts at mu + StartSD·sd
	// (sd_i = sqrt(Σ_ii)). MeanFloor and CovFloor are the errors that B
	// chains of exact draws show: sqrt(tr Σ/B)/‖start − mu‖ and
	// sqrt(((tr Σ)² + ‖Σ‖²_F)/B)/‖Σ‖_F.
	StartSD   float64       `json:"start_sd"`
	MeanFloor float64       `json:"mean_floor"`
	CovFloor  float64       `json:"cov_floor"`
	Mean      MixingBurnIn  `json:"mean"`
	Cov       MixingBurnIn  `json:"cov"`
	Checks    int           `json:"burn_in_checks"`     // states downloaded and analysed
	SweepsRun int           `json:"burn_in_sweeps_run"` // sweeps of the search, bisection included
	ESS       MixingESSData `json:"ess"`
}

// MixingBurnIn is when one burn-in error first fell to its threshold.
// Counts of 0 mean: not within -mixing-max-sweeps.
type MixingBurnIn struct {
	Threshold float64 `json:"threshold"`
	Sweeps    int     `json:"sweeps"`  // measured
	Seconds   float64 `json:"seconds"` // Sweeps × sec_per_sweep
	// PredRate is the least k with rate^k ≤ threshold (chebyshev: its
	// Chebyshev bound); mean only.
	PredRate int `json:"pred_rate,omitempty"`
	// Pred is the closed form's crossing for this start at B = ∞, and
	// ExpectLo..ExpectHi the range expected at B: where the expected error
	// at B minus, and plus, 4 sd of it crosses the threshold.
	Pred     int  `json:"pred"`
	ExpectLo int  `json:"expect_lo"`
	ExpectHi int  `json:"expect_hi"`
	InRange  bool `json:"in_range"`
	// VsPlain is plain's sweeps over these; VsPlainBound is ">" when plain
	// did not get there (the ratio is at least VsPlain), "<" when this
	// scheme did not (at most), "?" when neither did (VsPlain 0).
	VsPlain        float64 `json:"vs_plain"`
	VsPlainBound   string  `json:"vs_plain_bound,omitempty"`
	SecondsVsPlain float64 `json:"seconds_vs_plain"`
}

// MixingESSData is the stationary part: Chains chains started from exact
// draws, Records states recorded every Thin sweeps after Warm unrecorded
// ones, and for each quantity the integrated autocorrelation time in
// sweeps (measured, worst over i for coordinates; the closed form, 0 where
// there is none) and the effective samples per second over B chains,
// B / (IAT · sec_per_sweep).
type MixingESSData struct {
	Chains  int `json:"chains"`
	Records int `json:"records"`
	Thin    int `json:"thin"`
	Warm    int `json:"warm"`

	IATLinear       float64 `json:"iat_linear"`
	IATLinearPred   float64 `json:"iat_linear_pred"`
	PerSecLinear    float64 `json:"ess_per_sec_linear"`
	LinearVsPlain   float64 `json:"linear_vs_plain"`
	IATCoord        float64 `json:"iat_coord"`
	IATCoordPred    float64 `json:"iat_coord_pred"`
	PerSecCoord     float64 `json:"ess_per_sec_coord"`
	CoordVsPlain    float64 `json:"coord_vs_plain"`
	IATSquare       float64 `json:"iat_square"`
	IATSquarePred   float64 `json:"iat_square_pred"`
	PerSecSquare    float64 `json:"ess_per_sec_square"`
	SquareVsPlain   float64 `json:"square_vs_plain"`
	LinearDirection string  `json:"linear_direction"` // whose worst direction: this scheme's, or symmetric's for chebyshev
}

// mixModel is one model of the section.
type mixModel struct {
	name, desc string
	build      func() gibbstest.Model
}

var mixModels = []mixModel{
	{"ar1", "AR(1), rho = 0.99, D = 64", func() gibbstest.Model {
		return gibbstest.AR1(64, 0.99, gibbstest.NonzeroMean(64))
	}},
	{"spd", "dense SPD, cond 1e4, D = 32 (gibbstest.RandomSPD, PCG seed 10,10)", func() gibbstest.Model {
		return gibbstest.RandomSPD(32, 1e4, rand.New(rand.NewPCG(10, 10)), gibbstest.NonzeroMean(32))
	}},
	{"lattice", "2-D lattice 8x8, Q_ii = 4 + 1e-3, -1 to the 4 neighbours, D = 64", func() gibbstest.Model {
		return dirichletLattice(8, 1e-3, gibbstest.NonzeroMean(64))
	}},
	{"seed", "the seed's recipe Q = L·Lᵀ + 2I, D = 32 (PCG seed 32,2024)", func() gibbstest.Model {
		return gibbstest.SeedRecipe(32, rand.New(rand.NewPCG(32, 2024)))
	}},
}

// mixTargets are issue 10's targets at ≥ 1M chains: the best scheme's
// burn-in sweeps (of the mean) and ESS/s on the worst linear functional,
// as multiples of plain's.
var mixTargets = map[string]struct{ burnIn, ess float64 }{
	"ar1":  {80, 15},
	"spd":  {15, 15},
	"seed": {1, 0.9},
}

// mixingNames parses -mixing: "none", "all", or a comma list of names.
func mixingNames(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "none" || s == "" {
		return nil, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
			continue
		case f == "all":
			out = out[:0]
			for _, m := range mixModels {
				out = append(out, m.name)
			}
			return out, nil
		case lookupMixModel(f) == nil:
			var names []string
			for _, m := range mixModels {
				names = append(names, m.name)
			}
			return nil, fmt.Errorf("-mixing: unknown model %q (the models are %s, or all, or none)", f, strings.Join(names, ", "))
		}
		dup := false
		for _, o := range out {
			dup = dup || o == f
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out, nil
}

func lookupMixModel(name string) *mixModel {
	for i := range mixModels {
		if mixModels[i].name == name {
			return &mixModels[i]
		}
	}
	return nil
}

// dirichletLattice is the n×n lattice with Q_ii = 4 + kappa everywhere and
// −1 between 4-neighbours (unlike gibbstest.Lattice, whose diagonal is the
// node's degree plus κ).
func dirichletLattice(n int, kappa float64, mu []float64) gibbstest.Model {
	d := n * n
	q := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		q.SetSym(i, i, 4+kappa)
		r, c := i/n, i%n
		if c+1 < n {
			q.SetSym(i, i+1, -1)
		}
		if r+1 < n {
			q.SetSym(i, i+n, -1)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		panic("bench: the lattice is not positive definite")
	}
	sigma := mat.NewSymDense(d, nil)
	if err := ch.InverseTo(sigma); err != nil {
		panic(err)
	}
	return gibbstest.Model{Name: fmt.Sprintf("Lattice(%dx%d, Q_ii=4+%g)", n, n, kappa), Q: q, Mu: mu, Sigma: sigma}
}

// mixScheme is one scheme of the section.
type mixScheme struct {
	name      string
	scheme    gibbsrt.Scheme
	chebyshev bool // SweepChebyshev at the scheme's ω
}

var mixSchemes = []mixScheme{
	{"plain", gibbsrt.Plain, false},
	{"forward", gibbsrt.Scheme{Kind: gibbsrt.Forward, Tune: gibbsrt.TuneMean}, false},
	{"symmetric", gibbsrt.Scheme{Kind: gibbsrt.Symmetric, Tune: gibbsrt.TuneMean}, false},
	{"chebyshev", gibbsrt.Scheme{Kind: gibbsrt.Symmetric, Tune: gibbsrt.TuneMean}, true},
}

// symmetricIndex is the index of the symmetric scheme in mixSchemes, whose
// closed-form IATs and worst direction stand in for chebyshev's.
const symmetricIndex = 2

func (sc mixScheme) sweep() mixing.Sweep {
	if sc.scheme.Kind == gibbsrt.Symmetric {
		return mixing.Symmetric
	}
	return mixing.Forward
}

// startSD is the start's distance in sds for B chains: 10, or more for a
// small B, so that the mean error's floor 1/(startSD·√B) is at most 1e-4.
func startSD(chains int) float64 {
	return math.Max(10, 1/(mixStartFloor*math.Sqrt(float64(chains))))
}

// startState returns chains copies of mu + sd·sqrt(diag Σ).
func startState(m gibbstest.Model, chains int, sd float64) []float32 {
	dim := len(m.Mu)
	x := make([]float32, chains*dim)
	for i := 0; i < dim; i++ {
		x[i] = float32(m.Mu[i] + sd*math.Sqrt(m.Sigma.At(i, i)))
	}
	for c := 1; c < chains; c++ {
		copy(x[c*dim:(c+1)*dim], x[:dim])
	}
	return x
}

// stateAnalyzer measures a state's burn-in errors.
type stateAnalyzer struct {
	dim    int
	mu     []float64
	sigma  []float64 // Σ, row-major
	e0     float64   // ‖start − mu‖
	sigmaF float64   // ‖Σ‖_F
}

// newStateAnalyzer returns the analyzer of m's states, the errors relative
// to those of start (a state whose first chain is the start point).
func newStateAnalyzer(m gibbstest.Model, start []float32) *stateAnalyzer {
	d := len(m.Mu)
	a := &stateAnalyzer{dim: d, mu: m.Mu, sigma: make([]float64, d*d)}
	for i := 0; i < d; i++ {
		v := float64(start[i]) - m.Mu[i]
		a.e0 += v * v
		for j := 0; j < d; j++ {
			a.sigma[i*d+j] = m.Sigma.At(i, j)
			a.sigmaF += a.sigma[i*d+j] * a.sigma[i*d+j]
		}
	}
	a.e0, a.sigmaF = math.Sqrt(a.e0), math.Sqrt(a.sigmaF)
	return a
}

// errors returns the mean error ‖mean_chains(x) − mu‖ / ‖start − mu‖ and,
// if withCov, the covariance error ‖cov_chains(x) − Σ‖_F / ‖Σ‖_F (cov with
// the n−1 denominator), computed in float64 on every CPU.
func (a *stateAnalyzer) errors(x []float32, withCov bool) (meanErr, covErr float64) {
	d := a.dim
	chains := len(x) / d
	workers := max(1, min(runtime.GOMAXPROCS(0), chains/1024))
	per := (chains + workers - 1) / workers
	s1 := make([][]float64, workers)
	s2 := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			sum := make([]float64, d)
			var sq []float64
			if withCov {
				sq = make([]float64, d*d)
			}
			dv := make([]float64, d)
			for c := w * per; c < min(chains, (w+1)*per); c++ {
				row := x[c*d : (c+1)*d]
				for i, v := range row {
					dv[i] = float64(v) - a.mu[i]
					sum[i] += dv[i]
				}
				if !withCov {
					continue
				}
				for i := 0; i < d; i++ {
					di := dv[i]
					acc := sq[i*d : i*d+i+1]
					for j, v := range dv[:i+1] {
						acc[j] += di * v
					}
				}
			}
			s1[w], s2[w] = sum, sq
		}(w)
	}
	wg.Wait()
	n := float64(chains)
	m := make([]float64, d)
	for w := range s1 {
		for i, v := range s1[w] {
			m[i] += v
		}
	}
	norm := 0.0
	for i := range m {
		m[i] /= n
		norm += m[i] * m[i]
	}
	meanErr = math.Sqrt(norm) / a.e0
	if !withCov {
		return meanErr, math.NaN()
	}
	sum := 0.0
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for w := range s2 {
				s += s2[w][i*d+j]
			}
			c := (s - n*m[i]*m[j]) / (n - 1)
			e := c - a.sigma[i*d+j]
			if i == j {
				sum += e * e
			} else {
				sum += 2 * e * e
			}
		}
	}
	return meanErr, math.Sqrt(sum) / a.sigmaF
}

// chainRunner runs a scheme's sweeps on a batch of chains: on the GPU
// (gpuRunner) or, in the tests, on gibbsrt.Reference. Sweep (or Chebyshev
// iteration) k of a run always draws the stream's sweep k, so a run is a
// function of the start and of the sweep numbers alone, however it is
// split into calls.
type chainRunner interface {
	// load sets the chains to x and, for Chebyshev iterations, the
	// previous iterates to prev.
	load(x, prev []float32) error
	// advance runs sweeps (iterations) from, ..., from+n−1.
	advance(from, n int) error
	// save copies the chains to x and, unless prev is nil, the previous
	// iterates to prev.
	save(x, prev []float32) error
}

// gpuRunner is a chainRunner on device states; prev is set for Chebyshev
// iterations.
type gpuRunner struct {
	s       *gibbsrt.Sampler[float32]
	x, prev *gibbsrt.DeviceState[float32]
	seed    uint64
}

func (g *gpuRunner) load(x, prev []float32) error {
	if err := g.x.Upload(x); err != nil {
		return err
	}
	if g.prev != nil {
		return g.prev.Upload(prev)
	}
	return nil
}

func (g *gpuRunner) advance(from, n int) error {
	st := gibbsrt.Stream{Seed: g.seed, Sweep: uint64(from)}
	if g.prev != nil {
		return g.s.SweepChebyshevDevice(g.x, g.prev, from, n, st)
	}
	return g.s.SweepDevice(g.x, n, st)
}

func (g *gpuRunner) save(x, prev []float32) error {
	if err := g.x.Download(x); err != nil {
		return err
	}
	if g.prev != nil && prev != nil {
		return g.prev.Download(prev)
	}
	return nil
}

// burnInOpts are the burn-in search's thresholds and limits.
type burnInOpts struct {
	meanThreshold, covThreshold float64
	maxSweeps                   int
	growth                      float64 // check k_{j+1} = max(k_j + 1, ⌈growth·k_j⌉)
}

// burnInResult is what measureBurnIn found.
type burnInResult struct {
	mean, cov int // sweeps of the crossing; 0: not within maxSweeps
	checks    int // states analysed
	sweepsRun int // sweeps run, bisection included
}

// measureBurnIn runs the chains from start (all of them at one point; for
// Chebyshev iterations prev = start) and returns, for the mean and the
// covariance error, a sweep count k with error(k−1) > threshold ≥
// error(k): the chains are checked after sweeps 1, 2, ... growing by
// opts.growth, and between the last check above a threshold and the first
// at or below it a bisection finds k, rerunning from the saved state of
// the lower end (the same sweeps draw the same numbers). Where the error
// is not monotone between two checks, k is a crossing in that interval,
// not necessarily the first.
func measureBurnIn(r chainRunner, a *stateAnalyzer, start []float32, cheb bool, o burnInOpts) (burnInResult, error) {
	type snap struct{ x, prev []float32 }
	n := len(start)
	newSnap := func() snap {
		s := snap{x: make([]float32, n)}
		if cheb {
			s.prev = make([]float32, n)
		}
		return s
	}
	var res burnInResult
	advance := func(from, k int) error {
		res.sweepsRun += k
		return r.advance(from, k)
	}
	meanBelow := func(x []float32) bool {
		res.checks++
		me, _ := a.errors(x, false)
		return me <= o.meanThreshold
	}
	covBelow := func(x []float32) bool {
		res.checks++
		_, ce := a.errors(x, true)
		return ce <= o.covThreshold
	}
	var scratch [2]snap
	bisect := func(loK int, lo snap, hiK int, below func([]float32) bool) (int, error) {
		for i := range scratch {
			if scratch[i].x == nil {
				scratch[i] = newSnap()
			}
		}
		left, right, base, use := loK, hiK, lo, 0 // error(left) > threshold >= error(right)
		for right-left > 1 {
			m := left + (right-left)/2
			probe := scratch[use]
			if err := r.load(base.x, base.prev); err != nil {
				return 0, err
			}
			if err := advance(left, m-left); err != nil {
				return 0, err
			}
			if err := r.save(probe.x, probe.prev); err != nil {
				return 0, err
			}
			if below(probe.x) {
				right = m
			} else {
				left, base, use = m, probe, use^1
			}
		}
		return right, nil
	}

	lo, cur := newSnap(), newSnap()
	copy(lo.x, start)
	if cheb {
		copy(lo.prev, start)
	}
	if err := r.load(lo.x, lo.prev); err != nil {
		return res, err
	}
	loK, k := 0, 0
	for (res.mean == 0 || res.cov == 0) && k < o.maxSweeps {
		next := min(o.maxSweeps, max(k+1, int(math.Ceil(float64(k)*o.growth))))
		if err := advance(k, next-k); err != nil {
			return res, err
		}
		if err := r.save(cur.x, cur.prev); err != nil {
			return res, err
		}
		k = next
		res.checks++
		me, ce := a.errors(cur.x, res.cov == 0)
		hitMean := res.mean == 0 && me <= o.meanThreshold
		hitCov := res.cov == 0 && ce <= o.covThreshold
		var err error
		if hitMean {
			if res.mean, err = bisect(loK, lo, k, meanBelow); err != nil {
				return res, err
			}
		}
		if hitCov {
			if res.cov, err = bisect(loK, lo, k, covBelow); err != nil {
				return res, err
			}
		}
		if (hitMean || hitCov) && k-loK > 1 {
			if err := r.load(cur.x, cur.prev); err != nil { // resume at k
				return res, err
			}
		}
		lo, cur, loK = cur, lo, k
	}
	return res, nil
}

// predictOpts are what the closed forms are computed for.
type predictOpts struct {
	chains                      int // B, for the expected range
	meanThreshold, covThreshold float64
	maxSweeps                   int
	z                           float64 // the expected range's half-width, in sds
}

// curveCrossing is where a closed-form error curve reaches a threshold:
// Exact at B = ∞, Lo..Hi the expected range at B (see MixingBurnIn). 0:
// not within maxSweeps.
type curveCrossing struct{ Exact, Lo, Hi int }

// contains reports whether k (0: not reached) lies in the expected range.
func (c curveCrossing) contains(k int) bool {
	switch {
	case k == 0:
		return c.Hi == 0 // the range's end is not within the cap either
	case c.Lo == 0:
		return false
	case k < c.Lo:
		return false
	}
	return c.Hi == 0 || k <= c.Hi
}

// prediction is what the closed forms say of one scheme on one model.
type prediction struct {
	omega, rate float64
	rateSweeps  int // least k with rate^k ≤ mean threshold (Chebyshev: its bound)
	mean, cov   curveCrossing
	meanFloor   float64
	covFloor    float64
	// The IATs in sweeps, 0 for Chebyshev iterations: of the worst linear
	// functional (dir, normalized to dirᵀΣdir = 1), the worst coordinate
	// and the worst centred square.
	iatLin, iatCoord, iatSq float64
	dir                     []float64
}

// predict computes the closed forms of scheme sc on m for chains started
// at start (its first chain is the point), in float64. ω, the rate and the
// Chebyshev schedule come from gibbsrt.Reference, which shares the
// sampler's code that chooses them.
func predict(m gibbstest.Model, sc mixScheme, start []float32, o predictOpts) (prediction, error) {
	var p prediction
	d := len(m.Mu)
	ref := gibbsrt.NewReference[float32](d)
	if err := ref.SetScheme(sc.scheme); err != nil {
		return p, err
	}
	if err := ref.SetModel(m.Rows(), m.Mu); err != nil {
		return p, err
	}
	mx, err := ref.Mixing()
	if err != nil {
		return p, err
	}
	p.omega = mx.Omega
	g, err := mixing.Operator(m.Q, p.omega, sc.sweep())
	if err != nil {
		return p, err
	}
	var steps []mixing.Step
	tau := 0.0
	if sc.chebyshev {
		ch, err := ref.Chebyshev()
		if err != nil {
			return p, err
		}
		p.rate, steps, tau = ch.Rate(), ch.Steps(o.maxSweeps), ch.Tau
		if p.rate < 1-1e-4 { // else Iterations would take long to say it is beyond the cap
			p.rateSweeps = ch.Iterations(o.meanThreshold)
		}
	} else {
		p.rate = mx.Rate
		p.rateSweeps = mixing.Sweeps(p.rate, o.meanThreshold)
	}
	if p.rateSweeps > o.maxSweeps {
		p.rateSweeps = 0
	}
	e0 := make([]float64, d)
	for i := range e0 {
		e0[i] = float64(start[i]) - m.Mu[i]
	}
	if p.mean, p.cov, err = scanCurves(g, steps, tau, m.Sigma, e0, o); err != nil {
		return p, err
	}
	trS, sF2 := 0.0, 0.0
	for i := 0; i < d; i++ {
		trS += m.Sigma.At(i, i)
		for j := 0; j < d; j++ {
			sF2 += m.Sigma.At(i, j) * m.Sigma.At(i, j)
		}
	}
	b := float64(o.chains)
	p.meanFloor = math.Sqrt(trS/b) / mat.Norm(mat.NewVecDense(d, e0), 2)
	p.covFloor = math.Sqrt((trS*trS+sF2)/b) / math.Sqrt(sF2)
	if !sc.chebyshev && p.rate < 1 {
		if p.iatLin, p.dir, p.iatCoord, err = iatClosedForm(g, m.Sigma); err != nil {
			return p, err
		}
		sq, err := mixing.IATSquares(g, m.Sigma)
		if err != nil {
			return p, err
		}
		for _, v := range sq {
			p.iatSq = math.Max(p.iatSq, v)
		}
	}
	return p, nil
}

// scanCurves follows the mean error P_k·e0 and the covariance error
// P_k·Σ·P_kᵀ of chains started at one point (Σ − Var(x_k) for a point
// start, Var(x_0) = 0) for k = 1, ..., maxSweeps: P_k = G^k, or for
// Chebyshev iterations (steps set) the recurrence P_{k+1} = α_k(1−τ)P_k +
// α_kτ·G·P_k + (1−α_k)P_{k−1}, P_{−1} = P_0 = I. It returns each curve's
// crossing of its threshold at B = ∞ and the range expected at B chains.
//
// At B the measured errors are those of the sample mean and covariance of
// B Gaussian iterates with variance V = Σ − C, C = P_kΣP_kᵀ:
//
//	E‖mean − mu‖² = ‖m‖² + tr V/B,  Var ≈ 4·mᵀVm/B + 2·tr V²/B²
//	E‖cov − Σ‖²_F = ‖C‖²_F + ((tr V)² + ‖V‖²_F)/B,
//	Var ≈ 8·tr(CVCV)/B + 4·((tr V²)² + tr V⁴)/B²
//
// with mᵀVm ≤ mᵀΣm, tr(CVCV) ≤ λmax(Σ)²‖C‖²_F and tr V⁴ ≤ λmax(Σ)²·tr V²
// (which only widen the range). The sd of an error is that of its square
// over twice the error. Lo is the first k where the expected error − z·sd
// is at or below the threshold, Hi one past the last k where + z·sd is
// above it. A curve is followed until 1.5× its first upper crossing (+5),
// or until its noise-free part is below 1e-3 of the threshold.
func scanCurves(g *mat.Dense, steps []mixing.Step, tau float64, sigma *mat.SymDense, e0 []float64, o predictOpts) (mean, cov curveCrossing, err error) {
	d := len(e0)
	var ch mat.Cholesky
	if !ch.Factorize(sigma) {
		return mean, cov, errors.New("bench: Σ is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	var eig mat.EigenSym
	if !eig.Factorize(sigma, false) {
		return mean, cov, errors.New("bench: Σ's eigenvalues did not converge")
	}
	ev := eig.Values(nil)
	lmax2 := ev[len(ev)-1] * ev[len(ev)-1]
	trS, sF2 := 0.0, 0.0
	for i := 0; i < d; i++ {
		trS += sigma.At(i, i)
		for j := 0; j < d; j++ {
			sF2 += sigma.At(i, j) * sigma.At(i, j)
		}
	}
	e0n := mat.Norm(mat.NewVecDense(d, e0), 2)
	sF := math.Sqrt(sF2)
	b := float64(o.chains)

	// X_k = P_k·[e0 | L]: column 0 the mean error, the rest M_k with
	// C_k = M_k·M_kᵀ.
	x0 := mat.NewDense(d, d+1, nil)
	for i := 0; i < d; i++ {
		x0.Set(i, 0, e0[i])
		for j := 0; j <= i; j++ {
			x0.Set(i, j+1, l.At(i, j))
		}
	}
	cur, prev := mat.DenseCopyOf(x0), mat.DenseCopyOf(x0)
	var next, gx mat.Dense
	// The vectors of the mean alone, once the covariance is done.
	var vcur, vprev *mat.VecDense
	var vnext, vg mat.VecDense
	var c mat.SymDense
	mt := newCrossingTracker(o.meanThreshold, o.z)
	ct := newCrossingTracker(o.covThreshold, o.z)
	sigmaV := mat.NewVecDense(d, nil)
	for k := 1; k <= o.maxSweeps && !(mt.done && ct.done); k++ {
		var a0, a1, a2 float64 // next = a0·G·cur + a1·cur + a2·prev
		if steps != nil {
			s := steps[k-1]
			a0, a1, a2 = s.Alpha*tau, s.Alpha*(1-tau), 1-s.Alpha
		} else {
			a0 = 1
		}
		var m *mat.VecDense
		trC, cF2, sc := 0.0, 0.0, 0.0
		if !ct.done {
			gx.Mul(g, cur)
			next.Scale(a0, &gx)
			if a1 != 0 {
				next.Add(&next, scaled(a1, cur))
			}
			if a2 != 0 {
				next.Add(&next, scaled(a2, prev))
			}
			prev, cur = cur, mat.DenseCopyOf(&next)
			m = mat.VecDenseCopyOf(cur.ColView(0))
			c.SymOuterK(1, cur.Slice(0, d, 1, d+1))
			for i := 0; i < d; i++ {
				trC += c.At(i, i)
				for j := 0; j < d; j++ {
					v := c.At(i, j)
					cF2 += v * v
					sc += v * sigma.At(i, j)
				}
			}
		} else {
			if vcur == nil {
				vcur, vprev = mat.VecDenseCopyOf(cur.ColView(0)), mat.VecDenseCopyOf(prev.ColView(0))
			}
			vg.MulVec(g, vcur)
			vnext.ScaleVec(a0, &vg)
			if a1 != 0 {
				vnext.AddScaledVec(&vnext, a1, vcur)
			}
			if a2 != 0 {
				vnext.AddScaledVec(&vnext, a2, vprev)
			}
			vprev, vcur = vcur, mat.VecDenseCopyOf(&vnext)
			m = vcur
		}
		trV := trS - trC
		vF2 := math.Max(0, sF2-2*sc+cF2) // ‖V‖²_F = tr V²
		mn2 := mat.Dot(m, m)
		sigmaV.MulVec(sigma, m)
		mSm := mat.Dot(m, sigmaV)
		// The mean.
		if !mt.done {
			e2 := mn2 + trV/b
			v2 := 4*mSm/b + 2*vF2/(b*b)
			mt.add(k, math.Sqrt(mn2)/e0n, math.Sqrt(e2)/e0n, math.Sqrt(v2)/(2*math.Sqrt(e2))/e0n)
		}
		if !ct.done {
			e2 := cF2 + (trV*trV+vF2)/b
			v2 := 8*lmax2*cF2/b + 4*(vF2*vF2+lmax2*vF2)/(b*b)
			ct.add(k, math.Sqrt(cF2)/sF, math.Sqrt(e2)/sF, math.Sqrt(v2)/(2*math.Sqrt(e2))/sF)
		}
	}
	return mt.result(), ct.result(), nil
}

func scaled(f float64, a mat.Matrix) *mat.Dense {
	var out mat.Dense
	out.Scale(f, a)
	return &out
}

// crossingTracker follows one error curve for scanCurves.
type crossingTracker struct {
	thr, z     float64
	exact, lo  int
	firstUpper int
	lastAbove  int  // the last k whose upper edge is above thr
	endBelow   bool // the upper edge at the last k followed
	done       bool
}

func newCrossingTracker(thr, z float64) *crossingTracker {
	return &crossingTracker{thr: thr, z: z}
}

// add records sweep k: the noise-free error v, the expected error e at B
// and its sd.
func (t *crossingTracker) add(k int, v, e, sd float64) {
	if t.exact == 0 && v <= t.thr {
		t.exact = k
	}
	if t.lo == 0 && e-t.z*sd <= t.thr {
		t.lo = k
	}
	t.endBelow = e+t.z*sd <= t.thr
	if !t.endBelow {
		t.lastAbove = k
	} else if t.firstUpper == 0 {
		t.firstUpper = k
	}
	if (t.firstUpper > 0 && k >= int(math.Ceil(1.5*float64(t.firstUpper)))+5) || v < 1e-3*t.thr {
		t.done = true
	}
}

func (t *crossingTracker) result() curveCrossing {
	c := curveCrossing{Exact: t.exact, Lo: t.lo}
	if t.endBelow {
		c.Hi = t.lastAbove + 1
	}
	return c
}

// iatClosedForm returns the largest integrated autocorrelation time of a
// linear functional aᵀx with its direction a (aᵀΣa = 1), and the largest
// IAT of a coordinate x_i (package mixing's closed forms).
func iatClosedForm(g mat.Matrix, sigma *mat.SymDense) (lin float64, dir []float64, coord float64, err error) {
	if lin, dir, err = mixing.WorstLinear(g, sigma); err != nil {
		return 0, nil, 0, err
	}
	c, err := mixing.IATCoordinates(g, sigma)
	if err != nil {
		return 0, nil, 0, err
	}
	return lin, dir, slices.Max(c), nil
}

// essThin is the thinning of an ESS trace of records records for a
// predicted IAT: the trace spans essIATs IATs, within essMaxSweeps.
func essThin(iat float64, records int) int {
	t := int(math.Ceil(essIATs * iat / float64(records)))
	return max(1, min(t, essMaxSweeps/records))
}

// essResult is the measured worst IATs, in sweeps.
type essResult struct{ lin, coord, square float64 }

// measureESS starts the chains at x0 (for Chebyshev iterations prev = x0),
// runs warm sweeps, then records the state every thin sweeps, records
// times, and estimates the integrated autocorrelation time in sweeps
// (chains·records·thin / ESS, mcstat.EffectiveSize over the chains) of
// dirᵀ(x − mu), of each x_i and of each (x_i − mu_i)², returning the
// largest of the coordinates and of the squares.
func measureESS(r chainRunner, x0 []float32, cheb bool, mu, dir []float64, warm, records, thin int) (essResult, error) {
	d := len(mu)
	n := len(x0)
	chains := n / d
	var prev []float32
	if cheb {
		prev = append([]float32(nil), x0...)
	}
	if err := r.load(x0, prev); err != nil {
		return essResult{}, err
	}
	k := 0
	if warm > 0 {
		if err := r.advance(0, warm); err != nil {
			return essResult{}, err
		}
		k = warm
	}
	rec := make([]float32, records*n)
	for i := 0; i < records; i++ {
		if err := r.advance(k, thin); err != nil {
			return essResult{}, err
		}
		k += thin
		if err := r.save(rec[i*n:(i+1)*n], nil); err != nil {
			return essResult{}, err
		}
	}
	// Functionals: 0..d−1 the coordinates, d..2d−1 the squares, 2d the
	// linear one.
	nf := 2 * d
	if dir != nil {
		nf++
	}
	iat := make([]float64, nf)
	errs := make([]error, nf)
	jobs := make(chan int, nf)
	for f := 0; f < nf; f++ {
		jobs <- f
	}
	close(jobs)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), nf); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				draws := make([][]float64, chains)
				for c := range draws {
					draws[c] = make([]float64, records)
					for t := 0; t < records; t++ {
						row := rec[t*n+c*d : t*n+(c+1)*d]
						var v float64
						switch {
						case f < d:
							v = float64(row[f])
						case f < 2*d:
							v = float64(row[f-d]) - mu[f-d]
							v *= v
						default:
							for i, a := range dir {
								v += a * (float64(row[i]) - mu[i])
							}
						}
						draws[c][t] = v
					}
				}
				e, err := mcstat.EffectiveSize(draws)
				if err != nil {
					errs[f] = err
					continue
				}
				iat[f] = float64(chains*records*thin) / e.ESS
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return essResult{}, err
	}
	var res essResult
	for i := 0; i < d; i++ {
		res.coord = math.Max(res.coord, iat[i])
		res.square = math.Max(res.square, iat[d+i])
	}
	if dir != nil {
		res.lin = iat[2*d]
	}
	return res, nil
}

// vsPlain is plain's crossing sweeps over a scheme's, where 0 means not
// reached within maxSweeps (then maxSweeps stands in, and bound says
// which way the ratio is a bound: ">" at least, "<" at most, "?" unknown
// with ratio 0).
func vsPlain(plain, scheme, maxSweeps int) (float64, string) {
	switch {
	case plain == 0 && scheme == 0:
		return 0, "?"
	case plain == 0:
		return float64(maxSweeps) / float64(scheme), ">"
	case scheme == 0:
		return float64(plain) / float64(maxSweeps), "<"
	}
	return float64(plain) / float64(scheme), ""
}

// setRatios fills the rows' ratios to plain's row (rows[0]).
func setRatios(rows []MixingRow, maxSweeps int) {
	p := rows[0]
	for i := range rows {
		r := &rows[i]
		for _, c := range []struct{ mine, plain *MixingBurnIn }{{&r.Mean, &p.Mean}, {&r.Cov, &p.Cov}} {
			c.mine.VsPlain, c.mine.VsPlainBound = vsPlain(c.plain.Sweeps, c.mine.Sweeps, maxSweeps)
			ps, ms := float64(c.plain.Sweeps), float64(c.mine.Sweeps)
			if ps == 0 {
				ps = float64(maxSweeps)
			}
			if ms == 0 {
				ms = float64(maxSweeps)
			}
			if c.mine.VsPlainBound != "?" && r.SecPerSweep > 0 {
				c.mine.SecondsVsPlain = ps * p.SecPerSweep / (ms * r.SecPerSweep)
			}
		}
		e := &r.ESS
		e.LinearVsPlain = ratioOf(e.PerSecLinear, p.ESS.PerSecLinear)
		e.CoordVsPlain = ratioOf(e.PerSecCoord, p.ESS.PerSecCoord)
		e.SquareVsPlain = ratioOf(e.PerSecSquare, p.ESS.PerSecSquare)
	}
}

func ratioOf(a, b float64) float64 {
	if !(a > 0 && b > 0) {
		return 0
	}
	return a / b
}

// perSec is B chains' effective samples per second at iat sweeps and
// sec seconds per sweep (0 where either is unknown).
func perSec(chains int, iat, sec float64) float64 {
	if !(iat > 0 && sec > 0) {
		return 0
	}
	return float64(chains) / (iat * sec)
}

// bestVsPlain returns the best scheme's burn-in (mean) and worst-linear
// ESS/s ratios to plain, with the schemes'.
func bestVsPlain(rows []MixingRow) (burnIn float64, burnInBound, burnInScheme string, ess float64, essScheme string) {
	for _, r := range rows[1:] {
		if r.Mean.VsPlainBound != "?" && r.Mean.VsPlain > burnIn {
			burnIn, burnInBound, burnInScheme = r.Mean.VsPlain, r.Mean.VsPlainBound, r.Scheme
		}
		if r.ESS.LinearVsPlain > ess {
			ess, essScheme = r.ESS.LinearVsPlain, r.Scheme
		}
	}
	return
}

// runMixing is section 9: each model of -mixing on the dim's package.
func (b *bench) runMixing() error {
	if len(b.opt.mixing) == 0 {
		return nil
	}
	r := b.rep
	b.printf("\nMixing (issue 10) on %s (device %d): B = %d chains, burn-in to mean error <= %g and covariance error <= %g, at most %d sweeps; ESS on %d chains x %d records\n",
		r.Device, r.Ordinal, b.opt.mixingChains, mixMeanThreshold, mixCovThreshold, b.opt.mixingMaxSweeps, b.opt.mixingESSChains, b.opt.mixingESSRecords)
	for _, name := range b.opt.mixing {
		mm := lookupMixModel(name)
		if err := b.runMixingModel(*mm); err != nil {
			return fmt.Errorf("mixing, %s: %w", name, err)
		}
	}
	return nil
}

func (b *bench) runMixingModel(mm mixModel) error {
	m := mm.build()
	dim := len(m.Mu)
	e, ok := lookupDim(dim)
	if !ok {
		msg := fmt.Sprintf("mixing %s: no package of dim %d in bench/dims.go; skipped", mm.name, dim)
		b.rep.Skipped = append(b.rep.Skipped, msg)
		b.printf("note: %s\n", msg)
		return nil
	}
	s, err := e.newSampler(b.opt.device)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.SetModel(m.Rows(), m.Mu); err != nil {
		return err
	}
	chains, maxSweeps := b.opt.mixingChains, b.opt.mixingMaxSweeps
	sd := startSD(chains)
	start := startState(m, chains, sd)
	an := newStateAnalyzer(m, start)

	// The closed forms, on the host while the GPU measures.
	po := predictOpts{chains: chains, meanThreshold: mixMeanThreshold, covThreshold: mixCovThreshold, maxSweeps: maxSweeps, z: mixBandZ}
	preds := make([]prediction, len(mixSchemes))
	perrs := make([]error, len(mixSchemes))
	var wg sync.WaitGroup
	for i, sc := range mixSchemes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			preds[i], perrs[i] = predict(m, sc, start, po)
		}()
	}
	waited := false
	wait := func() error {
		if !waited {
			wg.Wait()
			waited = true
		}
		return errors.Join(perrs...)
	}
	defer wait()

	essChains, records := b.opt.mixingESSChains, b.opt.mixingESSRecords
	x0ess := gibbstest.ExactDraws[float32](m, essChains, rand.New(rand.NewPCG(uint64(dim), 1010)))
	states := make([]*gibbsrt.DeviceState[float32], 4)
	for i, n := range []int{chains, chains, essChains, essChains} {
		if states[i], err = s.NewDeviceState(n); err != nil {
			return err
		}
		defer states[i].Free()
	}
	x, prev, ex, eprev := states[0], states[1], states[2], states[3]

	var rows []MixingRow
	for i, sc := range mixSchemes {
		if err := s.SetScheme(sc.scheme); err != nil {
			return err
		}
		mx, err := s.Mixing()
		if err != nil {
			return err
		}
		row := MixingRow{Model: mm.name, Description: mm.desc, Dim: dim, Scheme: sc.name, Omega: mx.Omega,
			Chains: chains, StartSD: sd}
		run := &gpuRunner{s: s, x: x, seed: benchSeed + uint64(i)}
		erun := &gpuRunner{s: s, x: ex, seed: benchSeed + 100 + uint64(i)}
		if sc.chebyshev {
			run.prev, erun.prev = prev, eprev
		}
		waitCompiles(s) // the results do not depend on the kernel; this keeps the run on one
		res, err := measureBurnIn(run, an, start, sc.chebyshev, burnInOpts{
			meanThreshold: mixMeanThreshold, covThreshold: mixCovThreshold, maxSweeps: maxSweeps, growth: mixGrowth})
		if err != nil {
			return fmt.Errorf("%s, burn-in: %w", sc.name, err)
		}
		row.Checks, row.SweepsRun = res.checks, res.sweepsRun

		// One sweep's time at B.
		waitCompiles(s)
		row.Strategy = s.Choose(chains, mixTimeSweeps).String()
		from := maxSweeps + 1
		stats, err := b.timeLaunches(func() error {
			err := run.advance(from, mixTimeSweeps)
			from += mixTimeSweeps
			return err
		})
		if err != nil {
			return fmt.Errorf("%s, timing: %w", sc.name, err)
		}
		row.SecPerSweep = stats.MedianMs * 1e-3 / mixTimeSweeps

		if err := wait(); err != nil {
			return err
		}
		p := preds[i]
		if p.omega != mx.Omega {
			b.printf("note: mixing %s, %s: the sampler's omega %v differs from the Reference's %v, which the closed forms use\n", mm.name, sc.name, mx.Omega, p.omega)
		}
		row.Rate, row.MeanFloor, row.CovFloor = p.rate, p.meanFloor, p.covFloor
		row.Mean = burnInOf(mixMeanThreshold, res.mean, row.SecPerSweep, p.mean)
		row.Mean.PredRate = p.rateSweeps
		row.Cov = burnInOf(mixCovThreshold, res.cov, row.SecPerSweep, p.cov)

		// The stationary part.
		q, dirFrom := p, sc.name
		warm := 0
		if sc.chebyshev {
			q, dirFrom = preds[symmetricIndex], mixSchemes[symmetricIndex].name
			warm = max(10, 2*p.rateSweeps)
		}
		thin := essThin(math.Max(q.iatLin, math.Max(q.iatCoord, q.iatSq)), records)
		er, err := measureESS(erun, x0ess, sc.chebyshev, m.Mu, q.dir, warm, records, thin)
		if err != nil {
			return fmt.Errorf("%s, ESS: %w", sc.name, err)
		}
		row.ESS = MixingESSData{Chains: essChains, Records: records, Thin: thin, Warm: warm, LinearDirection: dirFrom,
			IATLinear: er.lin, IATCoord: er.coord, IATSquare: er.square,
			PerSecLinear: perSec(chains, er.lin, row.SecPerSweep), PerSecCoord: perSec(chains, er.coord, row.SecPerSweep),
			PerSecSquare: perSec(chains, er.square, row.SecPerSweep)}
		if !sc.chebyshev {
			row.ESS.IATLinearPred, row.ESS.IATCoordPred, row.ESS.IATSquarePred = p.iatLin, p.iatCoord, p.iatSq
		}
		rows = append(rows, row)
	}
	setRatios(rows, maxSweeps)
	b.rep.Mixing = append(b.rep.Mixing, rows...)
	b.printMixing(mm, rows)
	return nil
}

// waitCompiles waits while the per-model kernel's entry points compile
// (Auto runs a generic strategy meanwhile), for at most a minute.
func waitCompiles(s *gibbsrt.Sampler[float32]) {
	s.WaitSpecialization()
	for t0 := time.Now(); time.Since(t0) < time.Minute; time.Sleep(5 * time.Millisecond) {
		sp := s.Specialization()
		if sp.State != gibbsrt.Compiling && sp.ExtState != gibbsrt.Compiling && sp.TracedState != gibbsrt.Compiling {
			return
		}
	}
}

// burnInOf is a MixingBurnIn before the ratios.
func burnInOf(thr float64, sweeps int, sec float64, c curveCrossing) MixingBurnIn {
	return MixingBurnIn{Threshold: thr, Sweeps: sweeps, Seconds: float64(sweeps) * sec,
		Pred: c.Exact, ExpectLo: c.Lo, ExpectHi: c.Hi, InRange: c.contains(sweeps)}
}

func (b *bench) printMixing(mm mixModel, rows []MixingRow) {
	r0 := rows[0]
	b.printf("\nMixing, %s: %s; B = %d chains, all started at mu + %.3g sd (every coordinate); floors at B: mean %.2g, covariance %.2g\n",
		mm.name, mm.desc, r0.Chains, r0.StartSD, r0.MeanFloor, r0.CovFloor)
	b.printf("burn-in: sweeps until the mean error <= %g and the covariance error <= %g (measured; pred = closed form at B = inf; range = expected at B, +-%g sd); s = sweeps x s/sweep; x plain = plain's / this\n",
		mixMeanThreshold, mixCovThreshold, mixBandZ)
	b.printf("%-10s %7s %9s %9s | %7s %7s %7s %13s %3s %9s %9s %9s | %7s %7s %13s %3s %9s %9s\n",
		"scheme", "omega", "rate", "us/sweep",
		"mean", "pred(r)", "pred", "range", "ok", "x plain", "s", "x plain s",
		"cov", "pred", "range", "ok", "x plain", "s")
	for _, r := range rows {
		b.printf("%-10s %7.4f %9.6f %9.3f | %7s %7s %7s %13s %3s %9s %9.4f %9s | %7s %7s %13s %3s %9s %9.4f\n",
			r.Scheme, r.Omega, r.Rate, r.SecPerSweep*1e6,
			sweepsText(r.Mean.Sweeps, b.opt.mixingMaxSweeps), countText(r.Mean.PredRate), countText(r.Mean.Pred),
			rangeText(r.Mean), okText(r.Mean.InRange), ratioText(r.Mean.VsPlain, r.Mean.VsPlainBound), r.Mean.Seconds,
			ratioText(r.Mean.SecondsVsPlain, r.Mean.VsPlainBound),
			sweepsText(r.Cov.Sweeps, b.opt.mixingMaxSweeps), countText(r.Cov.Pred), rangeText(r.Cov), okText(r.Cov.InRange),
			ratioText(r.Cov.VsPlain, r.Cov.VsPlainBound), r.Cov.Seconds)
	}
	e0 := r0.ESS
	b.printf("stationary, from exact draws: %d chains x %d records; IAT in sweeps (measured / closed form), ESS/s = B / (IAT x s/sweep), x plain = this / plain's\n",
		e0.Chains, e0.Records)
	b.printf("%-10s %5s %6s | %9s %9s %10s %8s | %9s %9s %10s %8s | %9s %9s %10s %8s\n", "scheme", "thin", "warm",
		"lin IAT", "pred", "ESS/s", "x plain", "x_i IAT", "pred", "ESS/s", "x plain", "x_i^2 IAT", "pred", "ESS/s", "x plain")
	for _, r := range rows {
		e := r.ESS
		b.printf("%-10s %5d %6d | %9.2f %9s %10.3e %8s | %9.2f %9s %10.3e %8s | %9.2f %9s %10.3e %8s\n", r.Scheme, e.Thin, e.Warm,
			e.IATLinear, predText(e.IATLinearPred), e.PerSecLinear, xText(e.LinearVsPlain),
			e.IATCoord, predText(e.IATCoordPred), e.PerSecCoord, xText(e.CoordVsPlain),
			e.IATSquare, predText(e.IATSquarePred), e.PerSecSquare, xText(e.SquareVsPlain))
	}
	b.printf("(chebyshev: the linear functional is symmetric's worst direction, after %d unrecorded iterations; no closed-form IAT)\n", rows[len(rows)-1].ESS.Warm)
	if t, ok := mixTargets[mm.name]; ok {
		bi, bound, bis, ess, es := bestVsPlain(rows)
		b.printf("targets (issue 10): burn-in %s%.1fx fewer sweeps than plain (%s), target >= %gx: %s; ESS/s on the worst linear functional %.2fx plain (%s), target >= %gx: %s\n",
			bound, bi, bis, t.burnIn, metText(bi >= t.burnIn && bound != "<"), ess, es, t.ess, metText(ess >= t.ess))
	}
}

func sweepsText(k, maxSweeps int) string {
	if k == 0 {
		return fmt.Sprintf(">%d", maxSweeps)
	}
	return fmt.Sprint(k)
}

func countText(k int) string {
	if k == 0 {
		return "-"
	}
	return fmt.Sprint(k)
}

func rangeText(c MixingBurnIn) string {
	lo, hi := countText(c.ExpectLo), countText(c.ExpectHi)
	if c.ExpectHi == 0 && c.ExpectLo != 0 {
		hi = "cap"
	}
	return lo + ".." + hi
}

func okText(ok bool) string {
	if ok {
		return "ok"
	}
	return "OUT"
}

func ratioText(r float64, bound string) string {
	if bound == "?" {
		return "?"
	}
	return fmt.Sprintf("%s%.2fx", bound, r)
}

func xText(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", v)
}

func predText(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

func metText(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
