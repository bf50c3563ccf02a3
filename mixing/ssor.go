package mixing

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SSORSpectrum returns the smallest and largest eigenvalues of M⁻¹Q, where
// M = ω/(2−ω)·(D/ω + L)·D⁻¹·(D/ω + Lᵀ) is the SSOR splitting of Q = D + L +
// Lᵀ: a symmetric sweep's mean-error operator is I − M⁻¹Q, so its spectral
// radius is 1 − λmin. The eigenvalues lie in (0, 1]; they are those of the
// symmetric R⁻¹QR⁻ᵀ, M = RRᵀ.
func SSORSpectrum(q mat.Symmetric, omega float64) (lmin, lmax float64, err error) {
	v, err := SSOREigenvalues(q, omega)
	if err != nil {
		return 0, 0, err
	}
	return v[0], v[len(v)-1], nil
}

// SSOREigenvalues returns every eigenvalue of M⁻¹Q (see SSORSpectrum), in
// ascending order.
func SSOREigenvalues(q mat.Symmetric, omega float64) ([]float64, error) {
	if !(omega > 0 && omega < 2) {
		return nil, fmt.Errorf("mixing: ω = %v: it must lie in (0, 2)", omega)
	}
	n := q.SymmetricDim()
	// R = sqrt(ω/(2−ω))·(D/ω + L)·D^(−1/2), lower triangular.
	f := math.Sqrt(omega / (2 - omega))
	r := mat.NewTriDense(n, mat.Lower, nil)
	for j := 0; j < n; j++ {
		d := q.At(j, j)
		if !(d > 0) {
			return nil, fmt.Errorf("mixing: Q[%d][%d] = %v: the diagonal must be positive", j, j, d)
		}
		s := f / math.Sqrt(d)
		r.SetTri(j, j, d/omega*s)
		for i := j + 1; i < n; i++ {
			r.SetTri(i, j, q.At(i, j)*s)
		}
	}
	var a, b mat.Dense
	if err := a.Solve(r, q); err != nil {
		return nil, errors.New("mixing: the SSOR splitting is singular")
	}
	if err := b.Solve(r, a.T()); err != nil {
		return nil, errors.New("mixing: the SSOR splitting is singular")
	}
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 0.5*(b.At(i, j)+b.At(j, i)))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(s, false) {
		return nil, errors.New("mixing: the eigenvalue decomposition did not converge")
	}
	return eig.Values(nil), nil
}

// Chebyshev is the schedule of Chebyshev-accelerated symmetric sweeps (Fox
// & Parker, Bernoulli 2017, Algorithm 3) for eigenvalues of M⁻¹Q in
// [LambdaMin, LambdaMax]. Iteration k sweeps the current iterate y_k
// forward with its normals times sqrt(b_k) and backward with sqrt(a_k), to
// s, and sets
//
//	y_{k+1} = α_k·(y_k + τ·(s − y_k)) + (1 − α_k)·y_{k−1},   y_{−1} = y_0.
//
// The mean error after k iterations is P_k·e_0, P_k a scaled Chebyshev
// polynomial in I − M⁻¹Q (MeanOperators), and the covariance error
// Q⁻¹ − Var(y_k) is P_k·(Q⁻¹ − Var(y_0))·P_kᵀ.
type Chebyshev struct {
	Omega                float64 // the sweeps' over-relaxation
	LambdaMin, LambdaMax float64
	Tau, Delta           float64 // τ = 2/(λmax+λmin), δ = ((λmax−λmin)/4)²
}

// NewChebyshev returns the schedule for eigenvalues in [lmin, lmax].
func NewChebyshev(omega, lmin, lmax float64) (Chebyshev, error) {
	if !(omega > 0 && omega < 2) {
		return Chebyshev{}, fmt.Errorf("mixing: ω = %v: it must lie in (0, 2)", omega)
	}
	if !(lmin > 0 && lmin <= lmax) {
		return Chebyshev{}, fmt.Errorf("mixing: eigenvalue interval [%v, %v]: it must satisfy 0 < λmin ≤ λmax", lmin, lmax)
	}
	d := (lmax - lmin) / 4
	return Chebyshev{Omega: omega, LambdaMin: lmin, LambdaMax: lmax, Tau: 2 / (lmax + lmin), Delta: d * d}, nil
}

// Step is one iteration's coefficients.
type Step struct {
	Alpha, A, B float64
}

// Steps returns the coefficients of iterations 0, ..., n-1.
func (c Chebyshev) Steps(n int) []Step {
	out := make([]Step, n)
	r := c.Start()
	for k := range out {
		out[k] = r.Next()
	}
	return out
}

// Recurrence walks the schedule's recurrence an iteration at a time: a
// caller that asks for iterations in increasing chunks (a run in launches)
// pays for each once, where Steps(first+n)[first:] pays for the first
// ones again every time.
type Recurrence struct {
	c                        Chebyshev
	k                        int // the iteration Next returns
	alpha, beta, kappa, a, b float64
}

// Start returns the recurrence at iteration 0.
func (c Chebyshev) Start() Recurrence {
	tau := c.Tau
	r := Recurrence{c: c, alpha: 1, beta: 2 * tau, kappa: tau}
	r.b = 2/r.alpha - 1
	r.a = (2/tau - 1) * r.b
	return r
}

// K is the iteration the next call of Next returns.
func (r *Recurrence) K() int { return r.k }

// Next returns iteration K's coefficients and moves to the next.
func (r *Recurrence) Next() Step {
	tau := r.c.Tau
	s := Step{Alpha: r.alpha, A: r.a, B: r.b}
	r.beta = 1 / (1/tau - r.beta*r.c.Delta)
	r.alpha = r.beta / tau
	r.b = 2*r.kappa*(1-r.alpha)/r.beta + 1
	r.a = (2/tau - 1) + (r.b-1)*(1/tau+1/r.kappa-1)
	r.kappa = r.beta + (1-r.alpha)*r.kappa
	r.k++
	return s
}

// Coefficients returns, per iteration k = first, ..., first+n−1, the
// values the kernels use: sqrt(b_k) and sqrt(a_k) (the forward and backward
// passes' factors on the normals), then α_k·τ, α_k·(1−τ) and 1 − α_k, the
// weights of s, y_k and y_{k−1} in y_{k+1}.
func (c Chebyshev) Coefficients(first, n int) [][5]float64 {
	r := c.Start()
	return r.Coefficients(first, n)
}

// Coefficients is Chebyshev.Coefficients from r's position: it restarts
// if first is behind it, and leaves r at first+n.
func (r *Recurrence) Coefficients(first, n int) [][5]float64 {
	if first < r.k {
		*r = r.c.Start()
	}
	for r.k < first {
		r.Next()
	}
	out := make([][5]float64, n)
	for k := range out {
		s := r.Next()
		out[k] = [5]float64{math.Sqrt(s.B), math.Sqrt(s.A), s.Alpha * r.c.Tau, s.Alpha * (1 - r.c.Tau), 1 - s.Alpha}
	}
	return out
}

// Rate is the asymptotic factor by which an iteration cuts the mean error:
// (1 − √(λmin/λmax)) / (1 + √(λmin/λmax)).
func (c Chebyshev) Rate() float64 {
	r := math.Sqrt(c.LambdaMin / c.LambdaMax)
	return (1 - r) / (1 + r)
}

// Iterations is the least k whose Chebyshev bound on the mean error,
// 2σᵏ/(1 + σ²ᵏ) with σ = Rate, is at most reduction.
func (c Chebyshev) Iterations(reduction float64) int {
	s := c.Rate()
	if s <= 0 {
		return 1
	}
	for k := 1; k < 1<<30; k++ {
		p := math.Pow(s, float64(k))
		if 2*p/(1+p*p) <= reduction {
			return k
		}
	}
	return math.MaxInt
}

// MeanOperators returns P_0, ..., P_n: the mean error after k iterations
// is P_k·e_0. gs is a symmetric sweep's operator (Operator(q, Omega,
// Symmetric)).
func (c Chebyshev) MeanOperators(gs mat.Matrix, n int) []*mat.Dense {
	d, _ := gs.Dims()
	id := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		id.Set(i, i, 1)
	}
	out := []*mat.Dense{mat.DenseCopyOf(id)}
	prev, cur := mat.DenseCopyOf(id), mat.DenseCopyOf(id)
	for _, s := range c.Steps(n) {
		// E_{k+1} = α((1−τ)E_k + τ·G·E_k) + (1−α)E_{k−1}
		var ge, next mat.Dense
		ge.Mul(gs, cur)
		next.Scale(s.Alpha*c.Tau, &ge)
		var t mat.Dense
		t.Scale(s.Alpha*(1-c.Tau), cur)
		next.Add(&next, &t)
		t.Scale(1-s.Alpha, prev)
		next.Add(&next, &t)
		prev, cur = cur, mat.DenseCopyOf(&next)
		out = append(out, mat.DenseCopyOf(cur))
	}
	return out
}
