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
// from Q, mu and the over-relaxation ω and rounded once to T. With
// c[i][j] = -Q[i][j]/Q[i][i], the conditional mean of x_i given the rest is
//
//	m_i = E[x_i | x_-i] = mu_i + Σ_{j≠i} c[i][j]·(x_j − mu_j),
//
// its standard deviation 1/sqrt(Q[i][i]), and the update of x_i is
// x_i ← (1−ω)·x_i + ω·m_i + sqrt(ω(2−ω))/sqrt(Q[i][i])·z (ω = 1: plain
// Gibbs). The tables hold ω·m_i's terms:
//
//	Weight[j*Stride+i] = ω·c[i][j],   Offset[i] = ω·(mu_i − Σ_{j≠i} c[i][j]·mu_j),
//	Scale[i] = sqrt(ω(2−ω))/sqrt(Q[i][i]),   Keep = 1 − ω,
//
// each in two frames (kernels.Frames): frame 0 for the coordinates in
// order, and after it frame 1, the same tables for the reversed order
// (position p is coordinate Dim−1−p), which backward passes use. At ω = 1
// the tables are exactly those of plain Gibbs sampling.
type Coefficients[T Float] struct {
	Dim    int
	Stride int     // row stride of Weight: Dim rounded up to a multiple of 4
	Omega  float64 // the over-relaxation the tables are for
	Weight []T     // [2][Dim*Stride]: Weight[f*Dim*Stride + j*Stride + i], the weight of position j in position i's mean; 0 on the diagonal and in padding
	Offset []T     // [2][Dim]
	Scale  []T     // [2][Dim]
	Keep   T       // 1 − ω
}

// Stride returns the padded row length of the weight table for dim: a
// multiple of four, so that rows can be read as float4.
func Stride(dim int) int { return kernels.Stride(dim) }

// NewCoefficients validates the model and returns its kernel tables for
// plain Gibbs sweeps (ω = 1). Q is the dim×dim precision matrix (inverse
// covariance) and mu the mean. Every rejection names the entry or
// condition that failed.
func NewCoefficients[T Float](dim int, Q [][]float64, mu []float64) (*Coefficients[T], error) {
	return newRelaxedCoefficients[T](dim, Q, mu, 1)
}

// newRelaxedCoefficients is NewCoefficients for over-relaxation omega in
// (0, 2).
func newRelaxedCoefficients[T Float](dim int, Q [][]float64, mu []float64, omega float64) (*Coefficients[T], error) {
	if !(omega > 0 && omega < 2) {
		return nil, fmt.Errorf("gibbsrt: over-relaxation ω = %v; it must lie in (0, 2)", omega)
	}
	q, err := validated(dim, Q, mu)
	if err != nil {
		return nil, err
	}
	return relaxedCoefficients[T](q, mu, omega)
}

// relaxedCoefficients computes the tables of a validated model: q is the
// symmetric part of Q.
func relaxedCoefficients[T Float](q *mat.SymDense, mu []float64, omega float64) (*Coefficients[T], error) {
	dim := q.SymmetricDim()
	st := Stride(dim)
	frame := dim * st
	co := &Coefficients[T]{
		Dim:    dim,
		Stride: st,
		Omega:  omega,
		Weight: make([]T, kernels.Frames*frame),
		Offset: make([]T, kernels.Frames*dim),
		Scale:  make([]T, kernels.Frames*dim),
		Keep:   T(1 - omega),
	}
	noise := math.Sqrt(omega * (2 - omega))
	var why string
	for i := 0; i < dim; i++ {
		qii := q.At(i, i)
		off := mu[i]
		for j := 0; j < dim; j++ {
			if j == i {
				continue
			}
			c := -q.At(i, j) / qii
			if co.Weight[j*st+i], why = roundTable[T](omega * c); why != "" {
				return nil, modelErr(i, j, "weight[%d][%d] = ω·(−Q[%d][%d]/Q[%d][%d]) = %.6g %s", j, i, i, j, i, i, omega*c, why)
			}
			off -= c * mu[j]
		}
		if co.Offset[i], why = roundTable[T](omega * off); why != "" {
			return nil, modelErr(i, -1, "offset[%d], the conditional mean's constant term of coordinate %d, = %.6g %s", i, i, omega*off, why)
		}
		if co.Scale[i], why = roundTable[T](noise / math.Sqrt(qii)); why != "" || co.Scale[i] == 0 {
			if why == "" {
				why = "is zero"
			}
			return nil, modelErr(i, i, "scale[%d] = sqrt(ω(2−ω))/sqrt(Q[%d][%d]) = %.6g %s", i, i, i, noise/math.Sqrt(qii), why)
		}
	}
	// Frame 1: position p is coordinate dim-1-p.
	for p := 0; p < dim; p++ {
		co.Offset[dim+p] = co.Offset[dim-1-p]
		co.Scale[dim+p] = co.Scale[dim-1-p]
		for q := 0; q < dim; q++ {
			co.Weight[frame+q*st+p] = co.Weight[(dim-1-q)*st+dim-1-p]
		}
	}
	return co, nil
}

// roundTable rounds a table value v, computed in float64, to T, and says
// why T cannot hold it, if it cannot: it overflows, it is not a number,
// it is nonzero and underflows to zero, or it falls below T's smallest
// normal number, where it keeps less than T's precision (every table
// value multiplies a state or a normal in every sweep, so such a value
// would change the sampler's distribution silently).
func roundTable[T Float](v float64) (T, string) {
	r := T(v)
	tiny := math.SmallestNonzeroFloat64 * (1 << 52) // float64's smallest normal
	if _, ok := any(r).(float32); ok {
		tiny = 0x1p-126
	}
	switch a := math.Abs(float64(r)); {
	case math.IsNaN(v):
		return r, "is not a number"
	case math.IsInf(float64(r), 0):
		return r, fmt.Sprintf("overflows %s", typeName[T]())
	case v != 0 && r == 0:
		return r, fmt.Sprintf("underflows to zero in %s", typeName[T]())
	case v != 0 && a < tiny:
		return r, fmt.Sprintf("is below %s's smallest normal number %.6g and would lose precision", typeName[T](), tiny)
	}
	return r, ""
}

// ValidateModel checks Q and mu for a dim-dimensional sampler: shapes, finite
// entries, symmetry within SymmetryTolerance, a positive diagonal, and positive
// definiteness by Cholesky factorization.
func ValidateModel(dim int, Q [][]float64, mu []float64) error {
	_, err := validated(dim, Q, mu)
	return err
}

// validated is ValidateModel that also returns the symmetric part of Q,
// (Q + Qᵀ)/2, which the tables are computed from: one pass of checks and
// one Cholesky factorization per model.
func validated(dim int, Q [][]float64, mu []float64) (*mat.SymDense, error) {
	if dim < 1 {
		return nil, modelErr(-1, -1, "dim = %d; it must be at least 1", dim)
	}
	if len(Q) != dim {
		return nil, modelErr(-1, -1, "Q has %d rows, want %d", len(Q), dim)
	}
	for i, row := range Q {
		if len(row) != dim {
			return nil, modelErr(i, -1, "Q row %d has %d entries, want %d (Q must be %d×%d)", i, len(row), dim, dim, dim)
		}
	}
	if len(mu) != dim {
		return nil, modelErr(-1, -1, "mu has %d entries, want %d", len(mu), dim)
	}
	for i, row := range Q {
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, modelErr(i, j, "Q[%d][%d] is %v; entries must be finite", i, j, v)
			}
		}
	}
	for i, v := range mu {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, modelErr(i, -1, "mu[%d] is %v; entries must be finite", i, v)
		}
	}
	for i := 0; i < dim; i++ {
		if !(Q[i][i] > 0) {
			return nil, modelErr(i, i, "Q[%d][%d] = %g; the diagonal must be positive", i, i, Q[i][i])
		}
	}
	for i := 0; i < dim; i++ {
		for j := i + 1; j < dim; j++ {
			d := math.Abs(Q[i][j] - Q[j][i])
			if lim := SymmetryTolerance * math.Sqrt(Q[i][i]*Q[j][j]); d > lim {
				return nil, modelErr(i, j, "Q is not symmetric: Q[%d][%d] = %g but Q[%d][%d] = %g (difference %g > tolerance %g)", i, j, Q[i][j], j, i, Q[j][i], d, lim)
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
		return nil, modelErr(-1, -1, "%s", msg)
	}
	return sym, nil
}

// Frame returns frame f's tables (0: the coordinates in order; 1:
// reversed), as slices of Weight, Offset and Scale; nil slices for any
// other f.
func (co *Coefficients[T]) Frame(f int) (weight, offset, scale []T) {
	if f < 0 || f >= kernels.Frames {
		return nil, nil, nil
	}
	n := co.Dim * co.Stride
	return co.Weight[f*n : (f+1)*n], co.Offset[f*co.Dim : (f+1)*co.Dim], co.Scale[f*co.Dim : (f+1)*co.Dim]
}
