package mcstat

import (
	"errors"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// split halves every chain (the middle draw of an odd length is dropped),
// so that R̂ and ESS also see trends within chains.
func split(chains [][]float64) ([][]float64, error) {
	_, n, err := checkChains(chains, 8)
	if err != nil {
		return nil, err
	}
	h := n / 2
	out := make([][]float64, 0, 2*len(chains))
	for _, c := range chains {
		out = append(out, c[:h], c[n-h:])
	}
	return out, nil
}

func flatten(chains [][]float64) []float64 {
	var all []float64
	for _, c := range chains {
		all = append(all, c...)
	}
	return all
}

// quantile is the empirical p-quantile of x by linear interpolation
// between order statistics (type 7, as R's and numpy's default).
func quantile(x []float64, p float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	h := p * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// zScale replaces every draw by the normal score of its rank among all
// draws, Φ⁻¹((r − 3/8)/(S + 1/4)), ties given their average rank (Vehtari
// et al. 2021, eq. 14).
func zScale(chains [][]float64) [][]float64 {
	type draw struct {
		v    float64
		c, i int
	}
	var all []draw
	for c, ch := range chains {
		for i, v := range ch {
			all = append(all, draw{v, c, i})
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].v < all[b].v })
	out := make([][]float64, len(chains))
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
	}
	s := float64(len(all))
	for lo := 0; lo < len(all); {
		hi := lo
		for hi+1 < len(all) && all[hi+1].v == all[lo].v {
			hi++
		}
		rank := float64(lo+hi)/2 + 1 // average 1-based rank of the tie
		z := distuv.UnitNormal.Quantile((rank - 0.375) / (s + 0.25))
		for k := lo; k <= hi; k++ {
			out[all[k].c][all[k].i] = z
		}
		lo = hi + 1
	}
	return out
}

// rhat is the potential scale reduction of chains (Gelman et al.):
// √(var⁺/W), var⁺ = (N−1)/N·W + B/N.
func rhat(chains [][]float64) float64 {
	n := float64(len(chains[0]))
	means := make([]float64, len(chains))
	w := 0.0
	for i, c := range chains {
		for _, v := range c {
			means[i] += v
		}
		means[i] /= n
		w += variance(c)
	}
	w /= float64(len(chains))
	b := n * variance(means)
	return math.Sqrt(((n-1)/n*w + b/n) / w)
}

// Rhat is the rank-normalized split-R̂ of Vehtari et al. (2021): the larger
// of the bulk R̂ (split chains, rank-normalized) and the tail R̂ (the same
// on |x − median|). Values above 1.01 say the chains have not mixed; it
// needs at least 8 draws per chain and at least two chains or halves.
func Rhat(chains [][]float64) (bulk, tail float64, err error) {
	s, err := split(chains)
	if err != nil {
		return 0, 0, err
	}
	if variance(flatten(s)) == 0 {
		return 0, 0, errors.New("mcstat: the draws are constant; R̂ is undefined")
	}
	bulk = rhat(zScale(s))
	med := quantile(flatten(s), 0.5)
	folded := make([][]float64, len(s))
	for i, c := range s {
		folded[i] = make([]float64, len(c))
		for j, v := range c {
			folded[i][j] = math.Abs(v - med)
		}
	}
	tail = rhat(zScale(folded))
	return bulk, tail, nil
}
