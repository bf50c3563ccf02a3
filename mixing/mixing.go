// Package mixing computes, in float64, how fast Gibbs sweeps on
// N(mu, Q⁻¹) forget their start: the iteration operator of plain,
// over-relaxed (SOR) and symmetric sweeps, its spectral radius, the sweeps
// it needs to cut an error by a given factor, the over-relaxation ω
// that minimizes them, the integrated autocorrelation times of the
// stationary chain (iat.go), Chebyshev acceleration (ssor.go), and where a
// batch of chains started at one point is expected to cross a burn-in
// threshold (curves.go). It is also the home of the sweep kinds (Sweep) and
// of the runtime's ω-tuning policy (tune.go: Tune, ChooseOmega, Predict). It is the host-side arithmetic of over-relaxed
// sampling (Adler 1981; Fox & Parker, Bernoulli 2017): the update
//
//	x_i ← (1−ω)·x_i + ω·m_i + sqrt(ω(2−ω))·z/√Q_ii,   0 < ω < 2,
//
// with m_i the conditional mean, leaves N(mu, Q⁻¹) invariant, and its mean
// error e = x − mu evolves as e ← G·e, deterministically. ω = 1 is plain
// Gibbs.
package mixing

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/mat"
)

// Operator returns the mean-error operator G of one sweep with
// over-relaxation omega: after the sweep, e' = G·e. With Q = D + L + U
// (diagonal, strictly lower, strictly upper part),
//
//	forward:   G_f = (D + ωL)⁻¹ ((1−ω)D − ωU)
//	backward:  G_b = (D + ωU)⁻¹ ((1−ω)D − ωL)
//	symmetric: G_s = G_b·G_f
//
// (a sweep of several passes is the product of its passes' operators,
// the last on the left: Sweep.Frames).
func Operator(q mat.Symmetric, omega float64, s Sweep) (*mat.Dense, error) {
	if !(omega > 0 && omega < 2) {
		return nil, fmt.Errorf("mixing: ω = %v: it must lie in (0, 2)", omega)
	}
	n := q.SymmetricDim()
	for i := 0; i < n; i++ {
		if !(q.At(i, i) > 0) {
			return nil, fmt.Errorf("mixing: Q[%d][%d] = %v: the diagonal must be positive", i, i, q.At(i, i))
		}
	}
	half := func(lower bool) *mat.Dense {
		// (D + ω·T) and ((1−ω)D − ω·T') for the triangle T updated first.
		a, b := mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := q.At(i, j)
				switch {
				case i == j:
					a.Set(i, j, v)
					b.Set(i, j, (1-omega)*v)
				case (j < i) == lower:
					a.Set(i, j, omega*v)
				default:
					b.Set(i, j, -omega*v)
				}
			}
		}
		var g mat.Dense
		if err := g.Solve(a, b); err != nil {
			return nil
		}
		return &g
	}
	gf, gb := half(true), half(false)
	if gf == nil || gb == nil {
		return nil, errors.New("mixing: the sweep's triangular system is singular")
	}
	frames := s.Frames()
	if frames == nil {
		return nil, fmt.Errorf("mixing: unknown sweep %d", int(s))
	}
	pass := [2]*mat.Dense{gf, gb} // by frame
	g := pass[frames[0]]
	for _, f := range frames[1:] {
		var next mat.Dense
		next.Mul(pass[f], g)
		g = &next
	}
	return g, nil
}

// SpectralRadius is the largest |λ| of g's eigenvalues: the factor by
// which the mean error shrinks per sweep, in the long run.
func SpectralRadius(g mat.Matrix) (float64, error) {
	var eig mat.Eigen
	if !eig.Factorize(g, mat.EigenNone) {
		return 0, errors.New("mixing: the eigenvalue decomposition did not converge")
	}
	r := 0.0
	for _, v := range eig.Values(nil) {
		r = math.Max(r, cmplx.Abs(v))
	}
	return r, nil
}

// Sweeps is how many sweeps at rate rho cut an error by the factor
// reduction (1e-3 for 1000×): the least k with rho^k ≤ reduction.
func Sweeps(rho, reduction float64) int {
	switch {
	case rho <= 0:
		return 1
	case rho >= 1:
		return math.MaxInt
	}
	return int(math.Ceil(math.Log(reduction) / math.Log(rho)))
}

// Rate is the spectral radius of one sweep with over-relaxation omega.
func Rate(q mat.Symmetric, omega float64, s Sweep) (float64, error) {
	g, err := Operator(q, omega, s)
	if err != nil {
		return 0, err
	}
	return SpectralRadius(g)
}

// BestOmega returns the ω in (0, 2) that minimizes the spectral radius of
// sweep s, and that radius (Minimize over Rate).
func BestOmega(q mat.Symmetric, s Sweep) (omega, rho float64, err error) {
	return Minimize(func(w float64) (float64, error) { return Rate(q, w, s) })
}

// Minimize returns the ω in (0, 2) at which f is least, and f there: a grid
// of 39 points 0.05 apart, then a golden-section search in the bracket of
// the grid's best point (a forward sweep's radius has a kink at its
// minimum, which golden section handles). f should be unimodal in ω, as
// the radius and the autocorrelation times of these sweeps are; about 70
// evaluations of f.
func Minimize(f func(omega float64) (float64, error)) (omega, value float64, err error) {
	return minimize(f, 39, 30)
}

// MinimizeCoarse is Minimize with a grid of 19 points 0.1 apart and 20
// golden-section steps: about 40 evaluations, for a smooth, costly f.
func MinimizeCoarse(f func(omega float64) (float64, error)) (omega, value float64, err error) {
	return minimize(f, 19, 20)
}

func minimize(f func(omega float64) (float64, error), n, steps int) (omega, value float64, err error) {
	step := 2.0 / float64(n+1)
	best, bestV := 1.0, math.Inf(1)
	for k := 1; k <= n; k++ {
		w := step * float64(k)
		v, err := f(w)
		if err != nil {
			return 0, 0, err
		}
		if v < bestV {
			best, bestV = w, v
		}
	}
	lo, hi := math.Max(best-step, 1e-6), math.Min(best+step, 2-1e-6)
	const phi = 0.6180339887498949
	a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
	va, err := f(a)
	if err != nil {
		return 0, 0, err
	}
	vb, err := f(b)
	if err != nil {
		return 0, 0, err
	}
	for it := 0; it < steps; it++ {
		if va < vb {
			hi, b, vb = b, a, va
			a = hi - phi*(hi-lo)
			if va, err = f(a); err != nil {
				return 0, 0, err
			}
		} else {
			lo, a, va = a, b, vb
			b = lo + phi*(hi-lo)
			if vb, err = f(b); err != nil {
				return 0, 0, err
			}
		}
	}
	for _, c := range []struct{ w, v float64 }{{a, va}, {b, vb}} {
		if c.v < bestV {
			best, bestV = c.w, c.v
		}
	}
	return best, bestV, nil
}
