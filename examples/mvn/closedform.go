package main

// The closed form of the autocorrelation that autocorrelation.png draws
// beside the measured one: the sampler runs plain Gibbs sweeps, whose
// stationary lag-k covariance is G^k·Σ (package mixing's G), so x_i's
// autocorrelation after k sweeps is (G^k·Σ)_ii / Σ_ii.

import (
	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/mixing"
)

// closedACF returns, for each coordinate of coords, the autocorrelation
// after 0, thin, 2·thin, ..., lags·thin plain sweeps.
func closedACF(q [][]float64, sigma *mat.SymDense, coords []int, thin, lags int) ([][]float64, error) {
	qs := mat.NewSymDense(dim, nil)
	for i := 0; i < dim; i++ {
		for j := i; j < dim; j++ {
			qs.SetSym(i, j, 0.5*(q[i][j]+q[j][i]))
		}
	}
	g, err := mixing.Operator(qs, 1, mixing.Forward)
	if err != nil {
		return nil, err
	}
	step := mat.NewDense(dim, dim, nil) // G^thin
	step.Pow(g, thin)
	cur := mat.DenseCopyOf(sigma) // G^(k·thin)·Σ
	out := make([][]float64, len(coords))
	for k := 0; k <= lags; k++ {
		if k > 0 {
			var next mat.Dense
			next.Mul(step, cur)
			cur = &next
		}
		for n, i := range coords {
			out[n] = append(out[n], cur.At(i, i)/sigma.At(i, i))
		}
	}
	return out, nil
}
