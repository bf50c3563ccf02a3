package mcstat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// ar1 returns m chains of n draws of the stationary AR(1) process
// x' = φx + √(1−φ²)ε, whose variance is 1 and whose integrated
// autocorrelation time is (1+φ)/(1−φ).
func ar1(rng *rand.Rand, m, n int, phi float64) [][]float64 {
	s := math.Sqrt(1 - phi*phi)
	out := make([][]float64, m)
	for c := range out {
		x := rng.NormFloat64()
		out[c] = make([]float64, n)
		for t := range out[c] {
			out[c][t] = x
			x = phi*x + s*rng.NormFloat64()
		}
	}
	return out
}

func TestAutocovarianceMatchesDirectSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 64, 100} {
		y := make([]float64, n)
		for i := range y {
			y[i] = rng.NormFloat64() + 3
		}
		got := autocovariance(y)
		mean := 0.0
		for _, v := range y {
			mean += v
		}
		mean /= float64(n)
		for lag := 0; lag < n; lag++ {
			want := 0.0
			for i := 0; i+lag < n; i++ {
				want += (y[i] - mean) * (y[i+lag] - mean)
			}
			want /= float64(n)
			if math.Abs(got[lag]-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("n=%d lag %d: FFT %v, direct %v", n, lag, got[lag], want)
			}
		}
	}
}

// TestEffectiveSizeAR1 checks τ̂ against the closed form (1+φ)/(1−φ).
// The bound is 5 standard deviations of Sokal's variance of a windowed
// estimate, Var(τ̂)/τ² ≈ 2(2L+1)/(M·N), L the estimator's own window.
func TestEffectiveSizeAR1(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const m, n = 4, 50000
	for _, phi := range []float64{0, 0.5, 0.9, 0.99} {
		e, err := EffectiveSize(ar1(rng, m, n, phi))
		if err != nil {
			t.Fatal(err)
		}
		tau := (1 + phi) / (1 - phi)
		bound := 5 * math.Sqrt(2*float64(2*e.Lag+1)/float64(m*n))
		if rel := math.Abs(e.Tau/tau - 1); rel > bound {
			t.Errorf("φ=%v: τ̂ = %.3f, closed form %.3f (relative error %.3f > bound %.3f, window %d)", phi, e.Tau, tau, rel, bound, e.Lag)
		}
		t.Logf("φ=%v: τ̂ = %.3f, closed form %.3f, ESS %.0f of %d, window %d, bound %.3f", phi, e.Tau, tau, e.ESS, m*n, e.Lag, bound)
	}
}

// TestEffectiveSizeSeesBetweenChainDifferences: chains stuck at different
// means have few effective draws, though each is white noise.
func TestEffectiveSizeSeesBetweenChainDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ch := ar1(rng, 4, 2000, 0)
	for i := range ch[0] {
		ch[0][i] += 3
	}
	e, err := EffectiveSize(ch)
	if err != nil {
		t.Fatal(err)
	}
	if e.ESS > 100 {
		t.Errorf("ESS %.0f of 8000 for chains whose means differ by 3 SD; want a small number", e.ESS)
	}
}

// TestRhatIID bounds R̂ for independent draws: with M' split chains of N'
// draws, R̂² − 1 ≈ (χ²_{M'−1}/(M'−1) − 1)/N', whose 5-SD bound is
// 5·√(2/(M'−1))/N'.
func TestRhatIID(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const m, n = 4, 1000
	bulk, tail, err := Rhat(ar1(rng, m, n, 0))
	if err != nil {
		t.Fatal(err)
	}
	mp, np := 2*m, n/2
	bound := math.Sqrt(1 + 5*math.Sqrt(2/float64(mp-1))/float64(np))
	if bulk > bound || tail > bound {
		t.Errorf("iid draws: R̂ bulk %.5f, tail %.5f; bound %.5f", bulk, tail, bound)
	}
}

func TestRhatFindsUnmixedChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	// One chain shifted by one SD: the bulk R̂ sees it.
	ch := ar1(rng, 4, 1000, 0)
	for i := range ch[1] {
		ch[1][i]++
	}
	bulk, _, err := Rhat(ch)
	if err != nil {
		t.Fatal(err)
	}
	if bulk < 1.05 {
		t.Errorf("shifted chain: bulk R̂ %.4f, want ≥ 1.05", bulk)
	}
	// One chain with three times the spread and the same centre: only the
	// tail R̂ sees it.
	ch = ar1(rng, 4, 1000, 0)
	for i := range ch[2] {
		ch[2][i] *= 3
	}
	bulk, tail, err := Rhat(ch)
	if err != nil {
		t.Fatal(err)
	}
	if tail < 1.05 || bulk > 1.02 {
		t.Errorf("wider chain: bulk R̂ %.4f (want < 1.02), tail %.4f (want ≥ 1.05)", bulk, tail)
	}
	// A trend within each chain: split-R̂ sees it.
	ch = ar1(rng, 4, 1000, 0)
	for _, c := range ch {
		for i := range c {
			c[i] += 2 * float64(i) / float64(len(c))
		}
	}
	if bulk, _, _ := Rhat(ch); bulk < 1.05 {
		t.Errorf("trending chains: bulk R̂ %.4f, want ≥ 1.05", bulk)
	}
}

// TestMCSEMean compares the standard error with its closed form for
// AR(1), √(τ/(M·N)) at unit variance. It is the square root of 1/ESS, so
// its relative error is about half of τ̂'s: the bound is half of
// TestEffectiveSizeAR1's, for the window of the split chains.
func TestMCSEMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	const m, n = 4, 50000
	for _, phi := range []float64{0, 0.9} {
		ch := ar1(rng, m, n, phi)
		got, err := MCSEMean(ch)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := split(ch)
		e, err := EffectiveSize(s)
		if err != nil {
			t.Fatal(err)
		}
		want := math.Sqrt((1 + phi) / (1 - phi) / float64(m*n))
		bound := 2.5 * math.Sqrt(2*float64(2*e.Lag+1)/float64(m*n))
		if rel := math.Abs(got/want - 1); rel > bound {
			t.Errorf("φ=%v: MCSE %.5g, closed form %.5g (relative error %.3f > %.3f)", phi, got, want, rel, bound)
		}
	}
}

func TestBulkAndTailESS(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	const m, n = 4, 20000
	ch := ar1(rng, m, n, 0.5)
	bulk, err := BulkESS(ch)
	if err != nil {
		t.Fatal(err)
	}
	tail, err := TailESS(ch)
	if err != nil {
		t.Fatal(err)
	}
	// For a Gaussian AR(1), rank-normalizing changes little: τ ≈ 3 for the
	// bulk; indicators of tail events mix faster, so their τ is at most
	// the bulk's.
	if math.Abs(bulk.Tau/3-1) > 5*math.Sqrt(2*float64(2*bulk.Lag+1)/float64(m*n)) {
		t.Errorf("bulk τ̂ %.3f, want about 3", bulk.Tau)
	}
	if tail.Tau > bulk.Tau*1.2 {
		t.Errorf("tail τ̂ %.3f above bulk τ̂ %.3f", tail.Tau, bulk.Tau)
	}
}

func TestDiagnosticsRejectBadInput(t *testing.T) {
	for name, ch := range map[string][][]float64{
		"no chains":  nil,
		"ragged":     {{1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 6, 7}},
		"too short":  {{1, 2, 3}},
		"not finite": {{1, 2, 3, 4, 5, 6, 7, math.NaN()}},
		"constant":   {{2, 2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2}},
	} {
		if _, err := EffectiveSize(ch); err == nil {
			t.Errorf("EffectiveSize(%s) accepted", name)
		}
		if _, _, err := Rhat(ch); err == nil {
			t.Errorf("Rhat(%s) accepted", name)
		}
		if _, err := Autocorrelation(ch, 2); err == nil {
			t.Errorf("Autocorrelation(%s) accepted", name)
		}
	}
	ok := [][]float64{{1, 2, 3, 4, 5, 6, 7, 9}}
	for _, lag := range []int{-1, 8} {
		if _, err := Autocorrelation(ok, lag); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("lag %d is out of range [0, 7]", lag)) {
			t.Errorf("lag %d: %v", lag, err)
		}
	}
}

// The autocorrelation of a stationary AR(1) at lag t is φ^t. Bartlett's
// formula bounds the estimate's variance by (1+φ²)/(1−φ²)/(M·N) at every
// lag; the test allows 5 of those sds.
func TestAutocorrelationAR1(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const m, n, lags = 4, 20000, 30
	for _, phi := range []float64{0, 0.5, 0.9} {
		rho, err := Autocorrelation(ar1(rng, m, n, phi), lags)
		if err != nil {
			t.Fatal(err)
		}
		if len(rho) != lags+1 || rho[0] != 1 {
			t.Fatalf("φ=%v: %d lags, ρ0 = %v", phi, len(rho), rho[0])
		}
		bound := 5 * math.Sqrt((1+phi*phi)/(1-phi*phi)/float64(m*n))
		for k, r := range rho {
			if want := math.Pow(phi, float64(k)); math.Abs(r-want) > bound {
				t.Errorf("φ=%v, lag %d: ρ̂ = %.4f, closed form %.4f (bound %.4f)", phi, k, r, want, bound)
			}
		}
	}
}
