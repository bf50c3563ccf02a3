package mcstat

import (
	"errors"
	"fmt"
	"math"
)

// checkChains validates the draws every diagnostic takes: at least one
// chain, equal lengths of at least min, finite values.
func checkChains(chains [][]float64, min int) (m, n int, err error) {
	m = len(chains)
	if m == 0 {
		return 0, 0, errors.New("mcstat: no chains")
	}
	n = len(chains[0])
	for i, c := range chains {
		if len(c) != n {
			return 0, 0, fmt.Errorf("mcstat: chain %d has %d draws, chain 0 has %d; chains must have equal lengths", i, len(c), n)
		}
		for j, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, 0, fmt.Errorf("mcstat: chain %d draw %d is %v; draws must be finite", i, j, v)
			}
		}
	}
	if n < min {
		return 0, 0, fmt.Errorf("mcstat: chains have %d draws; at least %d are needed", n, min)
	}
	return m, n, nil
}

// ESS is the effective sample size of the draws, and the integrated
// autocorrelation time behind it: ESS = M·N/τ.
type ESS struct {
	ESS float64 // effective number of independent draws
	Tau float64 // integrated autocorrelation time, in draws
	Lag int     // the last lag Geyer's sequence kept
}

// EffectiveSize estimates the effective sample size of M chains of N draws
// each, as Stan does (Vehtari et al. 2021, eq. 10–11): autocorrelations
// combined across chains through the between- and within-chain variances,
// then Geyer's initial monotone sequence of paired autocorrelations,
// truncated at the first negative pair. It does not split or transform the
// chains; see BulkESS and TailESS for the rank-normalized forms. It needs at
// least 4 draws per chain; constant draws give an error.
func EffectiveSize(chains [][]float64) (ESS, error) {
	m, n, err := checkChains(chains, 4)
	if err != nil {
		return ESS{}, err
	}
	rho, err := combined(chains, m, n)
	if err != nil {
		return ESS{}, err
	}
	r := make([]float64, n+2)
	r[0] = 1
	even, odd := 1.0, rho(1)
	r[1] = odd
	t := 1
	for t < n-4 && even+odd > 0 {
		even, odd = rho(t+1), rho(t+2)
		if even+odd >= 0 {
			r[t+1], r[t+2] = even, odd
		}
		t += 2
	}
	maxT := t
	if even > 0 {
		r[maxT+1] = even // Stan's improved estimate for antithetic chains
	}
	for s := 1; s <= maxT-3; s += 2 {
		if r[s+1]+r[s+2] > r[s-1]+r[s] {
			r[s+1] = (r[s-1] + r[s]) / 2
			r[s+2] = r[s+1]
		}
	}
	sum := 0.0
	for _, v := range r[:maxT] {
		sum += v
	}
	tau := -1 + 2*sum + r[maxT+1]
	total := float64(m * n)
	ess := math.Min(total/tau, total*math.Log10(total))
	return ESS{ESS: ess, Tau: total / ess, Lag: maxT}, nil
}

// Autocorrelation returns the autocorrelation of M chains of N draws at
// lags 0..maxLag, combined across chains as EffectiveSize combines them
// (Vehtari et al. 2021, eq. 10): ρ_0 = 1 and ρ_t = 1 − (W − mean of the
// chains' autocovariances at t) / var⁺, so that chains stuck apart show a
// high autocorrelation. It needs at least 4 draws per chain and maxLag in
// [0, N−1]; constant draws give an error.
func Autocorrelation(chains [][]float64, maxLag int) ([]float64, error) {
	m, n, err := checkChains(chains, 4)
	if err != nil {
		return nil, err
	}
	if maxLag < 0 || maxLag >= n {
		return nil, fmt.Errorf("mcstat: lag %d is out of range [0, %d] for chains of %d draws", maxLag, n-1, n)
	}
	rho, err := combined(chains, m, n)
	if err != nil {
		return nil, err
	}
	out := make([]float64, maxLag+1)
	out[0] = 1 // as EffectiveSize takes it (the formula gives 1 − W/(N·var⁺))
	for t := 1; t <= maxLag; t++ {
		out[t] = rho(t)
	}
	return out, nil
}

// combined returns the chains' combined autocorrelation at lag t, for
// EffectiveSize and Autocorrelation.
func combined(chains [][]float64, m, n int) (func(t int) float64, error) {
	acov := make([][]float64, m)
	means := make([]float64, m)
	meanVar := 0.0
	for i, c := range chains {
		acov[i] = autocovariance(c)
		for _, v := range c {
			means[i] += v
		}
		means[i] /= float64(n)
		meanVar += acov[i][0] * float64(n) / float64(n-1)
	}
	meanVar /= float64(m)
	varPlus := meanVar * float64(n-1) / float64(n)
	if m > 1 {
		varPlus += variance(means)
	}
	if !(varPlus > 0) {
		return nil, errors.New("mcstat: the draws are constant; their autocorrelation and effective size are undefined")
	}
	return func(t int) float64 {
		s := 0.0
		for i := range acov {
			s += acov[i][t]
		}
		return 1 - (meanVar-s/float64(m))/varPlus
	}, nil
}

// variance is the sample variance (n−1 denominator).
func variance(x []float64) float64 {
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - mean) * (v - mean)
	}
	return s / float64(len(x)-1)
}

// BulkESS is the effective sample size of the rank-normalized split chains
// (Vehtari et al. 2021, section 4.2): the efficiency of estimates of the
// centre of the distribution, robust to heavy tails.
func BulkESS(chains [][]float64) (ESS, error) {
	s, err := split(chains)
	if err != nil {
		return ESS{}, err
	}
	return EffectiveSize(zScale(s))
}

// TailESS is the smaller of the effective sample sizes of the indicators
// I(x ≤ q05) and I(x ≤ q95) over the split chains, q05 and q95 the empirical
// 5% and 95% quantiles of all draws: the efficiency of the tail quantiles.
func TailESS(chains [][]float64) (ESS, error) {
	s, err := split(chains)
	if err != nil {
		return ESS{}, err
	}
	all := flatten(s)
	best := ESS{ESS: math.Inf(1)}
	for _, p := range []float64{0.05, 0.95} {
		q := quantile(all, p)
		ind := make([][]float64, len(s))
		for i, c := range s {
			ind[i] = make([]float64, len(c))
			for j, v := range c {
				if v <= q {
					ind[i][j] = 1
				}
			}
		}
		e, err := EffectiveSize(ind)
		if err != nil {
			return ESS{}, err
		}
		if e.ESS < best.ESS {
			best = e
		}
	}
	return best, nil
}

// MCSEMean is the Monte Carlo standard error of the mean of all draws:
// their standard deviation over the square root of the effective size of
// the split chains.
func MCSEMean(chains [][]float64) (float64, error) {
	s, err := split(chains)
	if err != nil {
		return 0, err
	}
	e, err := EffectiveSize(s)
	if err != nil {
		return 0, err
	}
	return math.Sqrt(variance(flatten(chains)) / e.ESS), nil
}
