package gibbsrt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// SymmetryTolerance is the relative tolerance of SetModel's symmetry check:
// Q is accepted when |Q[i][j] - Q[j][i]| <= SymmetryTolerance·sqrt(Q[i][i]·Q[j][j])
// for every i, j. The scale makes the check invariant to rescaling
// coordinates, and 1e-6 admits a matrix assembled in float32 arithmetic. The
// sampler uses the symmetric part (Q + Qᵀ)/2.
const SymmetryTolerance = 1e-6

// ModelError reports why a precision matrix or mean was rejected.
type ModelError struct {
	Row, Col int    // the offending entry, or -1 where none applies
	Msg      string // what is wrong
}

func (e *ModelError) Error() string { return "gibbsrt: " + e.Msg }

func modelErr(row, col int, format string, args ...any) error {
	return &ModelError{Row: row, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// Coefficients are the per-model tables the kernels read, computed in float64
// from Q and mu and rounded once to T. With c[i][j] = -Q[i][j]/Q[i][i],
// the conditional mean of x_i given the rest is
//
//	E[x_i | x_-i] = Offset[i] + Σ_{j≠i} c[i][j]·x_j,   Offset[i] = mu_i - Σ_{j≠i} c[i][j]·mu_j
//
// and its standard deviation is Scale[i] = 1/sqrt(Q[i][i]).
type Coefficients[T Float] struct {
	Dim    int
	Stride int // row stride of Weight: Dim rounded up to a multiple of 4
	Weight []T // Weight[j*Stride+i] = c[i][j], the weight of x_j in x_i's mean; 0 on the diagonal and in padding
	Offset []T // Offset[i]
	Scale  []T // Scale[i]
}

// Stride returns the padded row length of the weight table for dim: a
// multiple of four, so that rows can be read as float4.
func Stride(dim int) int { return kernels.Stride(dim) }

// NewCoefficients validates the model and returns its kernel tables. Q is
// the dim×dim precision matrix (inverse covariance) and mu the mean. Every
// rejection names the entry or condition that failed.
func NewCoefficients[T Float](dim int, Q [][]float64, mu []float64) (*Coefficients[T], error) {
	if err := ValidateModel(dim, Q, mu); err != nil {
		return nil, err
	}
	st := Stride(dim)
	co := &Coefficients[T]{
		Dim:    dim,
		Stride: st,
		Weight: make([]T, dim*st),
		Offset: make([]T, dim),
		Scale:  make([]T, dim),
	}
	for i := 0; i < dim; i++ {
		qii := Q[i][i]
		off := mu[i]
		for j := 0; j < dim; j++ {
			if j == i {
				continue
			}
			c := -0.5 * (Q[i][j] + Q[j][i]) / qii
			co.Weight[j*st+i] = T(c)
			off -= c * mu[j]
		}
		co.Offset[i] = T(off)
		co.Scale[i] = T(1 / math.Sqrt(qii))
		if math.IsInf(float64(co.Offset[i]), 0) {
			return nil, modelErr(i, -1, "conditional mean offset of coordinate %d is %g, beyond %s range", i, off, typeName[T]())
		}
	}
	for k, w := range co.Weight {
		if math.IsInf(float64(w), 0) {
			return nil, modelErr(k%st, k/st, "weight -Q[%d][%d]/Q[%d][%d] overflows %s", k%st, k/st, k%st, k%st, typeName[T]())
		}
	}
	return co, nil
}

// ValidateModel checks Q and mu for a dim-dimensional sampler: shapes, finite
// entries, symmetry within SymmetryTolerance, a positive diagonal, and positive
// definiteness by Cholesky factorization.
func ValidateModel(dim int, Q [][]float64, mu []float64) error {
	if len(Q) != dim {
		return modelErr(-1, -1, "Q has %d rows, want %d", len(Q), dim)
	}
	for i, row := range Q {
		if len(row) != dim {
			return modelErr(i, -1, "Q row %d has %d entries, want %d (Q must be %d×%d)", i, len(row), dim, dim, dim)
		}
	}
	if len(mu) != dim {
		return modelErr(-1, -1, "mu has %d entries, want %d", len(mu), dim)
	}
	for i, row := range Q {
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return modelErr(i, j, "Q[%d][%d] is %v; entries must be finite", i, j, v)
			}
		}
	}
	for i, v := range mu {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return modelErr(i, -1, "mu[%d] is %v; entries must be finite", i, v)
		}
	}
	for i := 0; i < dim; i++ {
		if !(Q[i][i] > 0) {
			return modelErr(i, i, "Q[%d][%d] = %g; the diagonal must be positive", i, i, Q[i][i])
		}
	}
	for i := 0; i < dim; i++ {
		for j := i + 1; j < dim; j++ {
			d := math.Abs(Q[i][j] - Q[j][i])
			if lim := SymmetryTolerance * math.Sqrt(Q[i][i]*Q[j][j]); d > lim {
				return modelErr(i, j, "Q is not symmetric: Q[%d][%d] = %g but Q[%d][%d] = %g (difference %g > tolerance %g)", i, j, Q[i][j], j, i, Q[j][i], d, lim)
			}
		}
	}
	sym := mat.NewSymDense(dim, nil)
	for i := 0; i < dim; i++ {
		for j := i; j < dim; j++ {
			sym.SetSym(i, j, 0.5*(Q[i][j]+Q[j][i]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		msg := "Q is not positive definite: Cholesky factorization failed"
		var eig mat.EigenSym
		if eig.Factorize(sym, false) {
			msg += fmt.Sprintf(" (smallest eigenvalue %g)", eig.Values(nil)[0])
		}
		return modelErr(-1, -1, "%s", msg)
	}
	return nil
}
