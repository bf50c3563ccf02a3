package main

// A float64 reference for the regression example: the data loader, a
// blocked Gibbs sampler written with gonum (the oracle that the generated
// 8-dimensional sampler's numbers are compared with), and a deterministic
// cross-check of that oracle by numerical integration over (φ, τ).
//
// Model, on the preprocessed design X (n×8) and response y:
//
//	y = Xβ + ε,  ε ~ N(0, σ²I),  φ = 1/σ²
//	β | τ ~ N(0, τ⁻¹I)
//	φ ~ Gamma(a0, rate b0),  τ ~ Gamma(c0, rate d0)
//
// Full conditionals, with Q = φXᵀX + τI and p = 8:
//
//	β | φ, τ, y ~ N(Q⁻¹φXᵀy, Q⁻¹)
//	φ | β, y    ~ Gamma(a0 + n/2, b0 + ‖y − Xβ‖²/2)
//	τ | β       ~ Gamma(c0 + p/2, d0 + ‖β‖²/2)

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// responseColumn is the CSV column that is y: party identification,
// 0 = strong Democrat … 6 = strong Republican, used as it is.
const responseColumn = "PID"

// columns names the 8 columns of X, in order: an intercept, then 7
// regressors. "logpopul" is log(popul + 0.1), as in statsmodels' anes96
// loader; the others are CSV columns as they are.
var columns = []string{"const", "logpopul", "selfLR", "ClinLR", "DoleLR", "age", "educ", "income"}

// priors holds the hyperparameters: φ ~ Gamma(A0, rate B0) and
// τ ~ Gamma(C0, rate D0).
type priors struct {
	A0, B0, C0, D0 float64
}

func defaultPriors() priors { return priors{A0: 0.01, B0: 0.01, C0: 0.01, D0: 0.01} }

// loadData reads the CSV at path (header row, plain numbers) and returns
// the preprocessed design and response. Column 0 of X is all ones; each
// of the 7 regressors after it is divided by its standard deviation
// (divisor n) but not centred, so that all 8 coefficients are on
// comparable scales under the one prior β ~ N(0, τ⁻¹I) while XᵀX stays
// mildly ill-conditioned (the regressors' means are large beside their
// spreads: condition number about 4.7e3). y is PID, not centred.
func loadData(path string) (x *mat.Dense, y []float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return readData(f, path)
}

// readData is loadData on a reader; path names it in errors.
func readData(rd io.Reader, path string) (x *mat.Dense, y []float64, err error) {
	r := csv.NewReader(rd)
	header, err := r.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	src := func(name string) string {
		if name == "logpopul" {
			return "popul"
		}
		return name
	}
	inputs := append(append([]string(nil), columns[1:]...), responseColumn)
	for _, name := range inputs {
		if _, ok := col[src(name)]; !ok {
			return nil, nil, fmt.Errorf("%s: no column %q", path, src(name))
		}
	}
	p := len(columns)
	var raw [][]float64 // rows of [1, regressors..., response]
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		row := make([]float64, p+1)
		row[0] = 1
		for j, name := range inputs {
			s := rec[col[src(name)]]
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("%s:%d: column %s: bad number %q", path, line, src(name), s)
			}
			if name == "logpopul" {
				v = math.Log(v + 0.1)
			}
			row[j+1] = v
		}
		raw = append(raw, row)
	}
	n := len(raw)
	if n < 2 {
		return nil, nil, fmt.Errorf("%s: %d rows, need at least 2", path, n)
	}
	x = mat.NewDense(n, p, nil)
	y = make([]float64, n)
	for i := range raw {
		x.Set(i, 0, 1)
		y[i] = raw[i][p]
	}
	for j := 1; j < p; j++ {
		var mean, ss float64
		for i := range raw {
			mean += raw[i][j]
		}
		mean /= float64(n)
		for i := range raw {
			d := raw[i][j] - mean
			ss += d * d
		}
		sd := math.Sqrt(ss / float64(n))
		if sd == 0 {
			return nil, nil, fmt.Errorf("%s: column %s is constant", path, columns[j])
		}
		for i := range raw {
			x.Set(i, j, raw[i][j]/sd)
		}
	}
	return x, y, nil
}

// stat is a posterior mean and standard deviation, and the Monte Carlo
// standard error of the mean (zero where the numbers are not from MCMC).
type stat struct {
	Mean, SD, MCSE float64
}

// summary is the oracle's output, pooled over chains and post-burn
// iterations. MCSE is by batch means: each chain's kept draws are cut into
// batchesPerChain consecutive batches of equal length (a remainder at the
// end of a chain is left out of the batches, not of Mean and SD), and
// MCSE = sd(all chains' batch means) / sqrt(number of batches). The spread
// of the batch means around their grand mean takes in both within-chain
// autocorrelation and any difference between chains.
type summary struct {
	Beta   []stat
	Sigma2 stat
	Tau    stat
	Draws  int // chains × (iters − burn)
}

const batchesPerChain = 20

// suffStats are the data's sufficient statistics for this model.
type suffStats struct {
	n   int
	xtx *mat.SymDense
	xty []float64
	yty float64
}

func sufficient(x *mat.Dense, y []float64) suffStats {
	n, p := x.Dims()
	if len(y) != n {
		panic(fmt.Sprintf("regression: %d rows in X, %d in y", n, len(y)))
	}
	s := suffStats{n: n, xtx: mat.NewSymDense(p, nil), xty: make([]float64, p)}
	s.xtx.SymOuterK(1, x.T())
	xty := mat.NewVecDense(p, s.xty)
	xty.MulVec(x.T(), mat.NewVecDense(n, y))
	for _, v := range y {
		s.yty += v * v
	}
	return s
}

// oracle runs chains independent blocked Gibbs chains of iters iterations
// each (one β draw, then φ, then τ) and summarises the draws after the
// first burn. Chain c draws from rand.New(rand.NewPCG(seed, c)), so the
// result depends only on the arguments (chains run in parallel, one
// goroutine each). Every chain starts at φ = 1, τ = 1.
func oracle(x *mat.Dense, y []float64, pr priors, chains, iters, burn int, seed uint64) summary {
	if chains < 1 || burn < 0 || iters-burn < batchesPerChain {
		panic(fmt.Sprintf("regression: chains %d, iters %d, burn %d: need chains ≥ 1 and at least %d kept iterations", chains, iters, burn, batchesPerChain))
	}
	s := sufficient(x, y)
	p := len(s.xty)
	keep := iters - burn
	q := p + 2 // β, σ², τ per draw
	draws := make([][]float64, chains)
	var wg sync.WaitGroup
	for c := range chains {
		draws[c] = make([]float64, keep*q)
		wg.Add(1)
		go func() {
			defer wg.Done()
			runChain(s, pr, iters, burn, rand.NewPCG(seed, uint64(c)), draws[c])
		}()
	}
	wg.Wait()

	out := summary{Beta: make([]stat, p), Draws: chains * keep}
	blen := keep / batchesPerChain
	nb := chains * batchesPerChain
	for k := range q {
		var sum, sumsq float64
		bm := make([]float64, 0, nb)
		for c := range chains {
			d := draws[c]
			for b := range batchesPerChain {
				var bs float64
				for t := b * blen; t < (b+1)*blen; t++ {
					bs += d[t*q+k]
				}
				bm = append(bm, bs/float64(blen))
			}
			for t := range keep {
				v := d[t*q+k]
				sum += v
				sumsq += v * v
			}
		}
		N := float64(chains * keep)
		mean := sum / N
		varr := (sumsq - N*mean*mean) / (N - 1)
		var bmean, bvar float64
		for _, v := range bm {
			bmean += v
		}
		bmean /= float64(nb)
		for _, v := range bm {
			bvar += (v - bmean) * (v - bmean)
		}
		bvar /= float64(nb - 1)
		st := stat{Mean: mean, SD: math.Sqrt(math.Max(varr, 0)), MCSE: math.Sqrt(bvar / float64(nb))}
		switch {
		case k < p:
			out.Beta[k] = st
		case k == p:
			out.Sigma2 = st
		default:
			out.Tau = st
		}
	}
	return out
}

// runChain runs one chain and writes its kept draws, (β, σ², τ) per
// iteration, into out.
func runChain(s suffStats, pr priors, iters, burn int, src rand.Source, out []float64) {
	p := len(s.xty)
	n := float64(s.n)
	rng := rand.New(src)
	phi := 1.0
	tau := 1.0
	qm := mat.NewSymDense(p, nil)
	var chol mat.Cholesky
	var u mat.TriDense
	h := mat.NewVecDense(p, nil)
	m := mat.NewVecDense(p, nil)
	beta := make([]float64, p)
	z := make([]float64, p)
	for it := range iters {
		// β | φ, τ: Q = φXᵀX + τI = UᵀU; β = Q⁻¹h + U⁻¹z with h = φXᵀy.
		for i := range p {
			for j := i; j < p; j++ {
				v := phi * s.xtx.At(i, j)
				if i == j {
					v += tau
				}
				qm.SetSym(i, j, v)
			}
			h.SetVec(i, phi*s.xty[i])
		}
		if !chol.Factorize(qm) {
			panic("regression: Q is not positive definite")
		}
		if err := chol.SolveVecTo(m, h); err != nil {
			panic(err)
		}
		chol.UTo(&u)
		for i := range p {
			z[i] = rng.NormFloat64()
		}
		for i := p - 1; i >= 0; i-- { // back substitution, U upper triangular
			v := z[i]
			for j := i + 1; j < p; j++ {
				v -= u.At(i, j) * z[j]
			}
			z[i] = v / u.At(i, i)
		}
		var bb, btxty, btxtxb float64
		for i := range p {
			beta[i] = m.AtVec(i) + z[i]
			bb += beta[i] * beta[i]
			btxty += beta[i] * s.xty[i]
		}
		for i := range p {
			var r float64
			for j := range p {
				r += s.xtx.At(i, j) * beta[j]
			}
			btxtxb += beta[i] * r
		}
		// ‖y − Xβ‖² = yᵀy − 2βᵀXᵀy + βᵀXᵀXβ.
		rss := math.Max(s.yty-2*btxty+btxtxb, 0)
		phi = distuv.Gamma{Alpha: pr.A0 + n/2, Beta: pr.B0 + rss/2, Src: src}.Rand()
		tau = distuv.Gamma{Alpha: pr.C0 + float64(p)/2, Beta: pr.D0 + bb/2, Src: src}.Rand()
		if it >= burn {
			o := out[(it-burn)*(p+2):]
			copy(o, beta)
			o[p] = 1 / phi
			o[p+1] = tau
		}
	}
}

// gridResult is the grid posterior: exact up to quadrature error.
type gridResult struct {
	Beta   []stat // MCSE is zero
	Sigma2 stat
	Tau    stat
	// LogPhi and LogTau are the ranges of the final grid.
	LogPhi, LogTau [2]float64
}

// gridPosterior computes the posterior means and standard deviations
// without MCMC. β is integrated out analytically: with Q = φXᵀX + τI and
// h = φXᵀy, the marginal posterior of (φ, τ) is
//
//	p(φ, τ | y) ∝ p(φ) p(τ) φ^{n/2} τ^{p/2} |Q|^{-1/2} exp(−(φyᵀy − hᵀQ⁻¹h)/2),
//
// and E[β | y] = ∫ Q⁻¹h p(φ, τ | y), E[ββᵀ | y] = ∫ (Q⁻¹ + Q⁻¹hhᵀQ⁻¹) p(φ, τ | y).
// The integral runs over (log φ, log τ) on a uniform grid (the Jacobian φτ
// is in the density): a coarse pass over [−20, 20]² finds the box outside
// which the log density is more than 40 below its maximum, then an
// m×m pass over that box gives the numbers. XᵀX = VΛVᵀ is diagonalised
// once, so each grid point costs O(p²).
func gridPosterior(x *mat.Dense, y []float64, pr priors, m int) gridResult {
	s := sufficient(x, y)
	p := len(s.xty)
	n := float64(s.n)
	var eig mat.EigenSym
	if !eig.Factorize(s.xtx, true) {
		panic("regression: eigendecomposition of XᵀX failed")
	}
	lam := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	g := make([]float64, p) // Vᵀ Xᵀy
	for i := range p {
		for k := range p {
			g[i] += v.At(k, i) * s.xty[k]
		}
	}
	logDens := func(lphi, ltau float64) float64 {
		phi, tau := math.Exp(lphi), math.Exp(ltau)
		lp := pr.A0*lphi - pr.B0*phi + pr.C0*ltau - pr.D0*tau // priors × Jacobian
		lp += n/2*lphi + float64(p)/2*ltau - phi*s.yty/2
		for i := range p {
			d := phi*lam[i] + tau
			lp += -0.5*math.Log(d) + 0.5*phi*phi*g[i]*g[i]/d
		}
		return lp
	}

	// Coarse pass: find the box that holds the mass.
	const lo, hi, coarse = -20.0, 20.0, 401
	step := (hi - lo) / (coarse - 1)
	ld := make([]float64, coarse*coarse)
	best := math.Inf(-1)
	for a := range coarse {
		for b := range coarse {
			l := logDens(lo+float64(a)*step, lo+float64(b)*step)
			ld[a*coarse+b] = l
			best = math.Max(best, l)
		}
	}
	box := [4]float64{hi, lo, hi, lo} // min/max log φ, min/max log τ
	for a := range coarse {
		for b := range coarse {
			if ld[a*coarse+b] > best-40 {
				u, w := lo+float64(a)*step, lo+float64(b)*step
				box[0], box[1] = math.Min(box[0], u-step), math.Max(box[1], u+step)
				box[2], box[3] = math.Min(box[2], w-step), math.Max(box[3], w+step)
			}
		}
	}
	if box[0] <= lo || box[1] >= hi || box[2] <= lo || box[3] >= hi {
		panic(fmt.Sprintf("regression: posterior mass reaches the edge of the coarse grid: %v", box))
	}

	// Fine pass: weighted moments.
	du, dw := (box[1]-box[0])/float64(m-1), (box[3]-box[2])/float64(m-1)
	lds := make([]float64, m*m)
	best = math.Inf(-1)
	for a := range m {
		for b := range m {
			l := logDens(box[0]+float64(a)*du, box[2]+float64(b)*dw)
			lds[a*m+b] = l
			best = math.Max(best, l)
		}
	}
	var wsum, s2, s2sq, t1, t2 float64
	eb := make([]float64, p)  // Σ w E[β_k | φ, τ]
	ebb := make([]float64, p) // Σ w E[β_k² | φ, τ]
	mi := make([]float64, p)
	for a := range m {
		for b := range m {
			w := math.Exp(lds[a*m+b] - best)
			phi := math.Exp(box[0] + float64(a)*du)
			tau := math.Exp(box[2] + float64(b)*dw)
			wsum += w
			s2 += w / phi
			s2sq += w / (phi * phi)
			t1 += w * tau
			t2 += w * tau * tau
			for i := range p {
				mi[i] = phi * g[i] / (phi*lam[i] + tau)
			}
			for k := range p {
				var mk, vk float64
				for i := range p {
					mk += v.At(k, i) * mi[i]
					vk += v.At(k, i) * v.At(k, i) / (phi*lam[i] + tau)
				}
				eb[k] += w * mk
				ebb[k] += w * (vk + mk*mk)
			}
		}
	}
	mom := func(e1, e2 float64) stat {
		e1, e2 = e1/wsum, e2/wsum
		return stat{Mean: e1, SD: math.Sqrt(math.Max(e2-e1*e1, 0))}
	}
	res := gridResult{Beta: make([]stat, p), Sigma2: mom(s2, s2sq), Tau: mom(t1, t2),
		LogPhi: [2]float64{box[0], box[1]}, LogTau: [2]float64{box[2], box[3]}}
	for k := range p {
		res.Beta[k] = mom(eb[k], ebb[k])
	}
	return res
}
