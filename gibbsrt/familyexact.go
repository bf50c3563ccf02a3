package gibbsrt

import (
	"fmt"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// Exact draws with a precision per chain (docs/ARITHMETIC.md, "Exact
// draws with a precision per chain"): DrawExact under SetPrecision factors
// each chain's Q_c = L_c·L_cᵀ (Cholesky, in T) and draws
// x_c = L_c⁻ᵀ·(L_c⁻¹·b_c + z_c), which is N(Q_c⁻¹·b_c, Q_c⁻¹) exactly:
// what an outer sampler whose Gaussian block changes at every iteration
// wants, one independent draw an iteration instead of a Gibbs sweep's
// correlated step. The kernel (gibbs_family_exact) holds a chain's factor
// in registers, so the dims are kernels.FamilyExactMaxDim's.

// drawChain draws chain chain's state xc exactly, gibbs_family_exact's
// arithmetic bit for bit: Q_c's lower triangle a (off the diagonal, the
// fma sum from 0 of s_k·M_k[i][j] in increasing k; on it, the
// conditional precision of conditionals), then for each column j in
// order v = fma(-L[j][k], L[j][k], v) over k < j from a[j][j], L[j][j] =
// sqrt(v), r_j = 1/L[j][j], and for each row i > j, v = fma(-L[i][k],
// L[j][k], v) over k < j from a[i][j], L[i][j] = v·r_j; then y_i = u·r_i
// with u = b_i (+ h_i) and u = fma(-L[i][k], y_k, u) over k < i; then
// t_i = y_i + z_i (z the normals of DrawExact, frame 0 of sweep sweep);
// and, for i from dim-1 down, x_i = u·r_i with u = t_i and u =
// fma(-L[k][i], x_k, u) over k = i+1..dim-1. Each operation is rounded
// once. It returns -1, or the
// first column whose pivot v is not positive and finite, or whose r_j is
// not finite (Q_c is not positive definite in T); then xc is unchanged.
// l (dim·(dim+1)/2), r (dim) and z (Stride(dim)) are scratch.
func (t *familyTables[T]) drawChain(xc []T, fc familyChain[T], seed, chain, sweep uint64, l, r, z []T) int {
	d := len(t.b)
	st := kernels.Stride(d)
	tri := func(i int) []T { return l[i*(i+1)/2:][:i+1] } // row i of L: L[i][0..i]
	t.conditionals(fc, r)
	for i := range d {
		row := tri(i)
		for j := range i {
			var a T
			for k := 0; k < t.members; k++ {
				a = fma(fc.scale(k), t.m[(k*d+i)*st+j], a)
			}
			row[j] = a
		}
		row[i] = r[i]
	}
	for j := range d {
		rj := tri(j)
		v := rj[j]
		for k := range j {
			v = fma(-rj[k], rj[k], v)
		}
		piv := sqrtT(v)
		r[j] = 1 / piv
		if badConditional(v, r[j]) {
			return j
		}
		rj[j] = piv
		for i := j + 1; i < d; i++ {
			ri := tri(i)
			v := ri[j]
			for k := range j {
				v = fma(-ri[k], rj[k], v)
			}
			ri[j] = mul(v, r[j])
		}
	}
	y := xc // y = L⁻¹·b_c, then y + z, then x, in place
	for i := range d {
		u := t.b[i]
		if fc.h != nil {
			u = T(t.b[i] + fc.h[i])
		}
		u = fmaDotNeg(u, tri(i)[:i], y[:i])
		y[i] = mul(u, r[i])
	}
	passNormals(z, seed, chain, sweep, d, 0)
	for i := range d {
		y[i] = T(y[i] + z[i])
	}
	for i := d - 1; i >= 0; i-- {
		u := y[i]
		for k := i + 1; k < d; k++ {
			u = fma(-tri(k)[i], xc[k], u)
		}
		xc[i] = mul(u, r[i])
	}
	return -1
}

// fmaDotNeg is u, then fma(-w[k], x[k], u) for k in increasing order.
func fmaDotNeg[T Float](u T, w, x []T) T {
	for k, v := range w {
		u = fma(-v, x[k], u)
	}
	return u
}

// drawFamily is DrawExact with a precision per chain: every chain drawn
// exactly with its own precision and linear term.
func (r *Reference[T]) drawFamily(x []T, chains int, st Stream) error {
	d, tp := r.dim, r.prec
	if chains == 0 { // as the GPU sampler: nothing to draw, nothing checked
		return nil
	}
	h, err := r.familyTerm(chains)
	if err != nil {
		return err
	}
	t := tp.tables(r.p)
	bad, inf := make([]bool, chains), make([]bool, chains)
	parallelChains(chains, d*d*d, func(lo, hi int) {
		l, rs, z := make([]T, d*(d+1)/2), make([]T, d), make([]T, kernels.Stride(d))
		xc := make([]T, d)
		for c := lo; c < hi; c++ {
			fc := tp.p.chain(c, t.members, d, h)
			if t.drawChain(xc, fc, st.Seed, st.Chain+uint64(c), st.Sweep, l, rs, z) >= 0 {
				bad[c] = true
				continue
			}
			copy(x[c*d:(c+1)*d], xc)
			inf[c] = !finite(xc)
		}
	})
	for c, b := range bad {
		if b {
			return errPrecisionNotDefinite(c)
		}
	}
	for c, b := range inf {
		if b {
			return errPrecisionDrawNotFinite(c)
		}
	}
	return nil
}

// errFamilyExactDim refuses DrawExact with a precision per chain above
// the dims whose factor a thread holds.
func errFamilyExactDim(dim int, dt kernels.DType) error {
	return fmt.Errorf("gibbsrt: DrawExact with a precision per chain (SetPrecision) draws dims up to %d in %s (a chain's Cholesky factor stays in registers); this model has dim %d: sweep it with Sweep instead", kernels.FamilyExactMaxDim(dt), dt, dim)
}

// errPrecisionNotDefinite names a chain whose Q_c has no Cholesky factor
// in T.
func errPrecisionNotDefinite(chain int) error {
	return &chainError{chain: chain, ran: true, text: func(c int) string {
		return fmt.Sprintf("gibbsrt: DrawExact: chain %d's precision Q_c is not positive definite (a Cholesky pivot is not positive and finite in the sampler's precision); the chain was left unchanged, the others drawn", c)
	}}
}

// errPrecisionDrawNotFinite names a chain whose exact draw is not finite.
func errPrecisionDrawNotFinite(chain int) error {
	return &chainError{chain: chain, ran: true, text: func(c int) string {
		return fmt.Sprintf("gibbsrt: DrawExact: chain %d's draw is not finite: its linear term is not finite, or its mean overflows; the other chains were drawn", c)
	}}
}
