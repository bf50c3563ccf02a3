package main

import (
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/mixing"
)

// refRunner is a chainRunner on host states, on gibbsrt.Reference: the CPU
// twin of gpuRunner.
type refRunner struct {
	r       *gibbsrt.Reference[float32]
	x, prev []float32 // prev: Chebyshev iterations only
	seed    uint64
}

func newRefRunner(t *testing.T, m gibbstest.Model, sc gibbsrt.Scheme, chains int, cheb bool, seed uint64) *refRunner {
	t.Helper()
	r := gibbsrt.NewReference[float32](len(m.Mu))
	if err := r.SetScheme(sc); err != nil {
		t.Fatal(err)
	}
	if err := r.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	rr := &refRunner{r: r, x: make([]float32, chains*len(m.Mu)), seed: seed}
	if cheb {
		rr.prev = make([]float32, len(rr.x))
	}
	return rr
}

func (r *refRunner) load(x, prev []float32) error {
	copy(r.x, x)
	if r.prev != nil {
		copy(r.prev, prev)
	}
	return nil
}

func (r *refRunner) advance(from, n int) error {
	st := gibbsrt.Stream{Seed: r.seed, Sweep: uint64(from)}
	if r.prev != nil {
		return r.r.SweepChebyshev(r.x, r.prev, from, n, st)
	}
	return r.r.Sweep(r.x, n, st)
}

func (r *refRunner) save(x, prev []float32) error {
	copy(x, r.x)
	if r.prev != nil && prev != nil {
		copy(prev, r.prev)
	}
	return nil
}

// smallAR1 is the tests' model with room to resolve crossings: plain Gibbs
// needs about 150 sweeps to cut its mean error 1000×.
func smallAR1() gibbstest.Model { return gibbstest.AR1(16, 0.9, gibbstest.NonzeroMean(16)) }

func TestMixingNames(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"none", nil, false},
		{"", nil, false},
		{"all", []string{"ar1", "spd", "lattice", "seed"}, false},
		{"seed, ar1,seed", []string{"seed", "ar1"}, false},
		{"ar1,all", []string{"ar1", "spd", "lattice", "seed"}, false},
		{"ar2", nil, true},
	} {
		got, err := mixingNames(c.in)
		if (err != nil) != c.err || !slices.Equal(got, c.want) {
			t.Errorf("mixingNames(%q) = %v, %v; want %v (error %v)", c.in, got, err, c.want, c.err)
		}
	}
	opt, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if opt.mixing != nil || opt.mixingChains != 1048576 || opt.mixingMaxSweeps != 40000 {
		t.Errorf("defaults: mixing %v, chains %d, max sweeps %d", opt.mixing, opt.mixingChains, opt.mixingMaxSweeps)
	}
	if _, err := parseFlags([]string{"-mixing", "lattice,bogus"}, io.Discard); err == nil {
		t.Error("-mixing lattice,bogus: no error")
	}
	if _, err := parseFlags([]string{"-mixing-chains", "1"}, io.Discard); err == nil {
		t.Error("-mixing-chains 1: no error")
	}
}

func TestMixingModels(t *testing.T) {
	// The lattice is the Dirichlet one: 4 + 1e-3 on every diagonal entry.
	m := lookupMixModel("lattice").build()
	if d := len(m.Mu); d != 64 {
		t.Fatalf("lattice dim %d", d)
	}
	for i := 0; i < 64; i++ {
		if m.Q.At(i, i) != 4.001 {
			t.Fatalf("Q[%d][%d] = %v", i, i, m.Q.At(i, i))
		}
		nb := 0
		for j := 0; j < 64; j++ {
			if j != i && m.Q.At(i, j) != 0 {
				if m.Q.At(i, j) != -1 {
					t.Fatalf("Q[%d][%d] = %v", i, j, m.Q.At(i, j))
				}
				nb++
			}
		}
		r, c := i/8, i%8
		want := 4
		if r == 0 || r == 7 {
			want--
		}
		if c == 0 || c == 7 {
			want--
		}
		if nb != want {
			t.Fatalf("node %d has %d neighbours, want %d", i, nb, want)
		}
	}
	var id mat.Dense
	id.Mul(m.Q, m.Sigma)
	for i := 0; i < 64; i++ {
		for j := 0; j < 64; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(id.At(i, j)-want) > 1e-9 {
				t.Fatalf("(QΣ)[%d][%d] = %v", i, j, id.At(i, j))
			}
		}
	}
	for _, mm := range mixModels {
		if got := len(mm.build().Mu); got != 32 && got != 64 {
			t.Errorf("%s: dim %d has no package in bench/dims.go", mm.name, got)
		}
	}
}

// The closed forms against package mixing's own.
func TestMixingClosedForms(t *testing.T) {
	m := smallAR1()
	start := startState(m, 1, 10)
	o := predictOpts{chains: 1 << 20, meanThreshold: 1e-3, covThreshold: 1e-2, maxSweeps: 5000, z: mixBandZ}
	var sym prediction
	for _, sc := range mixSchemes {
		p, err := predict(m, sc, start, o)
		if err != nil {
			t.Fatal(err)
		}
		ref := gibbsrt.NewReference[float32](16)
		if err := ref.SetScheme(sc.scheme); err != nil {
			t.Fatal(err)
		}
		if err := ref.SetModel(m.Rows(), m.Mu); err != nil {
			t.Fatal(err)
		}
		mx, err := ref.Mixing()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: ω %.4f rate %.5f pred(ρ) %d, mean %+v, cov %+v, IAT lin %.2f x_i %.2f x_i² %.2f", sc.name, p.omega, p.rate, p.rateSweeps, p.mean, p.cov, p.iatLin, p.iatCoord, p.iatSq)
		if sc.chebyshev {
			if p.rateSweeps != mx.ChebyshevBurnIn || p.iatLin != 0 || p.dir != nil {
				t.Errorf("%s: pred(ρ) %d, Mixing.ChebyshevBurnIn %d; IAT %v", sc.name, p.rateSweeps, mx.ChebyshevBurnIn, p.iatLin)
			}
			// The recurrence against mixing.Chebyshev.MeanOperators.
			ch, err := ref.Chebyshev()
			if err != nil {
				t.Fatal(err)
			}
			g, err := mixing.Operator(m.Q, p.omega, mixing.Symmetric)
			if err != nil {
				t.Fatal(err)
			}
			e0 := mat.NewVecDense(16, nil)
			for i := range m.Mu {
				e0.SetVec(i, float64(start[i])-m.Mu[i])
			}
			want := 0
			for k, pk := range ch.MeanOperators(g, 200) {
				var e mat.VecDense
				e.MulVec(pk, e0)
				if k > 0 && mat.Norm(&e, 2) <= 1e-3*mat.Norm(e0, 2) {
					want = k
					break
				}
			}
			if p.mean.Exact != want || want == 0 {
				t.Errorf("%s: mean crossing %d, by MeanOperators %d", sc.name, p.mean.Exact, want)
			}
			if p.mean.Exact >= sym.mean.Exact {
				t.Errorf("chebyshev needs %d iterations, symmetric sweeps %d", p.mean.Exact, sym.mean.Exact)
			}
			continue
		}
		if p.omega != mx.Omega || p.rateSweeps != mx.BurnIn {
			t.Errorf("%s: ω %v pred(ρ) %d; Mixing ω %v burn-in %d", sc.name, p.omega, p.rateSweeps, mx.Omega, mx.BurnIn)
		}
		if math.Abs(p.iatLin-mx.IATLinear) > 1e-8*mx.IATLinear || math.Abs(p.iatSq-mx.IATSquares) > 1e-8*mx.IATSquares {
			t.Errorf("%s: IATs %v %v; Mixing's %v %v", sc.name, p.iatLin, p.iatSq, mx.IATLinear, mx.IATSquares)
		}
		// The direction: aᵀΣa = 1, and no coordinate is worse than it.
		a := mat.NewVecDense(16, p.dir)
		if q := mat.Inner(a, m.Sigma, a); math.Abs(q-1) > 1e-9 {
			t.Errorf("%s: aᵀΣa = %v", sc.name, q)
		}
		if p.iatCoord > p.iatLin*(1+1e-9) || p.iatCoord < 1e-3 {
			t.Errorf("%s: coordinate IAT %v, worst linear %v", sc.name, p.iatCoord, p.iatLin)
		}
		// The start excites the slowest mode: this start's crossing is near
		// the rate's (forward SOR at its best ω is defective: k·ρ^k).
		if p.mean.Exact < p.rateSweeps*7/10 || p.mean.Exact > p.rateSweeps*3/2+5 {
			t.Errorf("%s: mean crossing %d, rate's %d", sc.name, p.mean.Exact, p.rateSweeps)
		}
		// At B = 2^20 the floors are far below the thresholds: the range
		// is tight around the exact crossing.
		for _, c := range []curveCrossing{p.mean, p.cov} {
			if c.Lo < 1 || c.Lo > c.Exact || c.Hi < c.Exact || c.Hi > c.Exact+c.Exact/5+3 {
				t.Errorf("%s: range %+v", sc.name, c)
			}
		}
		if sc.name == "symmetric" {
			sym = p
		}
	}
}

// burnInCase runs measureBurnIn on the Reference and returns the result
// with the closed form's.
func burnInCase(t *testing.T, m gibbstest.Model, run mixScheme, pred mixScheme, chains int, covThr float64, maxSweeps int) (burnInResult, prediction) {
	t.Helper()
	start := startState(m, chains, startSD(chains))
	o := predictOpts{chains: chains, meanThreshold: mixMeanThreshold, covThreshold: covThr, maxSweeps: maxSweeps, z: mixBandZ}
	p, err := predict(m, pred, start, o)
	if err != nil {
		t.Fatal(err)
	}
	r := newRefRunner(t, m, run.scheme, chains, run.chebyshev, 0xb0a7)
	res, err := measureBurnIn(r, newStateAnalyzer(m, start), start, run.chebyshev,
		burnInOpts{meanThreshold: mixMeanThreshold, covThreshold: covThr, maxSweeps: maxSweeps, growth: mixGrowth})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s on %s, B = %d: mean %d (pred %d, range %d..%d), cov %d (pred %d, range %d..%d); %d checks, %d sweeps run",
		run.name, m.Name, chains, res.mean, p.mean.Exact, p.mean.Lo, p.mean.Hi, res.cov, p.cov.Exact, p.cov.Lo, p.cov.Hi, res.checks, res.sweepsRun)
	return res, p
}

// The measured crossings lie in the range the closed form expects at the
// batch's size: the seed's model (2 or 3 sweeps), and an AR(1) slow enough
// to resolve them (about 150 plain sweeps).
func TestMixingBurnInOnReference(t *testing.T) {
	cases := []struct {
		m      gibbstest.Model
		chains int
		covThr float64 // above the covariance floor at this B
	}{
		{lookupMixModel("seed").build(), 4096, 0.25},
		{smallAR1(), 2048, 0.15},
	}
	for _, c := range cases {
		for _, sc := range mixSchemes {
			res, p := burnInCase(t, c.m, sc, sc, c.chains, c.covThr, 2000)
			if !p.mean.contains(res.mean) || !p.cov.contains(res.cov) || res.mean == 0 || res.cov == 0 {
				t.Errorf("%s on %s: mean %d, expected %d..%d; cov %d, expected %d..%d", sc.name, c.m.Name, res.mean, p.mean.Lo, p.mean.Hi, res.cov, p.cov.Lo, p.cov.Hi)
			}
		}
	}
}

// measureBurnIn's k is a crossing: error(k−1) > threshold >= error(k), on
// runs from the start in one call each.
func TestMixingBurnInFindsCrossing(t *testing.T) {
	m := smallAR1()
	const chains = 1024
	for _, sc := range []mixScheme{mixSchemes[0], mixSchemes[3]} {
		start := startState(m, chains, startSD(chains))
		an := newStateAnalyzer(m, start)
		r := newRefRunner(t, m, sc.scheme, chains, sc.chebyshev, 7)
		res, err := measureBurnIn(r, an, start, sc.chebyshev, burnInOpts{meanThreshold: 1e-3, covThreshold: 0.2, maxSweeps: 1000, growth: mixGrowth})
		if err != nil {
			t.Fatal(err)
		}
		errAt := func(k int) (float64, float64) {
			if err := r.load(start, start); err != nil {
				t.Fatal(err)
			}
			if err := r.advance(0, k); err != nil {
				t.Fatal(err)
			}
			return an.errors(r.x, true)
		}
		m0, _ := errAt(res.mean - 1)
		m1, _ := errAt(res.mean)
		_, c0 := errAt(res.cov - 1)
		_, c1 := errAt(res.cov)
		if !(m0 > 1e-3 && m1 <= 1e-3 && c0 > 0.2 && c1 <= 0.2) {
			t.Errorf("%s: mean error %g, %g at sweeps %d, %d; cov error %g, %g at %d, %d", sc.name, m0, m1, res.mean-1, res.mean, c0, c1, res.cov-1, res.cov)
		}
	}
}

// The check can fail: chains run at a wrong ω (forward sweeps at 1.5, not
// plain Gibbs) cross far outside the range plain Gibbs's closed form
// expects, and so do plain chains against the closed form of ω = 0.7.
func TestMixingBurnInCheckFails(t *testing.T) {
	m := smallAR1()
	plain := mixSchemes[0]
	wrong := mixScheme{name: "forward(1.5)", scheme: gibbsrt.Scheme{Kind: gibbsrt.Forward, Omega: 1.5}}
	res, p := burnInCase(t, m, wrong, plain, 2048, 0.15, 2000)
	if p.mean.contains(res.mean) || p.cov.contains(res.cov) {
		t.Errorf("ω = 1.5 against plain's closed form: mean %d in %d..%d, cov %d in %d..%d", res.mean, p.mean.Lo, p.mean.Hi, res.cov, p.cov.Lo, p.cov.Hi)
	}
	under := mixScheme{name: "forward(0.7)", scheme: gibbsrt.Scheme{Kind: gibbsrt.Forward, Omega: 0.7}}
	res, p = burnInCase(t, m, plain, under, 2048, 0.15, 2000)
	if p.mean.contains(res.mean) {
		t.Errorf("plain against ω = 0.7's closed form: mean %d in %d..%d", res.mean, p.mean.Lo, p.mean.Hi)
	}
}

// The errors of a start and of exact draws.
func TestMixingStateErrors(t *testing.T) {
	m := lookupMixModel("seed").build() // Σ near 0.5·I: the errors of exact draws concentrate
	const chains = 20000
	start := startState(m, chains, 10)
	an := newStateAnalyzer(m, start)
	me, ce := an.errors(start, true)
	if math.Abs(me-1) > 1e-9 || math.Abs(ce-1) > 1e-9 {
		t.Errorf("start: errors %v, %v; want 1, 1", me, ce)
	}
	p, err := predict(m, mixSchemes[0], start, predictOpts{chains: chains, meanThreshold: 1e-3, covThreshold: 1e-2, maxSweeps: 10, z: mixBandZ})
	if err != nil {
		t.Fatal(err)
	}
	if f := 1 / (10 * math.Sqrt(chains)); math.Abs(p.meanFloor-f) > 1e-6*f {
		t.Errorf("mean floor %g, want 1/(10·√B) = %g", p.meanFloor, f)
	}
	x := gibbstest.ExactDraws[float32](m, chains, rand.New(rand.NewPCG(3, 4)))
	me, ce = an.errors(x, true)
	// With 32 coordinates the mean error's sd is about 1/8 of it, the
	// covariance error's less.
	if math.Abs(me-p.meanFloor) > 0.4*p.meanFloor || math.Abs(ce-p.covFloor) > 0.1*p.covFloor {
		t.Errorf("exact draws: errors %g, %g; floors %g, %g", me, ce, p.meanFloor, p.covFloor)
	}
}

// The measured IATs of the stationary chains against the closed forms.
func TestMixingESSOnReference(t *testing.T) {
	m := gibbstest.AR1(8, 0.8, gibbstest.NonzeroMean(8))
	const chains, records = 256, 500
	x0 := gibbstest.ExactDraws[float32](m, chains, rand.New(rand.NewPCG(5, 6)))
	start := startState(m, 1, 10)
	o := predictOpts{chains: chains, meanThreshold: 1e-3, covThreshold: 1e-2, maxSweeps: 100, z: mixBandZ}
	for _, sc := range mixSchemes[:3] {
		p, err := predict(m, sc, start, o)
		if err != nil {
			t.Fatal(err)
		}
		thin := essThin(math.Max(p.iatLin, math.Max(p.iatCoord, p.iatSq)), records)
		r := newRefRunner(t, m, sc.scheme, chains, false, 99)
		got, err := measureESS(r, x0, false, m.Mu, p.dir, 0, records, thin)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: thin %d; IAT lin %.2f (pred %.2f), x_i %.2f (%.2f), x_i² %.2f (%.2f)", sc.name, thin, got.lin, p.iatLin, got.coord, p.iatCoord, got.square, p.iatSq)
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"linear", got.lin, p.iatLin}, {"x_i", got.coord, p.iatCoord}, {"x_i²", got.square, p.iatSq}} {
			// 256 chains of 50 IATs each: the estimate's sd is about 5%,
			// and the worst over coordinates is biased up a little.
			if c.got < 0.8*c.want || c.got > 1.25*c.want {
				t.Errorf("%s: IAT of %s %.3f, closed form %.3f", sc.name, c.what, c.got, c.want)
			}
		}
	}
	// Chebyshev iterations from exact draws stay exact draws.
	r := newRefRunner(t, m, mixSchemes[3].scheme, chains, true, 98)
	got, err := measureESS(r, x0, true, m.Mu, nil, 20, 50, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !(got.coord > 0 && got.square > 0 && got.lin == 0) {
		t.Errorf("chebyshev: %+v", got)
	}
}

func TestMixingRatios(t *testing.T) {
	for _, c := range []struct {
		plain, scheme int
		want          float64
		bound         string
	}{
		{1000, 10, 100, ""}, {0, 100, 400, ">"}, {100, 0, 100.0 / 40000, "<"}, {0, 0, 0, "?"},
	} {
		r, b := vsPlain(c.plain, c.scheme, 40000)
		if r != c.want || b != c.bound {
			t.Errorf("vsPlain(%d, %d) = %v %q; want %v %q", c.plain, c.scheme, r, b, c.want, c.bound)
		}
	}
	rows := []MixingRow{
		{Scheme: "plain", SecPerSweep: 1e-3, Mean: MixingBurnIn{Sweeps: 0}, Cov: MixingBurnIn{Sweeps: 300},
			ESS: MixingESSData{PerSecLinear: 10, PerSecCoord: 20, PerSecSquare: 30}},
		{Scheme: "forward", SecPerSweep: 1e-3, Mean: MixingBurnIn{Sweeps: 400}, Cov: MixingBurnIn{Sweeps: 30},
			ESS: MixingESSData{PerSecLinear: 200, PerSecCoord: 20, PerSecSquare: 15}},
		{Scheme: "symmetric", SecPerSweep: 2e-3, Mean: MixingBurnIn{Sweeps: 100}, Cov: MixingBurnIn{Sweeps: 0},
			ESS: MixingESSData{PerSecLinear: 100}},
	}
	setRatios(rows, 40000)
	if r := rows[1].Mean; r.VsPlain != 100 || r.VsPlainBound != ">" || r.SecondsVsPlain != 100 {
		t.Errorf("forward mean: %+v", r)
	}
	if r := rows[2].Mean; r.VsPlain != 400 || r.SecondsVsPlain != 200 {
		t.Errorf("symmetric mean: %+v", r)
	}
	if r := rows[2].Cov; r.VsPlainBound != "<" || r.VsPlain != 300.0/40000 {
		t.Errorf("symmetric cov: %+v", r)
	}
	if e := rows[1].ESS; e.LinearVsPlain != 20 || e.CoordVsPlain != 1 || e.SquareVsPlain != 0.5 {
		t.Errorf("forward ESS: %+v", e)
	}
	if e := rows[2].ESS; e.CoordVsPlain != 0 {
		t.Errorf("symmetric ESS with no coordinate figure: %+v", e)
	}
	// The table prints, and the rows encode as JSON (no NaN).
	var out strings.Builder
	b := &bench{opt: options{mixingMaxSweeps: 40000}, out: &out, rep: &Report{}}
	rows = append(rows, MixingRow{Scheme: "chebyshev", SecPerSweep: 2e-3, Mean: MixingBurnIn{Sweeps: 50}, Cov: MixingBurnIn{Sweeps: 20}})
	setRatios(rows, 40000)
	b.printMixing(*lookupMixModel("ar1"), rows)
	for _, want := range []string{">40000", ">100.00x", "<0.01x", "targets (issue 10): burn-in >800.0x fewer sweeps than plain (chebyshev), target >= 80x: met", "ESS/s on the worst linear functional 20.00x plain (forward), target >= 15x: met"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := json.Marshal(rows); err != nil {
		t.Error(err)
	}
	rows = rows[:3]
	bi, bound, bis, ess, es := bestVsPlain(rows)
	if bi != 400 || bound != ">" || bis != "symmetric" || ess != 20 || es != "forward" {
		t.Errorf("bestVsPlain = %v %q %s %v %s", bi, bound, bis, ess, es)
	}
	for _, c := range []struct {
		c    curveCrossing
		k    int
		want bool
	}{
		{curveCrossing{Exact: 10, Lo: 9, Hi: 12}, 9, true},
		{curveCrossing{Exact: 10, Lo: 9, Hi: 12}, 13, false},
		{curveCrossing{Exact: 10, Lo: 9, Hi: 12}, 0, false},
		{curveCrossing{Exact: 10, Lo: 9}, 0, true},
		{curveCrossing{Exact: 10, Lo: 9}, 500, true},
		{curveCrossing{}, 0, true},
		{curveCrossing{}, 5, false},
	} {
		if got := c.c.contains(c.k); got != c.want {
			t.Errorf("%+v contains %d = %v", c.c, c.k, got)
		}
	}
	if th := essThin(5141, 2000); th != 129 {
		t.Errorf("essThin(5141, 2000) = %d", th)
	}
	if th := essThin(1e6, 2000); th != essMaxSweeps/2000 {
		t.Errorf("essThin(1e6, 2000) = %d", th)
	}
}
