package gibbsrt

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// A linear term per chain (docs/ARITHMETIC.md, "A linear term per chain";
// docs/GUIDE.md, "A linear term per chain"): SetLinear gives chain c the
// target N(mu + Q⁻¹·h_c, Q⁻¹), the model's precision with the linear term
// Q·mu + h_c, as the Gaussian block of a larger sampler has at every outer
// iteration. Gibbs sweeps, the matrix form and exact draws all commute
// with a shift of the state: if x is a chain of N(mu, Q⁻¹), x + d is one
// of N(mu + d, Q⁻¹) with the same normals. So the sampler computes the
// shifts d_c = Q⁻¹·h_c once per SetLinear (and per model), and every call
// runs the model's kernels on x − d_c and hands back the result plus d_c
// (Chebyshev's previous iterates and a trace's records too): no kernel
// changes, every strategy, scheme and form, and the twin computes the same
// bits.

// checkLinear checks a linear term h for a dim-dimensional model: a whole
// number of chains, every element finite. It returns the chain count.
func checkLinear[T Float](dim int, h []T) (int, error) {
	if dim < 1 || len(h)%dim != 0 {
		return 0, fmt.Errorf("gibbsrt: SetLinear: len(h) = %d is not a multiple of dim %d ([chains][dim], row-major)", len(h), dim)
	}
	if e := firstNonFinite(h); e >= 0 {
		return 0, fmt.Errorf("gibbsrt: SetLinear: h[%d][%d] = %v (chain %d, coordinate %d); every element must be finite", e/dim, e%dim, h[e], e/dim, e%dim)
	}
	return len(h) / dim, nil
}

// errLinearChains is a call's error where the linear term was set for
// another chain count.
func errLinearChains(set, call int) error {
	return fmt.Errorf("gibbsrt: the linear term (SetLinear) is for %d chains; this call has %d (set it for them, or clear it with SetLinear(nil))", set, call)
}

// errLinearShift names the first chain whose shift is not finite.
func errLinearShift(chain int) error {
	return &chainError{chain: chain, text: func(c int) string {
		return fmt.Sprintf("gibbsrt: SetLinear: chain %d's mean shift Q⁻¹·h is not finite (its h overflows the dtype through Q⁻¹, or is not finite); the linear term is unchanged", c)
	}}
}

// inverse returns Q⁻¹ of the plan's model in float64, element (k, i) at
// k*dim + i (it is symmetric), computed on first use and shared by the
// plans of the same model under other schemes.
func (p *plan[T]) inverse() ([]float64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inv != nil {
		return p.inv, nil
	}
	var ch mat.Cholesky
	if !ch.Factorize(p.q) {
		return nil, modelErr(-1, -1, "Q is not positive definite: Cholesky factorization failed")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, modelErr(-1, -1, "Q⁻¹: %v", err)
	}
	d := p.dim
	out := make([]float64, d*d)
	for k := 0; k < d; k++ {
		for i := 0; i < d; i++ {
			out[k*d+i] = inv.At(k, i)
		}
	}
	p.inv = out
	return out, nil
}

// linearShifts computes the shifts of the chains of h as gibbs_linear
// does: d[c][i] = the float64 fma chain over k = 0..dim-1 of inv[k][i]·h[c][k]
// from 0, rounded once to T. It returns the first chain whose shift is
// not finite, or -1.
func linearShifts[T Float](inv []float64, h []T, dim int) ([]T, int) {
	d := make([]T, len(h))
	chains := len(h) / dim
	bad := make([]int, chains)
	parallelChains(chains, dim*dim, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			hc, dc := h[c*dim:(c+1)*dim], d[c*dim:(c+1)*dim]
			bad[c] = -1
			for i := range dc {
				acc := 0.0
				for k, v := range hc {
					acc = math.FMA(inv[k*dim+i], float64(v), acc)
				}
				dc[i] = T(acc)
				if f := float64(dc[i]); math.IsNaN(f) || math.IsInf(f, 0) {
					bad[c] = c
				}
			}
		}
	})
	for _, b := range bad {
		if b >= 0 {
			return d, b
		}
	}
	return d, -1
}

// shiftChain is gibbs_shift on one chain, or on states of as many chains
// as d: x[i] − d[i] (sub) or x[i] + d[i], each rounded once to T.
func shiftChain[T Float](x, d []T, sub bool) {
	for i, v := range d {
		if sub {
			x[i] = T(x[i] - v)
		} else {
			x[i] = T(x[i] + v)
		}
	}
}

// twinLinear is the twin's linear term: h, its chain count, and the shifts
// of the model they were computed for (q).
type twinLinear[T Float] struct {
	h      []T
	chains int
	q      *mat.SymDense
	d      []T
}

// shifts returns the shifts of l for p's model, computing them if the
// model changed.
func (l *twinLinear[T]) shifts(p *plan[T]) ([]T, error) {
	if l.q == p.q {
		return l.d, nil
	}
	inv, err := p.inverse()
	if err != nil {
		return nil, err
	}
	d, bad := linearShifts(inv, l.h, p.dim)
	if bad >= 0 {
		return nil, errLinearShift(bad)
	}
	l.q, l.d = p.q, d
	return d, nil
}

// SetLinear sets a linear term per chain, h ([chains][dim], row-major):
// later calls give chain c of their state the target N(mu + Q⁻¹·h_c,
// Q⁻¹), with Q and mu those of SetModel (with mu = 0, h_c is the whole
// linear term: Q·x's mean is h_c). Every call must then have that many
// chains. nil (or empty) clears it. It needs a model, and SetModel keeps it
// (computing its shifts for the new model). On an error nothing changes.
func (r *Reference[T]) SetLinear(h []T) error {
	if err := r.ready("SetLinear"); err != nil {
		return err
	}
	if len(h) == 0 {
		r.lin = nil
		return nil
	}
	chains, err := checkLinear(r.dim, h)
	if err != nil {
		return err
	}
	l := &twinLinear[T]{h: append([]T(nil), h...), chains: chains}
	if _, err := l.shifts(r.p); err != nil {
		return err
	}
	r.lin = l
	return nil
}

// Inverse returns Q⁻¹ of the installed model in float64, element (k, i)
// at k*dim + i, as the GPU sampler gives it to the kernel gibbs_linear
// (the manifest's p): for a host that loads a module's kernels itself,
// and for the kernels' tests. It is an error before SetModel.
func (r *Reference[T]) Inverse() ([]float64, error) {
	if err := r.ready("Inverse"); err != nil {
		return nil, err
	}
	inv, err := r.p.inverse()
	return slices.Clone(inv), err
}

// linearFor returns the shifts of the twin's linear term for a call of
// chains chains, or nil without one.
func (r *Reference[T]) linearFor(chains int) ([]T, error) {
	if r.lin == nil {
		return nil, nil
	}
	if r.lin.chains != chains {
		return nil, errLinearChains(r.lin.chains, chains)
	}
	return r.lin.shifts(r.p)
}
