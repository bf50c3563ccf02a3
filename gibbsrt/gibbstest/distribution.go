package gibbstest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// familyAlpha is the false-alarm probability of one family of checks (all
// means, all covariances, or all lag covariances of one model). Each entry
// is tested at familyAlpha/entries (Bonferroni), so the bound is
// z·SE with z = Φ⁻¹(1 − familyAlpha/(2·entries)), about 5.6 to 6.4 here.
const familyAlpha = 1e-6

func zBound(entries int) float64 {
	return distuv.UnitNormal.Quantile(1 - familyAlpha/(2*float64(entries)))
}

// TB is the part of testing.TB the checks use, so that tests of the checks
// themselves can record failures instead of failing.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatal(args ...any)
}

// sweepFunc[T] is Sweep of either sampler.
type sweepFunc[T gibbsrt.Float] func(x []T, sweeps int, st gibbsrt.Stream) error

// Distribution runs the closed-form distribution checks on the CPU twin at a
// small size (4000 chains per target up to dim 64; see cpuChains beyond).
func Distribution[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	rng := rand.New(rand.NewPCG(uint64(h.Dim), 2))
	for _, m := range targetsFor(h.Dim, rng) {
		t.Run(m.Name, func(t *testing.T) {
			CheckDistribution(t, m, h.reference(t, m).Sweep, cpuChains(4000, h.Dim, 256), rng)
		})
	}
}

// CheckDistribution starts chains from exact draws of N(mu, Σ), runs the
// sampler, and checks, against bounds derived from the estimators'
// variances:
//   - the mean and covariance after 2 and after 6 sweeps (stationarity);
//   - Cov(x_{t+k}, x_t) = G^k Σ for k = 1 and 4, which a wrong update order
//     or a stale value fails even when the marginal is right.
//
// The means are known (mu), so the estimators are unbiased with exactly
// Var(mean_i) = Σ_ii/B and Var(C_ij) = (Σ_ii Σ_jj + E[C_ij]²)/B.
func CheckDistribution[T gibbsrt.Float](t TB, m Model, sweep sweepFunc[T], chains int, rng *rand.Rand) {
	t.Helper()
	checkDistribution(t, m, sweep, chains, rng, SweepMatrix(m.Q))
}

// checkDistribution is CheckDistribution for a sweep whose mean-error
// operator is g.
func checkDistribution[T gibbsrt.Float](t TB, m Model, sweep sweepFunc[T], chains int, rng *rand.Rand, g *mat.Dense) {
	t.Helper()
	x := ExactDraws[T](m, chains, rng)
	st := gibbsrt.Stream{Seed: rng.Uint64()}
	step := func(n int) {
		t.Helper()
		if err := sweep(x, n, st); err != nil {
			t.Fatal(err)
		}
		st.Sweep += uint64(n)
	}
	step(2)
	checkMoments(t, "after 2 sweeps", m, x, chains)
	xt := append([]T(nil), x...)
	step(1)
	checkLag(t, m, xt, x, chains, 1, g)
	step(3)
	checkLag(t, m, xt, x, chains, 4, g)
	checkMoments(t, "after 6 sweeps", m, x, chains)
}

func checkMoments[T gibbsrt.Float](t TB, when string, m Model, x []T, chains int) {
	t.Helper()
	d := m.Q.SymmetricDim()
	zm := zBound(d)
	for i := 0; i < d; i++ {
		var s float64
		for c := 0; c < chains; c++ {
			s += float64(x[c*d+i]) - m.Mu[i]
		}
		mean := s / float64(chains)
		if se := math.Sqrt(m.Sigma.At(i, i) / float64(chains)); math.Abs(mean) > zm*se {
			t.Errorf("%s %s: mean of x_%d is off mu by %g, over the bound %.2f·SE = %g", m.Name, when, i, mean, zm, zm*se)
		}
	}
	cov := crossCov(m, x, x, chains)
	zc := zBound(d * (d + 1) / 2)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			want := m.Sigma.At(i, j)
			se := math.Sqrt((m.Sigma.At(i, i)*m.Sigma.At(j, j) + want*want) / float64(chains))
			if diff := math.Abs(cov.At(i, j) - want); diff > zc*se {
				t.Errorf("%s %s: Cov(x_%d, x_%d) = %g, want %g (difference %g over the bound %.2f·SE = %g)", m.Name, when, i, j, cov.At(i, j), want, diff, zc, zc*se)
			}
		}
	}
}

func checkLag[T gibbsrt.Float](t TB, m Model, xt, xk []T, chains, k int, g *mat.Dense) {
	t.Helper()
	d := m.Q.SymmetricDim()
	var gk, want mat.Dense
	gk.Pow(g, k)
	want.Mul(&gk, m.Sigma)
	got := crossCov(m, xk, xt, chains)
	z := zBound(d * d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			w := want.At(i, j)
			se := math.Sqrt((m.Sigma.At(i, i)*m.Sigma.At(j, j) + w*w) / float64(chains))
			if diff := math.Abs(got.At(i, j) - w); diff > z*se {
				t.Errorf("%s: lag-%d Cov(x_%d at t+%d, x_%d at t) = %g, want (G^%dΣ) = %g (difference %g over the bound %.2f·SE = %g)", m.Name, k, i, k, j, got.At(i, j), k, w, diff, z, z*se)
			}
		}
	}
}

// crossCov is (1/B) Σ_c (a_c − mu)(b_c − mu)ᵀ, summed in parallel over
// chunks of chains (the GPU suites use a million chains).
func crossCov[T gibbsrt.Float](m Model, a, b []T, chains int) *mat.Dense {
	d := m.Q.SymmetricDim()
	workers := min(runtime.NumCPU(), max(1, chains/1024))
	parts := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := range parts {
		parts[w] = make([]float64, d*d)
		wg.Add(1)
		go func(acc []float64, lo, hi int) {
			defer wg.Done()
			da := make([]float64, d)
			db := make([]float64, d)
			for c := lo; c < hi; c++ {
				for i := 0; i < d; i++ {
					da[i] = float64(a[c*d+i]) - m.Mu[i]
					db[i] = float64(b[c*d+i]) - m.Mu[i]
				}
				for i := 0; i < d; i++ {
					row := acc[i*d : (i+1)*d]
					for j := range row {
						row[j] += da[i] * db[j]
					}
				}
			}
		}(parts[w], w*chains/workers, (w+1)*chains/workers)
	}
	wg.Wait()
	out := mat.NewDense(d, d, nil)
	acc := out.RawMatrix().Data
	for _, p := range parts {
		for k, v := range p {
			acc[k] += v
		}
	}
	out.Scale(1/float64(chains), out)
	return out
}

// String renders a model's name and size, for logs.
func (m Model) String() string { return fmt.Sprintf("%s dim %d", m.Name, m.Q.SymmetricDim()) }
