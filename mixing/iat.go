package mixing

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/mat"
)

// Stationary autocorrelation. In the stationary regime the chain is
// x_{k+1} = G x_k + noise with Cov(x_k, x_0) = G^k Σ, so a linear functional
// f = aᵀx has lag-k autocovariance aᵀG^kΣa, and a centred squared coordinate
// (x_i − mu_i)², Gaussian, has 2·((G^kΣ)_ii)². The integrated
// autocorrelation time (IAT) is 1 + 2·Σ_{k≥1} ρ_k, in sweeps: the variance
// of a chain's mean over n sweeps is IAT·Var/n.

// IATLinear returns the largest IAT of a linear functional aᵀx over all a:
// the largest eigenvalue λ of T a = λ Σ a, T = Σ + A + Aᵀ, A = Σ_{k≥1} G^kΣ =
// (I − G)⁻¹GΣ, and sigma = Q⁻¹. G's spectral radius must be below 1.
func IATLinear(g mat.Matrix, sigma mat.Symmetric) (float64, error) {
	iat, _, err := worstLinear(g, sigma, false)
	return iat, err
}

// WorstLinear is IATLinear with the functional that attains it: a, scaled
// so that aᵀΣa = 1.
func WorstLinear(g mat.Matrix, sigma mat.Symmetric) (iat float64, a []float64, err error) {
	return worstLinear(g, sigma, true)
}

func worstLinear(g mat.Matrix, sigma mat.Symmetric, direction bool) (float64, []float64, error) {
	a, err := lagSum(g, sigma)
	if err != nil {
		return 0, nil, err
	}
	return worstOf(a, sigma, direction)
}

// worstOf returns the largest eigenvalue λ of T a = λ Σ a, T = Σ + A + Aᵀ,
// and, if direction, its a with aᵀΣa = 1.
func worstOf(a mat.Matrix, sigma mat.Symmetric, direction bool) (float64, []float64, error) {
	n := sigma.SymmetricDim()
	var ch mat.Cholesky
	if !ch.Factorize(sigma) {
		return 0, nil, errors.New("mixing: Σ is not positive definite")
	}
	t := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			t.SetSym(i, j, sigma.At(i, j)+a.At(i, j)+a.At(j, i))
		}
	}
	// L⁻¹ T L⁻ᵀ, symmetric, has the generalized eigenvalues; its
	// eigenvector v gives a = L⁻ᵀv, with aᵀΣa = vᵀv = 1.
	var l mat.TriDense
	ch.LTo(&l)
	var x, y mat.Dense
	if err := x.Solve(&l, t); err != nil {
		return 0, nil, err
	}
	if err := y.Solve(&l, x.T()); err != nil {
		return 0, nil, err
	}
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 0.5*(y.At(i, j)+y.At(j, i)))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(s, direction) {
		return 0, nil, errors.New("mixing: the eigenvalue decomposition did not converge")
	}
	v := eig.Values(nil)
	if !direction {
		return v[n-1], nil, nil
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	var av mat.VecDense
	if err := av.SolveVec(l.T(), vecs.ColView(n-1)); err != nil {
		return 0, nil, err
	}
	return v[n-1], av.RawVector().Data, nil
}

// IATLinearRun is IATLinear for a run of n sweeps: the largest, over
// linear functionals aᵀx, of n·Var(the mean of aᵀx over n consecutive
// stationary states)/Var(aᵀx) = 1 + 2·Σ_{k=1}^{n−1}(1 − k/n)ρ_k. It tends
// to IATLinear as n grows. A reversible chain (symmetric sweeps) reaches
// it from below; a chain that rotates rather than mixes (forward sweeps
// at ω near 2, eigenvalues of G near the unit circle off the real axis)
// can exceed it many times for runs about as long as its relaxation time
// 1/(1 − ρ(G)), and comes down to it only in runs many times longer.
func IATLinearRun(g mat.Matrix, sigma mat.Symmetric, n int) (float64, error) {
	a, err := runLagSum(g, sigma, n)
	if err != nil {
		return 0, err
	}
	v, _, err := worstOf(a, sigma, false)
	return v, err
}

// IATRun is IATLinearRun for one functional aᵀx: n·Var(the mean of aᵀx
// over n consecutive stationary states)/Var(aᵀx). Chains started from
// exact draws measure it directly, as the variance across chains of their
// means.
func IATRun(g mat.Matrix, sigma mat.Symmetric, a []float64, n int) (float64, error) {
	l, err := runLagSum(g, sigma, n)
	if err != nil {
		return 0, err
	}
	av := mat.NewVecDense(len(a), a)
	var la, sa mat.VecDense
	la.MulVec(l, av)
	sa.MulVec(sigma, av)
	v := mat.Dot(av, &sa)
	return (v + 2*mat.Dot(av, &la)) / v, nil
}

// runLagSum returns Σ_{k=1}^{n−1}(1 − k/n)·G^kΣ, in closed form: with
// S = I − G, Σ_{k=1}^{n−1}(1 − k/n)G^k = G·(n·S − (I − G^n))·S⁻²/n, and
// G^n by squaring.
func runLagSum(g mat.Matrix, sigma mat.Symmetric, n int) (*mat.Dense, error) {
	if n < 1 {
		return nil, fmt.Errorf("mixing: a run of %d sweeps; it must have at least 1", n)
	}
	d := sigma.SymmetricDim()
	s := mat.NewDense(d, d, nil) // I − G
	gn := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		gn.Set(i, i, 1)
		for j := 0; j < d; j++ {
			v := -g.At(i, j)
			if i == j {
				v++
			}
			s.Set(i, j, v)
		}
	}
	sq := mat.DenseCopyOf(g)
	for k := n; k > 0; k >>= 1 {
		if k&1 == 1 {
			var t mat.Dense
			t.Mul(gn, sq)
			gn = &t
		}
		if k > 1 {
			var t mat.Dense
			t.Mul(sq, sq)
			sq = &t
		}
	}
	var inner, gi, x1, x2, a mat.Dense
	inner.Scale(float64(n), s)
	inner.Add(&inner, gn) // n·S − (I − G^n) = n·S − I + G^n
	for i := 0; i < d; i++ {
		inner.Set(i, i, inner.At(i, i)-1)
	}
	gi.Mul(g, &inner)
	if err := x1.Solve(s, &gi); err != nil {
		return nil, errors.New("mixing: I − G is singular: the sweep does not converge")
	}
	if err := x2.Solve(s, &x1); err != nil {
		return nil, errors.New("mixing: I − G is singular: the sweep does not converge")
	}
	a.Mul(&x2, sigma)
	a.Scale(1/float64(n), &a)
	return &a, nil
}

// IATCoordinates returns, for each coordinate i, the IAT of x_i:
// (Σ + A + Aᵀ)_ii / Σ_ii with A as in IATLinear.
func IATCoordinates(g mat.Matrix, sigma mat.Symmetric) ([]float64, error) {
	a, err := lagSum(g, sigma)
	if err != nil {
		return nil, err
	}
	out := make([]float64, sigma.SymmetricDim())
	for i := range out {
		out[i] = (sigma.At(i, i) + 2*a.At(i, i)) / sigma.At(i, i)
	}
	return out, nil
}

// lagSum returns Σ_{k≥1} G^kΣ = (I − G)⁻¹GΣ.
func lagSum(g mat.Matrix, sigma mat.Symmetric) (*mat.Dense, error) {
	n := sigma.SymmetricDim()
	var gs, a mat.Dense
	gs.Mul(g, sigma)
	im := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := -g.At(i, j)
			if i == j {
				v++
			}
			im.Set(i, j, v)
		}
	}
	if err := a.Solve(im, &gs); err != nil {
		return nil, errors.New("mixing: I − G is singular: the sweep does not converge")
	}
	return &a, nil
}

// IATSquares returns, for each coordinate i, the IAT of (x_i − mu_i)²:
// 1 + 2·Σ_{k≥1} ((G^kΣ)_ii / Σ_ii)². With G = VΛV⁻¹ and a_m = V_im (V⁻¹Σ)_mi,
// the sum is Σ_{m,n} a_m a_n λ_mλ_n / (1 − λ_mλ_n). Where V is too
// ill-conditioned for that (a defective G, as SOR has at its optimal ω on
// some models) the sum is taken term by term instead, until its terms fall
// below 1e-12 of the total.
func IATSquares(g mat.Matrix, sigma mat.Symmetric) ([]float64, error) {
	n := sigma.SymmetricDim()
	if out, ok := iatSquaresEigen(g, sigma); ok {
		return out, nil
	}
	rho, err := SpectralRadius(g)
	if err != nil {
		return nil, err
	}
	if rho >= 1 {
		return nil, errors.New("mixing: the sweep does not converge (spectral radius ≥ 1)")
	}
	out := make([]float64, n)
	last := make([]float64, n)
	c := mat.DenseCopyOf(sigma)
	var next mat.Dense
	// Terms shrink like ρ^2k. Sum until ρ^2k < 1e-12, or for at most
	// maxTerms terms and then add each coordinate's tail as a geometric
	// series of ratio ρ² from its last term.
	const maxTerms = 2000
	kmax := int(math.Ceil(math.Log(1e-12)/(2*math.Log(math.Max(rho, 1e-300))))) + 1
	for k := 1; k <= min(kmax, maxTerms); k++ {
		next.Mul(g, c)
		c, next = mat.DenseCopyOf(&next), mat.Dense{}
		for i := 0; i < n; i++ {
			r := c.At(i, i) / sigma.At(i, i)
			last[i] = r * r
			out[i] += last[i]
		}
	}
	tail := 0.0
	if kmax > maxTerms {
		tail = rho * rho / (1 - rho*rho)
	}
	for i := range out {
		out[i] = 1 + 2*(out[i]+last[i]*tail)
	}
	return out, nil
}

// iatSquaresEigen is IATSquares by the eigendecomposition, ok = false when
// the decomposition does not reproduce G to 1e-9 or V is near singular.
func iatSquaresEigen(g mat.Matrix, sigma mat.Symmetric) ([]float64, bool) {
	n := sigma.SymmetricDim()
	var eig mat.Eigen
	if !eig.Factorize(g, mat.EigenRight) {
		return nil, false
	}
	lam := eig.Values(nil)
	var v mat.CDense
	eig.VectorsTo(&v)
	vi, ok := cinverse(&v, n)
	if !ok {
		return nil, false
	}
	// Check V Λ V⁻¹ = G.
	gnorm := mat.Norm(g, math.Inf(1))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s complex128
			for m := 0; m < n; m++ {
				s += v.At(i, m) * lam[m] * vi[m][j]
			}
			if cmplx.Abs(s-complex(g.At(i, j), 0)) > 1e-9*gnorm {
				return nil, false
			}
		}
	}
	// B = V⁻¹Σ.
	b := make([][]complex128, n)
	for m := 0; m < n; m++ {
		b[m] = make([]complex128, n)
		for j := 0; j < n; j++ {
			var s complex128
			for k := 0; k < n; k++ {
				s += vi[m][k] * complex(sigma.At(k, j), 0)
			}
			b[m][j] = s
		}
	}
	// K[m][n] = λ_mλ_n/(1 − λ_mλ_n).
	kk := make([][]complex128, n)
	for m := 0; m < n; m++ {
		kk[m] = make([]complex128, n)
		for p := 0; p < n; p++ {
			l := lam[m] * lam[p]
			kk[m][p] = l / (1 - l)
		}
	}
	out := make([]float64, n)
	a := make([]complex128, n)
	for i := 0; i < n; i++ {
		for m := 0; m < n; m++ {
			a[m] = v.At(i, m) * b[m][i]
		}
		var s complex128
		for m := 0; m < n; m++ {
			var row complex128
			for p := 0; p < n; p++ {
				row += kk[m][p] * a[p]
			}
			s += a[m] * row
		}
		out[i] = 1 + 2*real(s)/(sigma.At(i, i)*sigma.At(i, i))
	}
	return out, true
}

// cinverse inverts the n×n complex matrix v by Gauss-Jordan elimination
// with partial pivoting; ok is false when a pivot is below 1e-12 of v's
// largest entry.
func cinverse(v *mat.CDense, n int) ([][]complex128, bool) {
	a := make([][]complex128, n)
	inv := make([][]complex128, n)
	big := 0.0
	for i := 0; i < n; i++ {
		a[i] = make([]complex128, n)
		inv[i] = make([]complex128, n)
		inv[i][i] = 1
		for j := 0; j < n; j++ {
			a[i][j] = v.At(i, j)
			big = math.Max(big, cmplx.Abs(a[i][j]))
		}
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if cmplx.Abs(a[r][c]) > cmplx.Abs(a[p][c]) {
				p = r
			}
		}
		if cmplx.Abs(a[p][c]) < 1e-12*big {
			return nil, false
		}
		a[c], a[p] = a[p], a[c]
		inv[c], inv[p] = inv[p], inv[c]
		d := 1 / a[c][c]
		for j := 0; j < n; j++ {
			a[c][j] *= d
			inv[c][j] *= d
		}
		for r := 0; r < n; r++ {
			if r == c || a[r][c] == 0 {
				continue
			}
			f := a[r][c]
			for j := 0; j < n; j++ {
				a[r][j] -= f * a[c][j]
				inv[r][j] -= f * inv[c][j]
			}
		}
	}
	return inv, true
}
