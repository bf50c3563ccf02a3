package main

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// quantities are what each draw records: β_0..β_7, σ² = 1/φ and τ.
const quantities = dim + 2

// chainState is every chain's state on the host: β in the package's
// layout, φ and τ in float64, and the terms of the next β block in float32
// (the scales φ_c, the diagonals τ_c, the linear terms φ_c·Xᵀy).
type chainState struct {
	s          suffStats
	xtx        []float64 // XᵀX, row-major
	beta       []float32 // [chains][dim]
	phiF, tauF []float64
	phi        []float32 // Precision.Scales: K = 1, the scale of XᵀX
	diag       []float32 // Precision.Diag: τ_c on every coordinate
	h          []float32 // SetLinear: φ_c·Xᵀy
}

func newChainState(chains int, s suffStats) *chainState {
	st := &chainState{
		s: s, xtx: make([]float64, dim*dim),
		beta: make([]float32, chains*dim),
		phiF: make([]float64, chains), tauF: make([]float64, chains),
		phi: make([]float32, chains), diag: make([]float32, chains*dim), h: make([]float32, chains*dim),
	}
	for i := range dim {
		for j := range dim {
			st.xtx[i*dim+j] = s.xtx.At(i, j)
		}
	}
	for c := range chains {
		st.phiF[c], st.tauF[c] = 1, 1
	}
	return st
}

// setTerms writes the β block's terms from φ and τ: Q_c = φ_c·XᵀX + τ_c·I
// and h_c = φ_c·Xᵀy, each rounded once to float32.
func (st *chainState) setTerms() {
	for c, phi := range st.phiF {
		st.phi[c] = float32(phi)
		for i := range dim {
			st.diag[c*dim+i] = float32(st.tauF[c])
			st.h[c*dim+i] = float32(phi * st.s.xty[i])
		}
	}
}

// update draws every chain's φ and τ given its β, and records the draw
// when kept ≥ 0. The chains are split over the CPUs, each chain with a
// generator of its own for the iteration, so the draws do not depend on
// the split.
func (st *chainState) update(pr priors, seed uint64, iter int, acc *accumulator, kept int) {
	chains := len(st.phiF)
	workers := min(runtime.GOMAXPROCS(0), chains)
	n := float64(st.s.n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			var d [quantities]float64
			// One generator a worker, seeded afresh for each chain: the
			// stream of rand.NewPCG(seed, iter<<32|c), without an
			// allocation a chain.
			src := new(rand.PCG)
			for c := lo; c < hi; c++ {
				b := st.beta[c*dim : (c+1)*dim]
				// ‖y − Xβ‖² = yᵀy − 2βᵀXᵀy + βᵀXᵀXβ, in float64.
				var bb, bty, bqb float64
				for i := range dim {
					bi := float64(b[i])
					bb += bi * bi
					bty += bi * st.s.xty[i]
					var r float64
					for j := range dim {
						r += st.xtx[i*dim+j] * float64(b[j])
					}
					bqb += bi * r
				}
				rss := math.Max(st.s.yty-2*bty+bqb, 0)
				src.Seed(seed, uint64(iter)<<32|uint64(c))
				st.phiF[c] = distuv.Gamma{Alpha: pr.A0 + n/2, Beta: pr.B0 + rss/2, Src: src}.Rand()
				st.tauF[c] = distuv.Gamma{Alpha: pr.C0 + dim/2.0, Beta: pr.D0 + bb/2, Src: src}.Rand()
				if kept < 0 {
					continue
				}
				for i := range dim {
					d[i] = float64(b[i])
				}
				d[dim], d[dim+1] = 1/st.phiF[c], st.tauF[c]
				acc.add(c, kept, d[:])
			}
		}(w*chains/workers, (w+1)*chains/workers)
	}
	wg.Wait()
}

// minKept is the fewest kept iterations: two batches of two.
const minKept = 4

// accumulator sums each chain's kept draws, shifted by its first, and
// their batch means: B = max(2, ⌊√N⌋) batches of L = ⌊N/B⌋ draws per chain
// (a remainder at the end is left out of the batches only), the estimator
// of torch_regression.py.
type accumulator struct {
	chains, q, keep, batches, blen int
	shift, s1, s2, bsum, bm1, bm2  []float64 // [chains][q]
}

func newAccumulator(chains, q, keep int) *accumulator {
	b := max(2, int(math.Sqrt(float64(keep))))
	a := &accumulator{chains: chains, q: q, keep: keep, batches: b, blen: keep / b}
	for _, p := range []*[]float64{&a.shift, &a.s1, &a.s2, &a.bsum, &a.bm1, &a.bm2} {
		*p = make([]float64, chains*q)
	}
	return a
}

// add records chain c's draw d at kept index t; a chain is added by one
// goroutine at a time. Each sum takes the same terms in the same order
// whatever the batch's position, so only the batch's bookkeeping is
// decided once a call.
func (a *accumulator) add(c, t int, d []float64) {
	o := c * a.q
	shift, s1, s2 := a.shift[o:o+a.q], a.s1[o:o+a.q], a.s2[o:o+a.q]
	if t == 0 {
		copy(shift, d)
	}
	for k, v := range d {
		v -= shift[k]
		s1[k] += v
		s2[k] += v * v
	}
	if t >= a.batches*a.blen {
		return
	}
	bsum := a.bsum[o : o+a.q]
	for k, v := range d {
		bsum[k] += v - shift[k]
	}
	if (t+1)%a.blen != 0 {
		return
	}
	bm1, bm2 := a.bm1[o:o+a.q], a.bm2[o:o+a.q]
	for k, v := range bsum {
		m := v / float64(a.blen)
		bm1[k] += m
		bm2[k] += m * m
		bsum[k] = 0
	}
}

// chainStat is a quantity's pooled posterior mean and standard deviation,
// and its effective sample size and Monte Carlo standard error.
type chainStat struct {
	Mean, SD, ESS, MCSE float64
}

// stats pools the chains: W is the chain-averaged within-chain variance,
// S the chain-averaged L·variance of the batch means, ESS = C·N·W/S and
// MCSE = SD/√ESS.
func (a *accumulator) stats() []chainStat {
	out := make([]chainStat, a.q)
	n, c, b := float64(a.keep), float64(a.chains), float64(a.batches)
	for k := range out {
		var gmean, w, s float64
		for ch := range a.chains {
			i := ch*a.q + k
			gmean += a.s1[i]/n + a.shift[i]
		}
		gmean /= c
		var ss float64
		for ch := range a.chains {
			i := ch*a.q + k
			m := a.s1[i] / n
			within := a.s2[i] - n*m*m
			w += within / (n - 1)
			bm := a.bm1[i] / b
			s += float64(a.blen) * (a.bm2[i] - b*bm*bm) / (b - 1)
			d := m + a.shift[i] - gmean
			ss += within + n*d*d
		}
		w, s = w/c, s/c
		st := chainStat{Mean: gmean, SD: math.Sqrt(math.Max(ss/(c*n-1), 0))}
		if s > 0 {
			st.ESS = c * n * w / s
			st.MCSE = st.SD / math.Sqrt(st.ESS)
		}
		out[k] = st
	}
	return out
}
