package mixing

import "math"

// MeanErrorNorms returns, for k = 0, ..., n, the Q-norm of the mean error's
// operator after k iterations, ‖P_k‖_Q = max |p_k(1 − λ)| over lambdas,
// the eigenvalues of M⁻¹Q (SSOREigenvalues): the largest factor by which k
// iterations cut ‖E[y_k] − mu‖_Q = sqrt(eᵀQe), over every start, reached
// from the start along the eigenvector of the largest |p_k|. P_k is a
// polynomial in the symmetric sweep's operator G = I − M⁻¹Q, which is
// self-adjoint in the Q inner product, so its Q-norm is its largest
// |eigenvalue|; the recurrence is MeanOperators', on each eigenvalue.
func (c Chebyshev) MeanErrorNorms(lambdas []float64, n int) []float64 {
	prev := make([]float64, len(lambdas))
	cur := make([]float64, len(lambdas))
	for i := range cur {
		prev[i], cur[i] = 1, 1
	}
	out := make([]float64, n+1)
	if len(lambdas) > 0 {
		out[0] = 1
	}
	for k, s := range c.Steps(n) {
		worst := 0.0
		for i, l := range lambdas {
			next := s.Alpha*(c.Tau*(1-l)*cur[i]+(1-c.Tau)*cur[i]) + (1-s.Alpha)*prev[i]
			prev[i], cur[i] = cur[i], next
			worst = math.Max(worst, math.Abs(next))
		}
		out[k+1] = worst
	}
	return out
}
