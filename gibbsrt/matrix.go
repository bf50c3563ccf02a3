package gibbsrt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// Form is the arithmetic of a sweep's passes (docs/GUIDE.md, "The matrix
// form").
// Both forms draw the same normals and leave N(mu, Q⁻¹) invariant; their
// states differ by rounding only. The form is part of the Scheme, not of
// the launch, so that how chains and sweeps are split into calls, and the
// strategy Auto picks, never change a result.
type Form int

const (
	// FormAuto is the package's default form: FormSequential (see
	// Scheme.Form).
	FormAuto Form = iota
	// FormSequential updates coordinates one after another from their
	// conditionals, in docs/ARITHMETIC.md's update order: every strategy but
	// Matrix runs it.
	FormSequential
	// FormMatrix runs each pass as x' = M·x + c + N·z with tables computed
	// in float64 and rounded once to the dtype: no coordinate waits for
	// the one before, and the Matrix strategy runs it.
	FormMatrix
)

func (f Form) String() string {
	switch f {
	case FormAuto:
		return "auto"
	case FormSequential:
		return "sequential"
	case FormMatrix:
		return "matrix"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// resolve returns the form f stands for.
func (f Form) resolve() Form {
	if f == FormAuto {
		return FormSequential
	}
	return f
}

// MatrixTables are the matrix form's tables, rounded once to T from their
// float64 values. Frame f of M, N and C is a forward pass over the
// positions of frame f (0: the coordinates in order; 1: reversed, for
// backward passes), with A = D/ω + L the lower triangle of frame f's Q
// with its diagonal divided by ω:
//
//	M = A⁻¹·((1/ω − 1)·D − U),   C = A⁻¹·Q·mu,   N = A⁻¹·sqrt((2−ω)/ω)·D^½,
//
// so that a pass is x' = M·x + C + N·z, z the pass's normals by position;
// N is lower triangular. Frame 2 draws exact samples: C = mu and N =
// (Uᵀ)⁻¹ for Q = U·Uᵀ, U upper triangular (a Cholesky factorization of Q
// in reversed order), so that N·Nᵀ = Q⁻¹ and N is lower triangular too.
// Each table is stored as the kernel reads it, by the matrix row's layout
// functions: transposed, rows of Stride elements (kernels.MatrixShape),
// M[kernels.MatrixAt(Dim, Stride, f, i, k)] = M_f[i][k] at
// (f·Dim + k)·Stride + i, and C[kernels.MatrixVectorAt(Stride, f, i)] =
// c_f[i] at f·Stride + i.
type MatrixTables[T Float] struct {
	Dim, Stride int
	M           []T // [2][Dim][Stride]
	N           []T // [3][Dim][Stride]
	C           []T // [3][Stride]
}

// newMatrixTables computes the tables of q (symmetric) and mu at ω.
func newMatrixTables[T Float](q *mat.SymDense, mu []float64, omega float64) (*MatrixTables[T], error) {
	d := q.SymmetricDim()
	st := kernels.MatrixShapeOf(d, dtypeOf[T]()).Stride
	mt := &MatrixTables[T]{Dim: d, Stride: st,
		M: make([]T, 2*d*st), N: make([]T, kernels.MatrixFrames*d*st), C: make([]T, kernels.MatrixFrames*st)}
	for f := 0; f < 2; f++ {
		m, c, n := forwardPass(q, mu, omega, f == 1)
		if err := mt.put(f, m, c, n); err != nil {
			return nil, err
		}
	}
	n, err := exactFactor(q)
	if err != nil {
		return nil, err
	}
	if err := mt.put(2, nil, mu, n); err != nil {
		return nil, err
	}
	return mt, nil
}

// put rounds frame f's tables to T (m nil: none), refusing a value T
// cannot hold.
func (mt *MatrixTables[T]) put(f int, m *mat.Dense, c []float64, n *mat.Dense) error {
	d, st := mt.Dim, mt.Stride
	// Overflow is refused; an entry of M or N that underflows is the decay
	// of a dense inverse far from the diagonal, below what T resolves next
	// to the others (the sequential tables, checked first, refuse offsets
	// and scales T cannot hold).
	round := func(table string, i, k int, v float64) (T, error) {
		r := T(v)
		if math.IsInf(float64(r), 0) || math.IsNaN(v) {
			return 0, modelErr(i, k, "matrix form: %s[%d][%d] of frame %d = %g overflows %s", table, i, k, f, v, typeName[T]())
		}
		return r, nil
	}
	var err error
	for i := 0; i < d; i++ {
		if mt.C[kernels.MatrixVectorAt(st, f, i)], err = round("c", i, -1, c[i]); err != nil {
			return err
		}
		for k := 0; k < d; k++ {
			if m != nil {
				if mt.M[kernels.MatrixAt(d, st, f, i, k)], err = round("M", i, k, m.At(i, k)); err != nil {
					return err
				}
			}
			if k <= i {
				if mt.N[kernels.MatrixAt(d, st, f, i, k)], err = round("N", i, k, n.At(i, k)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// forwardPass returns the float64 tables M, c and N of a forward pass at ω
// over q and mu, or over both reversed (position p: coordinate dim−1−p).
func forwardPass(q *mat.SymDense, mu []float64, omega float64, reversed bool) (m *mat.Dense, c []float64, n *mat.Dense) {
	d := q.SymmetricDim()
	at := func(i, j int) float64 {
		if reversed {
			return q.At(d-1-i, d-1-j)
		}
		return q.At(i, j)
	}
	mean := func(i int) float64 {
		if reversed {
			return mu[d-1-i]
		}
		return mu[i]
	}
	a := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: d, Stride: d, Data: make([]float64, d*d)}
	// The right-hand sides [B | S | Q·mu], solved together.
	rhs := blas64.General{Rows: d, Cols: 2*d + 1, Stride: 2*d + 1, Data: make([]float64, d*(2*d+1))}
	noise := math.Sqrt((2 - omega) / omega)
	for i := 0; i < d; i++ {
		row := rhs.Data[i*rhs.Stride:]
		b := 0.0
		for j := 0; j < d; j++ {
			qij := at(i, j)
			b += qij * mean(j)
			switch {
			case j < i:
				a.Data[i*d+j] = qij
			case j == i:
				a.Data[i*d+i] = qij / omega
				row[j] = (1/omega - 1) * qij
			default:
				row[j] = -qij
			}
		}
		row[d+i] = noise * math.Sqrt(at(i, i))
		row[2*d] = b
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, a, rhs)
	m, n = mat.NewDense(d, d, nil), mat.NewDense(d, d, nil)
	c = make([]float64, d)
	for i := 0; i < d; i++ {
		row := rhs.Data[i*rhs.Stride:]
		for j := 0; j < d; j++ {
			m.Set(i, j, row[j])
			n.Set(i, j, row[d+j])
		}
		c[i] = row[2*d]
	}
	return m, c, n
}

// exactFactor returns (Uᵀ)⁻¹ for Q = U·Uᵀ, U upper triangular: the
// Cholesky factor L of Q with its coordinates reversed gives U.
func exactFactor(q *mat.SymDense) (*mat.Dense, error) {
	d := q.SymmetricDim()
	rev := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			rev.SetSym(i, j, q.At(d-1-i, d-1-j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(rev) {
		return nil, modelErr(-1, -1, "Q is not positive definite: Cholesky factorization failed")
	}
	var l mat.TriDense
	ch.LTo(&l)
	// Uᵀ[i][j] = U[j][i] = L[d−1−j][d−1−i]: lower triangular.
	ut := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: d, Stride: d, Data: make([]float64, d*d)}
	id := blas64.General{Rows: d, Cols: d, Stride: d, Data: make([]float64, d*d)}
	for i := 0; i < d; i++ {
		id.Data[i*d+i] = 1
		for j := 0; j <= i; j++ {
			ut.Data[i*d+j] = l.At(d-1-j, d-1-i)
		}
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, ut, id)
	return mat.NewDense(d, d, id.Data), nil
}

// pass runs a pass of the matrix form in frame f (2: an exact draw) on x,
// held in frame f's order, with z the pass's normals by position times g;
// next is scratch of Dim elements. Each output is
//
//	acc = C[i];  acc = fma(M[i][k], x_k, acc) for k = 0, …, Dim−1 (not in frame 2);
//	acc = fma(N[i][p], g·z_p, acc) for p = 0, …, i;  x'_i = acc,
//
// every fma and product rounded once to T: the order the kernel uses.
//
// It runs column by column, which keeps each output's order of fmas and
// reads the tables in the order they are laid out (column k of frame f is
// contiguous): at large dims the row-by-row loop spent most of its time
// waiting on memory.
func (mt *MatrixTables[T]) pass(x, z, next []T, f int, g T) {
	d, st := mt.Dim, mt.Stride
	for p := 0; p < d; p++ {
		z[p] = mul(g, z[p])
	}
	acc := next[:d]
	copy(acc, mt.C[kernels.MatrixVectorAt(st, f, 0):])
	if f < 2 {
		for k := 0; k < d; k++ {
			fmaColumn(acc, mt.M[kernels.MatrixAt(d, st, f, 0, k):], x[k])
		}
	}
	for p := 0; p < d; p++ {
		fmaColumn(acc[p:], mt.N[kernels.MatrixAt(d, st, f, p, p):], z[p])
	}
	copy(x, acc)
}
