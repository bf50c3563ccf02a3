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
	essRelaxations   = 20   // and at least this many relaxation times 1/(1 − rate)
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
	// The curves of -plot: the error at the search's checks, and the
	// closed form with its expected range.
	Measured []CurvePoint `json:"measured,omitempty"`
	Closed   []BandPoint  `json:"closed_form,omitempty"`
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
	// The linear functional's IAT for the trace's run of Records·Thin
	// sweeps from the variance of the chains' run means over every sweep
	// (runIAT; the closed form mixing.IATRun; both 0 for chebyshev), and its
	// effective samples per second. Geyer's estimate above assumes a
	// reversible chain and is biased for one that rotates, as forward
	// sweeps at TuneSampling's ω do; this one is not, and issue 20's
	// targets use it.
	IATLinearRun     float64 `json:"iat_linear_run"`
	IATLinearRunPred float64 `json:"iat_linear_run_pred"`
	PerSecLinearRun  float64 `json:"ess_per_sec_linear_run"`
	LinearRunVsPlain float64 `json:"linear_run_vs_plain"`
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

// mixTargets are the targets at ≥ 1M chains: the best scheme's burn-in
// sweeps (of the mean; issue 10) and ESS/s on the worst linear functional
// (issue 20, which raised issue 10's), as multiples of plain's.
var mixTargets = map[string]struct{ burnIn, ess float64 }{
	"ar1":  {80, 45},
	"spd":  {15, 15},
	"seed": {1, 0.95},
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
	// Forward sweeps at the ω for sampling (issue 20): the fastest effective
	// samples of the worst linear functional per second, not burn-in.
	{"sampling", gibbsrt.Scheme{Kind: gibbsrt.Forward, Tune: gibbsrt.TuneSampling}, false},
}

// symmetricIndex and chebyshevIndex are the indices of the symmetric and
// chebyshev schemes in mixSchemes: symmetric's closed-form IATs and worst
// direction stand in for chebyshev's.
const symmetricIndex, chebyshevIndex = 2, 3

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
	// The errors at the checks (not the bisection's); the covariance's
	// until it crossed.
	meanCurve, covCurve []CurvePoint
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
		res.meanCurve = measured(res.meanCurve, k, me)
		if res.cov == 0 {
			res.covCurve = measured(res.covCurve, k, ce)
		}
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

// prediction is what the closed forms say of one scheme on one model.
type prediction struct {
	omega, rate float64
	rateSweeps  int // least k with rate^k ≤ mean threshold (Chebyshev: its bound)
	mean, cov   mixing.Crossing
	meanFloor   float64
	covFloor    float64
	// The IATs in sweeps, 0 for Chebyshev iterations: of the worst linear
	// functional (dir, normalized to dirᵀΣdir = 1), the worst coordinate
	// and the worst centred square.
	iatLin, iatCoord, iatSq float64
	dir                     []float64
	g                       *mat.Dense // the sweep's operator (symmetric's for chebyshev)
}

// predict computes the closed forms of scheme sc on m for chains started
// at start (its first chain is the point), in float64. ω, the rate and the
// Chebyshev schedule come from gibbsrt.Reference, which shares the
// sampler's code that chooses them.
func predict(m gibbstest.Model, sc mixScheme, start []float32, o mixing.CurveOptions) (prediction, error) {
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
	p.g = g
	var cheb *mixing.Chebyshev
	if sc.chebyshev {
		ch, err := ref.Chebyshev()
		if err != nil {
			return p, err
		}
		cheb = &ch
		p.rate = ch.Rate()
		if p.rate < 1-1e-4 { // else Iterations would take long to say it is beyond the cap
			p.rateSweeps = ch.Iterations(o.MeanThreshold)
		}
	} else {
		p.rate = mx.Rate
		p.rateSweeps = mixing.Sweeps(p.rate, o.MeanThreshold)
	}
	if p.rateSweeps > o.MaxSweeps {
		p.rateSweeps = 0
	}
	e0 := make([]float64, d)
	for i := range e0 {
		e0[i] = float64(start[i]) - m.Mu[i]
	}
	if p.mean, p.cov, err = mixing.BurnInCrossings(g, cheb, m.Sigma, e0, o); err != nil {
		return p, err
	}
	p.meanFloor, p.covFloor = mixing.ErrorFloors(m.Sigma, e0, o.Chains)
	if !sc.chebyshev && p.rate < 1 {
		if p.iatLin, p.dir, err = mixing.WorstLinear(g, m.Sigma); err != nil {
			return p, err
		}
		c, err := mixing.IATCoordinates(g, m.Sigma)
		if err != nil {
			return p, err
		}
		p.iatCoord = slices.Max(c)
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

// essThin is the thinning of an ESS trace of records records for a
// predicted IAT and a rate per sweep: the trace spans essIATs IATs and
// essRelaxations relaxation times 1/(1 − rate), within essMaxSweeps. The
// second binds only for a chain that rotates rather than mixes (IAT far
// below the relaxation time, as at TuneSampling's ω): its IAT describes
// only runs many relaxation times long (mixing.IATLinearRun), and a
// shorter trace would measure something else.
func essThin(iat, rate float64, records int) int {
	span := essIATs * iat
	if rate < 1 {
		span = math.Max(span, essRelaxations/(1-rate))
	}
	t := int(math.Ceil(span / float64(records)))
	return max(1, min(t, essMaxSweeps/records))
}

// essResult is the measured IATs, in sweeps: Geyer's (mcstat.EffectiveSize)
// of the linear functional, and the worst over the coordinates and over
// the squares; and run, the linear functional's from the variance of the
// chains' run means (runIAT).
type essResult struct{ lin, coord, square, run float64 }

// runIAT is n·Var(the chains' means over n sweeps) of a functional of
// variance 1, from the chains' sums over those sweeps: the IAT of a run of
// n sweeps (mixing.IATRun), measured on independent chains started from
// exact draws. Unlike Geyer's estimate it assumes nothing of the chain, so
// it holds for one that rotates (TuneSampling's ω); with C chains its
// relative sd is sqrt(2/(C−1)).
func runIAT(sums []float64, n int) float64 {
	c := float64(len(sums))
	m := 0.0
	for _, s := range sums {
		m += s / float64(n)
	}
	m /= c
	v := 0.0
	for _, s := range sums {
		e := s/float64(n) - m
		v += e * e
	}
	return float64(n) * v / (c - 1)
}

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
	// With dir set, every sweep's state is read for the chains' run means
	// of dirᵀ(x − mu); otherwise only the records. Not for Chebyshev
	// iterations: a call computes its schedule from iteration 0, so a call
	// per iteration would cost O(k²) on the host.
	var sums []float64
	step := thin
	if dir != nil && !cheb {
		sums, step = make([]float64, chains), 1
	}
	state := make([]float32, n)
	for i := 0; i < records; i++ {
		for j := 0; j < thin; j += step {
			if err := r.advance(k, step); err != nil {
				return essResult{}, err
			}
			k += step
			if err := r.save(state, nil); err != nil {
				return essResult{}, err
			}
			for c := range sums {
				row := state[c*d : (c+1)*d]
				for q, a := range dir {
					sums[c] += a * (float64(row[q]) - mu[q])
				}
			}
		}
		copy(rec[i*n:(i+1)*n], state)
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
		if sums != nil {
			res.run = runIAT(sums, records*thin)
		}
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
		e.LinearRunVsPlain = ratioOf(e.PerSecLinearRun, p.ESS.PerSecLinearRun)
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
// ESS/s ratios to plain (from the chains' run means), with the schemes'.
func bestVsPlain(rows []MixingRow) (burnIn float64, burnInBound, burnInScheme string, ess float64, essScheme string) {
	for _, r := range rows[1:] {
		if r.Mean.VsPlainBound != "?" && r.Mean.VsPlain > burnIn {
			burnIn, burnInBound, burnInScheme = r.Mean.VsPlain, r.Mean.VsPlainBound, r.Scheme
		}
		if r.ESS.LinearRunVsPlain > ess {
			ess, essScheme = r.ESS.LinearRunVsPlain, r.Scheme
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
	po := mixing.CurveOptions{Chains: chains, MeanThreshold: mixMeanThreshold, CovThreshold: mixCovThreshold, MaxSweeps: maxSweeps, Z: mixBandZ}
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
		row.Mean.Measured, row.Cov.Measured = res.meanCurve, res.covCurve

		// The stationary part.
		q, dirFrom := p, sc.name
		warm := 0
		if sc.chebyshev {
			q, dirFrom = preds[symmetricIndex], mixSchemes[symmetricIndex].name
			warm = max(10, 2*p.rateSweeps)
		}
		thin := essThin(math.Max(q.iatLin, math.Max(q.iatCoord, q.iatSq)), q.rate, records)
		er, err := measureESS(erun, x0ess, sc.chebyshev, m.Mu, q.dir, warm, records, thin)
		if err != nil {
			return fmt.Errorf("%s, ESS: %w", sc.name, err)
		}
		row.ESS = MixingESSData{Chains: essChains, Records: records, Thin: thin, Warm: warm, LinearDirection: dirFrom,
			IATLinear: er.lin, IATCoord: er.coord, IATSquare: er.square,
			PerSecLinear: perSec(chains, er.lin, row.SecPerSweep), PerSecCoord: perSec(chains, er.coord, row.SecPerSweep),
			PerSecSquare: perSec(chains, er.square, row.SecPerSweep)}
		row.ESS.IATLinearRun, row.ESS.PerSecLinearRun = er.run, perSec(chains, er.run, row.SecPerSweep)
		if !sc.chebyshev {
			row.ESS.IATLinearPred, row.ESS.IATCoordPred, row.ESS.IATSquarePred = p.iatLin, p.iatCoord, p.iatSq
			if p.dir != nil {
				if row.ESS.IATLinearRunPred, err = mixing.IATRun(p.g, m.Sigma, p.dir, records*thin); err != nil {
					return fmt.Errorf("%s, run IAT: %w", sc.name, err)
				}
			}
		}
		rows = append(rows, row)
	}
	setRatios(rows, maxSweeps)
	b.rep.Mixing = append(b.rep.Mixing, rows...)
	b.printMixing(mm, rows)
	if mm.name == "ar1" { // issue 20's target
		return b.runAutoBurnin(s, mm, x, start, an, rows)
	}
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
func burnInOf(thr float64, sweeps int, sec float64, c mixing.Crossing) MixingBurnIn {
	return MixingBurnIn{Threshold: thr, Sweeps: sweeps, Seconds: float64(sweeps) * sec,
		Pred: c.Exact, ExpectLo: c.Lo, ExpectHi: c.Hi, InRange: c.Contains(sweeps), Closed: c.Curve}
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
	b.printf("%-10s %5s %6s | %9s %9s %10s %8s | %9s %9s %10s %8s | %9s %9s %10s %8s | %9s %9s %10s %8s\n", "scheme", "thin", "warm",
		"lin IAT", "pred", "ESS/s", "x plain", "x_i IAT", "pred", "ESS/s", "x plain", "x_i^2 IAT", "pred", "ESS/s", "x plain",
		"run IAT", "pred", "ESS/s", "x plain")
	for _, r := range rows {
		e := r.ESS
		b.printf("%-10s %5d %6d | %9.2f %9s %10.3e %8s | %9.2f %9s %10.3e %8s | %9.2f %9s %10.3e %8s | %9.2f %9s %10.3e %8s\n", r.Scheme, e.Thin, e.Warm,
			e.IATLinear, predText(e.IATLinearPred), e.PerSecLinear, xText(e.LinearVsPlain),
			e.IATCoord, predText(e.IATCoordPred), e.PerSecCoord, xText(e.CoordVsPlain),
			e.IATSquare, predText(e.IATSquarePred), e.PerSecSquare, xText(e.SquareVsPlain),
			e.IATLinearRun, predText(e.IATLinearRunPred), e.PerSecLinearRun, xText(e.LinearRunVsPlain))
	}
	b.printf("(run IAT: the linear functional's, for the trace's run of thin x %d sweeps, from the variance of the %d chains' run means over every sweep; closed form mixing.IATRun. Geyer's lin IAT assumes a reversible chain and is biased for one that rotates, as at sampling's omega)\n",
		e0.Records, e0.Chains)
	b.printf("(chebyshev: the linear functional is symmetric's worst direction, after %d unrecorded iterations; no closed-form IAT, no run IAT)\n", rows[chebyshevIndex].ESS.Warm)
	if t, ok := mixTargets[mm.name]; ok {
		bi, bound, bis, ess, es := bestVsPlain(rows)
		b.printf("targets (issues 10, 20): burn-in %s%.1fx fewer sweeps than plain (%s), target >= %gx: %s; ESS/s on the worst linear functional (run IAT) %.2fx plain (%s), target >= %gx: %s\n",
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
