package gibbstest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/mixing"
)

// Over-relaxed, backward and symmetric sweeps, and Chebyshev acceleration.

// Schemes are the schemes the suites check besides plain Gibbs: forward
// sweeps at ω 0.5, 1.5 and 1.9, a backward sweep, symmetric sweeps at ω 1
// and 1.3.
var Schemes = []gibbsrt.Scheme{
	{Kind: gibbsrt.Forward, Omega: 0.5},
	{Kind: gibbsrt.Forward, Omega: 1.5},
	{Kind: gibbsrt.Forward, Omega: 1.9},
	{Kind: gibbsrt.Backward, Omega: 1.5},
	{Kind: gibbsrt.Symmetric, Omega: 1},
	{Kind: gibbsrt.Symmetric, Omega: 1.3},
}

// SchemeOperator returns the mean-error operator of one sweep of kind k at
// ω on m: Cov(x_{t+k}, x_t) = G^k Σ in the stationary chain.
func SchemeOperator(m Model, k gibbsrt.SweepKind, omega float64) *mat.Dense {
	g, err := mixing.Operator(m.Q, omega, k) // gibbsrt.SweepKind is mixing.Sweep
	if err != nil {
		panic(err)
	}
	return g
}

// schemeTargets are the models the scheme checks run on: a strongly
// correlated chain and an ill-conditioned dense model, where over-relaxed
// sweeps differ most from plain ones (beyond largeDim, the chain alone).
func schemeTargets(dim int, rng *rand.Rand) []Model {
	mu := NonzeroMean(dim)
	if dim > largeDim {
		return []Model{AR1(dim, 0.95, mu)}
	}
	return []Model{AR1(dim, 0.95, mu), RandomSPD(dim, 1e4, rng, mu)}
}

// schemesFor is Schemes, or beyond largeDim the extremes of them: a
// strongly over-relaxed forward sweep and an over-relaxed symmetric one.
func schemesFor(dim int) []gibbsrt.Scheme {
	if dim > largeDim {
		return []gibbsrt.Scheme{Schemes[2], Schemes[5]}
	}
	return Schemes
}

// Relaxed runs the closed-form checks of the schemes on the CPU twin at
// 4000 chains: exact draws stay exact (mean and covariance after 2 and 6
// sweeps) and the lag-1 and lag-4 covariances are G_ω^k Σ; and Chebyshev
// iterates from a fixed start have the mean and covariance of the closed
// form.
func Relaxed[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	rng := rand.New(rand.NewPCG(uint64(h.Dim), 11))
	chains := cpuChains(4000, h.Dim, 256)
	for _, m := range schemeTargets(h.Dim, rng) {
		for _, sc := range schemesFor(h.Dim) {
			t.Run(fmt.Sprintf("%s/%v ω=%v", m.Name, sc.Kind, sc.Omega), func(t *testing.T) {
				r := h.NewReference()
				if err := r.SetScheme(sc); err != nil {
					t.Fatal(err)
				}
				if err := r.SetModel(m.Rows(), m.Mu); err != nil {
					t.Fatal(err)
				}
				CheckSchemeDistribution(t, m, r.Sweep, chains, rng, SchemeOperator(m, sc.Kind, sc.Omega))
			})
		}
		t.Run(m.Name+"/Chebyshev", func(t *testing.T) {
			r := h.NewReference()
			if err := r.SetScheme(gibbsrt.Scheme{Kind: gibbsrt.Symmetric, Omega: 1.2}); err != nil {
				t.Fatal(err)
			}
			if err := r.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
			CheckChebyshev(t, m, r.SweepChebyshev, chains, rng, 1.2)
		})
	}
}

// CheckSchemeDistribution is CheckDistribution with the sweep's operator g.
func CheckSchemeDistribution[T gibbsrt.Float](t TB, m Model, sweep sweepFunc[T], chains int, rng *rand.Rand, g *mat.Dense) {
	t.Helper()
	checkDistribution(t, m, sweep, chains, rng, g)
}

// CheckChebyshev starts every chain at the same point x0 = mu + 2σ, runs
// Chebyshev iterations 1, 2 and 4 (the iterates are then far from the
// target, so a wrong noise factor shows), and checks the mean mu +
// P_k(x0 − mu) and the covariance Σ − P_kΣP_kᵀ of the closed form
// (mixing.Chebyshev) against bounds from the estimators' variances.
func CheckChebyshev[T gibbsrt.Float](t TB, m Model, sweep func(x, prev []T, first, n int, st gibbsrt.Stream) error, chains int, rng *rand.Rand, omega float64) {
	t.Helper()
	d := m.Q.SymmetricDim()
	lmin, _, err := mixing.SSORSpectrum(m.Q, omega)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := mixing.NewChebyshev(omega, gibbsrt.ChebyshevMargin*lmin, 1)
	if err != nil {
		t.Fatal(err)
	}
	ps := ch.MeanOperators(SchemeOperator(m, gibbsrt.Symmetric, omega), 4)
	x0 := make([]float64, d)
	for i := range x0 {
		x0[i] = m.Mu[i] + 2*math.Sqrt(m.Sigma.At(i, i))
	}
	x := make([]T, chains*d)
	for c := 0; c < chains; c++ {
		for i := 0; i < d; i++ {
			x[c*d+i] = T(x0[i])
		}
	}
	prev := append([]T(nil), x...)
	st := gibbsrt.Stream{Seed: rng.Uint64()}
	done := 0
	for _, k := range []int{1, 2, 4} {
		if err := sweep(x, prev, done, k-done, st); err != nil {
			t.Fatal(err)
		}
		st.Sweep += uint64(k - done)
		done = k
		// The closed form of iterate k: mean and covariance.
		e0 := mat.NewVecDense(d, nil)
		for i := 0; i < d; i++ {
			e0.SetVec(i, x0[i]-m.Mu[i])
		}
		var mean mat.VecDense
		mean.MulVec(ps[k], e0)
		var a, psp mat.Dense
		a.Mul(ps[k], m.Sigma)
		psp.Mul(&a, ps[k].T())
		want := mat.NewDense(d, d, nil)
		want.Sub(m.Sigma, &psp)
		checkIterate(t, fmt.Sprintf("%s Chebyshev iterate %d", m.Name, k), m, x, chains, mean.RawVector().Data, want)
	}
}

// checkIterate compares the sample mean and covariance of x with the
// mean offset mean (from mu) and covariance want, each entry within
// zBound standard errors of the estimators (Gaussian iterates), plus
// 1e-5σ (means) and 1e-4σσ (covariances) for the float32 rounding of
// states near x0 = mu + 2σ, where the covariance of an early iterate can
// be close to 0 in some entries.
func checkIterate[T gibbsrt.Float](t TB, what string, m Model, x []T, chains int, mean []float64, want *mat.Dense) {
	t.Helper()
	d := m.Q.SymmetricDim()
	sm := make([]float64, d)
	for c := 0; c < chains; c++ {
		for i := 0; i < d; i++ {
			sm[i] += float64(x[c*d+i]) - m.Mu[i]
		}
	}
	zm := zBound(d)
	for i := 0; i < d; i++ {
		sm[i] /= float64(chains)
		se := math.Sqrt(math.Max(want.At(i, i), 0) / float64(chains))
		if diff := math.Abs(sm[i] - mean[i]); diff > zm*se+1e-5*math.Sqrt(m.Sigma.At(i, i)) {
			t.Errorf("%s: mean of x_%d − mu_%d is %g, the closed form %g (difference %g over the bound %.2f·SE = %g)", what, i, i, sm[i], mean[i], diff, zm, zm*se)
		}
	}
	cov := mat.NewDense(d, d, nil)
	for c := 0; c < chains; c++ {
		for i := 0; i < d; i++ {
			di := float64(x[c*d+i]) - m.Mu[i] - sm[i]
			for j := 0; j <= i; j++ {
				cov.Set(i, j, cov.At(i, j)+di*(float64(x[c*d+j])-m.Mu[j]-sm[j]))
			}
		}
	}
	zc := zBound(d * (d + 1) / 2)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			got := cov.At(i, j) / float64(chains-1)
			w := want.At(i, j)
			se := math.Sqrt((math.Max(want.At(i, i), 0)*math.Max(want.At(j, j), 0) + w*w) / float64(chains))
			if diff := math.Abs(got - w); diff > zc*se+1e-4*math.Sqrt(m.Sigma.At(i, i)*m.Sigma.At(j, j)) {
				t.Errorf("%s: Cov(x_%d, x_%d) = %g, the closed form %g (difference %g over the bound %.2f·SE = %g)", what, i, j, got, w, diff, zc, zc*se)
			}
		}
	}
}

// GPURelaxed checks the schemes on the GPU against the CPU twin, bit for
// bit, for every strategy the package holds: sweeps of each scheme (and of
// a symmetric one whose ω SetModel chooses) at several batch sizes and
// sweep counts, a traced symmetric call, and Chebyshev iterations (states
// and previous iterates); that both choose the same ω; and Run with
// automatic burn-in (gpuRunBurnin).
func GPURelaxed[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	g := OpenGPU(t, h)
	d := h.Dim
	rng := rand.New(rand.NewPCG(uint64(d), 13))
	m := RandomSPD(d, 100, rng, NonzeroMean(d))
	st := gibbsrt.Stream{Seed: 0x0f1e2d3c4b5a6978, Sweep: 1<<40 + 3, Chain: 1<<33 + 9}
	schemes := append(append([]gibbsrt.Scheme(nil), schemesFor(d)...), gibbsrt.Scheme{Kind: gibbsrt.Symmetric})
	for _, sc := range schemes {
		ref := h.NewReference()
		for _, s := range []interface{ SetScheme(gibbsrt.Scheme) error }{ref, g} {
			if err := s.SetScheme(sc); err != nil {
				t.Fatal(err)
			}
		}
		if err := ref.SetModel(m.Rows(), m.Mu); err != nil {
			t.Fatal(err)
		}
		if err := g.SetModel(m.Rows(), m.Mu); err != nil {
			t.Fatal(err)
		}
		gm, err1 := g.Mixing()
		cm, err2 := ref.Mixing()
		if err1 != nil || err2 != nil || gm.Omega != cm.Omega {
			t.Fatalf("%v: ω %v on the GPU sampler (%v), %v on the twin (%v)", sc, gm.Omega, err1, cm.Omega, err2)
		}
		for _, s := range strategies(g) {
			// The per-model kernel both ways: each pass's normals drawn
			// inside it and before it (stagedNormals' choice is by model).
			placements := []*bool{nil}
			if s == gibbsrt.Specialized {
				no, yes := false, true
				placements = []*bool{&no, &yes}
			}
			for _, staged := range placements {
				name := fmt.Sprintf("%v ω=%.4g/%v", sc.Kind, gm.Omega, s)
				if staged != nil {
					name += fmt.Sprintf("/staged=%v", *staged)
				}
				t.Run(name, func(t *testing.T) {
					if staged != nil {
						hooks(g).SetStagedNormals(staged)
						defer hooks(g).SetStagedNormals(nil)
						if err := g.SetModel(m.Rows(), m.Mu); err != nil {
							t.Fatal(err)
						}
					}
					if err := g.SetStrategy(s); err != nil {
						t.Fatal(err)
					}
					if staged != nil {
						if sp := g.Specialization(); sp.StagedNormals != *staged {
							t.Fatalf("the per-model kernel draws its normals staged=%v, want %v", sp.StagedNormals, *staged)
						}
					}
					batches := []int{1, 129, 1000, 4097}
					if d > largeDim {
						batches = twinBatches(d)
					}
					for _, chains := range batches {
						for _, sweeps := range []int{1, 3} {
							requireSameSweeps(t, fmt.Sprintf("B=%d sweeps=%d, GPU vs CPU", chains, sweeps), g.Sweep, ref,
								randomState[T](rng, chains, d), sweeps, st, d)
						}
					}
					if sc.Kind == gibbsrt.Symmetric {
						const chains, sweeps = 300, 7
						tr := gibbsrt.Trace{Thin: 2, FirstChain: 11, Chains: 250}
						n := gibbsrt.Records(tr.Thin, st.Sweep, sweeps)
						x0 := randomState[T](rng, chains, d)
						want, wantOut := append([]T(nil), x0...), make([]T, n*250*d)
						if _, err := ref.SweepTrace(want, sweeps, st, tr, wantOut); err != nil {
							t.Fatal(err)
						}
						got, gotOut := append([]T(nil), x0...), make([]T, len(wantOut))
						if k, err := g.SweepTrace(got, sweeps, st, tr, gotOut); err != nil || k != n {
							t.Fatalf("SweepTrace: %d records, %v; want %d", k, err, n)
						}
						requireEqual(t, "traced records, GPU vs CPU", gotOut, wantOut, d)
						requireEqual(t, "final state of a traced call, GPU vs CPU", got, want, d)

						x0 = randomState[T](rng, 1000, d)
						p0 := randomState[T](rng, 1000, d)
						wx, wp := append([]T(nil), x0...), append([]T(nil), p0...)
						if err := ref.SweepChebyshev(wx, wp, 3, 5, st); err != nil {
							t.Fatal(err)
						}
						// Both places a strategy may keep its iterates in:
						// shared memory where the device allows it, then x and
						// prev.
						dev := hooks(g)
						for _, rows := range []bool{false, true} {
							dev.SetChebyshevInRows(rows)
							gx, gp := append([]T(nil), x0...), append([]T(nil), p0...)
							if err := g.SweepChebyshev(gx, gp, 3, 5, st); err != nil {
								t.Fatal(err)
							}
							where := fmt.Sprintf("iterates in %d bytes of shared memory", dev.LastChebyshevShared())
							if dev.LastChebyshevShared() == 0 {
								where = "iterates in x and prev"
							}
							t.Log("Chebyshev:", where)
							requireEqual(t, "Chebyshev iterates, GPU vs CPU, "+where, gx, wx, d)
							requireEqual(t, "Chebyshev previous iterates, GPU vs CPU, "+where, gp, wp, d)
						}
						dev.SetChebyshevInRows(false)
					}
				})
			}
		}
	}
	t.Run("RunBurnin", func(t *testing.T) { gpuRunBurnin(t, h, g) })
	if err := g.SetScheme(gibbsrt.Plain); err != nil {
		t.Fatal(err)
	}
	if err := g.SetStrategy(gibbsrt.Auto); err != nil {
		t.Fatal(err)
	}
}

// GPURelaxedDistribution runs Relaxed's closed-form checks on the GPU at a
// million chains: each scheme on each scheme target, and the Chebyshev
// iterates.
func GPURelaxedDistribution[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	g := OpenGPU(t, h)
	rng := rand.New(rand.NewPCG(uint64(h.Dim), 17))
	chains := gpuDistChains(h.Dim)
	for _, m := range schemeTargets(h.Dim, rng) {
		for _, sc := range schemesFor(h.Dim) {
			t.Run(fmt.Sprintf("%s/%v ω=%v", m.Name, sc.Kind, sc.Omega), func(t *testing.T) {
				if err := g.SetScheme(sc); err != nil {
					t.Fatal(err)
				}
				if err := g.SetModel(m.Rows(), m.Mu); err != nil {
					t.Fatal(err)
				}
				CheckSchemeDistribution(t, m, g.Sweep, chains, rng, SchemeOperator(m, sc.Kind, sc.Omega))
			})
		}
		t.Run(m.Name+"/Chebyshev", func(t *testing.T) {
			if err := g.SetScheme(gibbsrt.Scheme{Kind: gibbsrt.Symmetric, Omega: 1.2}); err != nil {
				t.Fatal(err)
			}
			if err := g.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
			CheckChebyshev(t, m, g.SweepChebyshev, chains, rng, 1.2)
		})
	}
	if err := g.SetScheme(gibbsrt.Plain); err != nil {
		t.Fatal(err)
	}
}
