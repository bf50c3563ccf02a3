package gibbsrt

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// A precision per chain (docs/GUIDE.md, "A precision per chain";
// docs/ARITHMETIC.md, the same section): SetPrecision gives chain c the
// precision Q_c = Σ_k s_ck·M_k + diag(w_c), with M_0 the model's Q and
// M_1.. a few fixed members, and the linear term b_c = Q·mu + h_c (h_c
// from SetLinear, or 0): the target N(Q_c⁻¹·b_c, Q_c⁻¹). That is the
// Gaussian block of a larger sampler whose other blocks move the scales
// (a noise precision, a prior precision) or the diagonal (the weights of
// data augmentation) at every outer iteration, for every chain. The
// sweeps form each coordinate's conditional from the members in the
// kernel (gibbs_family), so a new precision costs a copy of the scales,
// not a new model; the twin computes the same bits.

// Precision is a precision per chain: chain c's precision is
//
//	Q_c = Σ_k Scales[c·K + k]·M_k + diag(Diag[c·dim : (c+1)·dim])
//
// over k = 0..K-1, K = 1 + len(Members), with M_0 the model's Q (SetModel)
// and M_k = Members[k-1] for k ≥ 1. Scales nil means every scale 1, Diag
// nil no diagonal term; at least one of them sets the chain count.
type Precision[T Float] struct {
	// Members are the fixed matrices beside the model's Q, each dim×dim,
	// finite and symmetric (within SymmetryTolerance of its largest
	// entry); at most kernels.FamilyMaxMembers − 1. They need not be
	// positive definite: only each Q_c must be.
	Members [][][]float64
	// Scales are [chains][K], row-major: chain c's weight of M_k at c·K + k.
	Scales []T
	// Diag is [chains][dim], row-major: chain c's diagonal term.
	Diag []T
}

// familyTables are a precision family's fixed tables in T, as gibbs_family
// reads them: the members' off-diagonal rows, their diagonals, and Q·mu.
type familyTables[T Float] struct {
	members int
	m       []T // [members][dim][Stride(dim)]: m[k][i][j] = M_k[i][j] for j ≠ i, else 0
	md      []T // [members][dim]: M_k[i][i]
	b       []T // [dim]: Q·mu in float64, rounded once
}

// newFamilyTables rounds the model's Q (q), its Q·mu and the members
// (validated) to T.
func newFamilyTables[T Float](q *mat.SymDense, mean []float64, members [][][]float64) *familyTables[T] {
	d := q.SymmetricDim()
	st := kernels.Stride(d)
	k := 1 + len(members)
	t := &familyTables[T]{members: k, m: make([]T, k*d*st), md: make([]T, k*d), b: make([]T, d)}
	at := func(k, i, j int) float64 {
		if k == 0 {
			return q.At(i, j)
		}
		return 0.5 * (members[k-1][i][j] + members[k-1][j][i])
	}
	for mk := 0; mk < k; mk++ {
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				if j == i {
					t.md[mk*d+i] = T(at(mk, i, i))
				} else {
					t.m[(mk*d+i)*st+j] = T(at(mk, i, j))
				}
			}
		}
	}
	var qm mat.VecDense
	qm.MulVec(q, mat.NewVecDense(d, mean))
	for i := range t.b {
		t.b[i] = T(qm.AtVec(i))
	}
	return t
}

// checkPrecision checks p for a dim-dimensional model and returns its
// chain count; the member count K is 1 + len(p.Members).
func checkPrecision[T Float](dim int, p *Precision[T]) (int, error) {
	k := 1 + len(p.Members)
	if k > kernels.FamilyMaxMembers {
		return 0, fmt.Errorf("gibbsrt: SetPrecision: %d members beside the model's Q; at most %d", len(p.Members), kernels.FamilyMaxMembers-1)
	}
	for n, m := range p.Members {
		if err := checkMember(dim, n, m); err != nil {
			return 0, err
		}
	}
	chains := -1
	if p.Scales != nil {
		if len(p.Scales)%k != 0 || len(p.Scales) == 0 {
			return 0, fmt.Errorf("gibbsrt: SetPrecision: len(Scales) = %d is not a positive multiple of K = %d (the model's Q and %d members; [chains][K])", len(p.Scales), k, k-1)
		}
		chains = len(p.Scales) / k
	}
	if p.Diag != nil {
		if len(p.Diag)%dim != 0 || len(p.Diag) == 0 {
			return 0, fmt.Errorf("gibbsrt: SetPrecision: len(Diag) = %d is not a positive multiple of dim %d ([chains][dim])", len(p.Diag), dim)
		}
		n := len(p.Diag) / dim
		if chains >= 0 && n != chains {
			return 0, fmt.Errorf("gibbsrt: SetPrecision: Scales are for %d chains, Diag for %d", chains, n)
		}
		chains = n
	}
	if chains < 0 {
		return 0, errors.New("gibbsrt: SetPrecision: neither Scales nor Diag is set, so there is no precision per chain (SetPrecision(nil) clears one; SetModel sets a precision for all chains)")
	}
	for _, f := range []struct {
		name string
		v    []T
		per  int
	}{{"Scales", p.Scales, k}, {"Diag", p.Diag, dim}} {
		if e := firstNonFinite(f.v); e >= 0 {
			return 0, fmt.Errorf("gibbsrt: SetPrecision: %s[%d] = %v (chain %d, entry %d); every element must be finite", f.name, e, f.v[e], e/f.per, e%f.per)
		}
	}
	return chains, nil
}

// checkMember checks member n (M_{n+1}): dim×dim, finite, symmetric.
func checkMember(dim, n int, m [][]float64) error {
	if len(m) != dim {
		return fmt.Errorf("gibbsrt: SetPrecision: Members[%d] has %d rows, want %d", n, len(m), dim)
	}
	big := 0.0
	for i, row := range m {
		if len(row) != dim {
			return fmt.Errorf("gibbsrt: SetPrecision: Members[%d] row %d has %d entries, want %d", n, i, len(row), dim)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("gibbsrt: SetPrecision: Members[%d][%d][%d] is %v; entries must be finite", n, i, j, v)
			}
			big = max(big, math.Abs(v))
		}
	}
	for i := 0; i < dim; i++ {
		for j := i + 1; j < dim; j++ {
			if d := math.Abs(m[i][j] - m[j][i]); d > SymmetryTolerance*big {
				return fmt.Errorf("gibbsrt: SetPrecision: Members[%d] is not symmetric: [%d][%d] = %g but [%d][%d] = %g (difference %g > tolerance %g)", n, i, j, m[i][j], j, i, m[j][i], d, SymmetryTolerance*big)
			}
		}
	}
	return nil
}

// familyChain is one chain's part of a precision: its scales (nil: all 1),
// diagonal and linear term (nil: none).
type familyChain[T Float] struct {
	s, w, h []T
}

// chain returns chain c's part of p (K members) and of h (nil: none).
func (p *Precision[T]) chain(c, k, dim int, h []T) familyChain[T] {
	var fc familyChain[T]
	if p.Scales != nil {
		fc.s = p.Scales[c*k : (c+1)*k]
	}
	if p.Diag != nil {
		fc.w = p.Diag[c*dim : (c+1)*dim]
	}
	if h != nil {
		fc.h = h[c*dim : (c+1)*dim]
	}
	return fc
}

// scale returns the chain's scale of member k.
func (fc familyChain[T]) scale(k int) T {
	if fc.s == nil {
		return 1
	}
	return fc.s[k]
}

// conditionals sets q[i] to the chain's conditional precision of each
// coordinate i, as gibbs_family's gg_family_q: w_i (or 0), then
// fma(s_k, M_k[i][i], q_i) in increasing k, a member's diagonal at a time.
func (t *familyTables[T]) conditionals(fc familyChain[T], q []T) {
	d := len(t.b)
	q = q[:d]
	if fc.w != nil {
		copy(q, fc.w)
	} else {
		clear(q)
	}
	for k := 0; k < t.members; k++ {
		fmaColumn(q, t.md[k*d:(k+1)*d], fc.scale(k))
	}
}

// badConditional reports whether a conditional precision q is not
// positive and finite, or its reciprocal r is not finite: the kernel's
// test (x-x is NaN for a NaN or an infinity, else 0).
func badConditional[T Float](q, r T) bool { return !(q > 0) || q-q != 0 || r-r != 0 }

// badCoord returns the chain's first coordinate whose conditional
// precision fails badConditional, and that precision; -1 if none. q is
// scratch of dim.
func (t *familyTables[T]) badCoord(fc familyChain[T], q []T) (int, T) {
	t.conditionals(fc, q)
	for i, v := range q[:len(t.b)] {
		if badConditional(v, 1/v) {
			return i, v
		}
	}
	return -1, 0
}

// sqrtT is sqrt rounded once to T (float32's through float64 is exact
// rounding: 53 ≥ 2·24 + 2).
func sqrtT[T Float](v T) T { return T(math.Sqrt(float64(v))) }

// sweepChain runs sweeps forward Gibbs sweeps of one chain, xc, with its
// precision and linear term, drawing the normals of stream chain chain
// from sweep sweep0: gibbs_family's arithmetic, bit for bit. z is scratch
// of Stride(dim). It reports whether every coordinate's conditional was
// valid (else xc is unchanged).
func (t *familyTables[T]) sweepChain(xc []T, fc familyChain[T], sweeps int, seed, chain, sweep0 uint64, z []T) bool {
	d := len(t.b)
	st := kernels.Stride(d)
	r, sd, u0 := make([]T, d), make([]T, d), make([]T, d)
	t.conditionals(fc, r)
	for i := range d {
		q := r[i]
		r[i] = 1 / q
		if badConditional(q, r[i]) {
			return false
		}
		sd[i] = sqrtT(r[i])
		u0[i] = t.b[i]
		if fc.h != nil {
			u0[i] = T(t.b[i] + fc.h[i])
		}
	}
	for s := 0; s < sweeps; s++ {
		passNormals(z, seed, chain, sweep0+uint64(s), d, 0)
		for i := range d {
			u := u0[i]
			for k := 0; k < t.members; k++ {
				row := t.m[(k*d+i)*st:][:d]
				a := fmaDot(0, row[i+1:], xc[i+1:d])
				a = fmaDot(a, row[:i], xc[:i])
				u = fma(-fc.scale(k), a, u)
			}
			xc[i] = fma(sd[i], z[i], mul(u, r[i]))
		}
	}
	return true
}

// finite reports whether every element of x is finite.
func finite[T Float](x []T) bool { return firstNonFinite(x) < 0 }

// firstNonFinite returns the index of the first NaN or infinity of v, or
// -1. Large slices are checked in ranges on every CPU (a million chains'
// diagonals at dim 32 took half a second on one, through math.IsNaN and
// math.IsInf); the first of all ranges is the answer, whatever the split.
func firstNonFinite[T Float](v []T) int {
	var mu sync.Mutex
	first := len(v)
	parallelChains(len(v), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if x := v[i]; x-x != 0 { // NaN for a NaN or an infinity, else 0
				mu.Lock()
				first = min(first, i)
				mu.Unlock()
				return
			}
		}
	})
	if first == len(v) {
		return -1
	}
	return first
}

// errPrecisionChains is a call's error where the precision was set for
// another chain count.
func errPrecisionChains(set, call int) error {
	return fmt.Errorf("gibbsrt: the precision per chain (SetPrecision) is for %d chains; this call has %d (set it for them, or clear it with SetPrecision(nil))", set, call)
}

// errPrecisionDiagonal names a chain whose conditional precision of
// coordinate i is not positive (q; i < 0: found by a kernel, which does
// not say where).
func errPrecisionDiagonal[T Float](chain, i int, q T) error {
	return &chainError{chain: chain, ran: i < 0, text: func(c int) string {
		if i < 0 {
			return fmt.Sprintf("gibbsrt: chain %d's precision Q_c has a diagonal entry that is not positive and finite (or whose reciprocal overflows): Q_c is not positive definite; the chain was left unchanged, the others swept", c)
		}
		return fmt.Sprintf("gibbsrt: SetPrecision: chain %d's precision Q_c has diagonal entry [%d][%d] = %v; it must be positive and finite (with a finite reciprocal) for Q_c to be positive definite", c, i, i, q)
	}}
}

// errPrecisionDiverged names a chain whose state is not finite after a
// launch with a precision per chain.
func errPrecisionDiverged(chain int) error {
	return &chainError{chain: chain, ran: true, text: func(c int) string {
		return fmt.Sprintf("gibbsrt: chain %d's state is not finite after the sweeps: its precision Q_c is probably not positive definite (SetPrecision checks the diagonal, not definiteness), or its state or linear term was not finite; the other chains were swept", c)
	}}
}

// errPrecisionScheme is the error of a call that a precision per chain
// does not run.
func errPrecisionScheme(what string) error {
	return fmt.Errorf("gibbsrt: %s with a precision per chain (SetPrecision): it runs plain forward Gibbs sweeps (Sweep, SweepDevice, RunHost without a trace) in the sequential form only", what)
}

// errPrecisionTrace refuses a traced call with a precision per chain.
var errPrecisionTrace = errPrecisionScheme("a trace (SweepTrace, SweepDeviceTrace, SweepMoments)")

// twinPrecision is the twin's precision per chain: a copy of what was
// set, and the tables of the model they were made for (q).
type twinPrecision[T Float] struct {
	p      Precision[T]
	chains int
	q      *mat.SymDense
	tab    *familyTables[T]
}

// tables returns the family's tables for p's model.
func (tp *twinPrecision[T]) tables(p *plan[T]) *familyTables[T] {
	if tp.q != p.q {
		tp.q, tp.tab = p.q, newFamilyTables[T](p.q, p.mean, tp.p.Members)
	}
	return tp.tab
}

// copyPrecision returns a deep copy of p's slices.
func copyPrecision[T Float](p *Precision[T]) Precision[T] {
	c := Precision[T]{Scales: append([]T(nil), p.Scales...), Diag: append([]T(nil), p.Diag...)}
	if p.Scales == nil {
		c.Scales = nil
	}
	if p.Diag == nil {
		c.Diag = nil
	}
	c.Members = copyMembers(p.Members)
	return c
}

// copyMembers returns a deep copy of a precision's members.
func copyMembers(members [][][]float64) [][][]float64 {
	var out [][][]float64
	for _, m := range members {
		cm := make([][]float64, len(m))
		for i, row := range m {
			cm[i] = append([]float64(nil), row...)
		}
		out = append(out, cm)
	}
	return out
}

// checkDiagonals checks every chain's conditional precisions with tables
// t (the kernel checks the same values in the same arithmetic): the first
// chain with one not positive is an error that names it.
// The chains are checked in ranges on every CPU (a million chains at dim
// 32 took a third of a second on one); the first bad chain of all ranges
// is the error, whatever the split.
func checkDiagonals[T Float](t *familyTables[T], p *Precision[T], chains int) error {
	d := len(t.b)
	var mu sync.Mutex
	first, coord, val := chains, 0, T(0)
	parallelChains(chains, d*t.members, func(lo, hi int) {
		q := make([]T, d)
		for c := lo; c < hi; c++ {
			if i, q := t.badCoord(p.chain(c, t.members, d, nil), q); i >= 0 {
				mu.Lock()
				if c < first {
					first, coord, val = c, i, q
				}
				mu.Unlock()
				return
			}
		}
	})
	if first < chains {
		return errPrecisionDiagonal(first, coord, val)
	}
	return nil
}

// SetPrecision sets a precision per chain (see Precision): later sweeps
// give chain c the target N(Q_c⁻¹·(Q·mu + h_c), Q⁻¹_c), with h_c the
// linear term of SetLinear (or 0), and must have that many chains. A
// chain whose Q_c has a diagonal entry that is not positive is refused,
// with an error that names it; nil clears the precision. Only plain
// forward Gibbs sweeps in the sequential form run with one (Sweep,
// SweepDevice, RunHost without a trace or moments); the other calls
// return an error. On an error nothing changes. SetModel keeps it.
func (r *Reference[T]) SetPrecision(p *Precision[T]) error {
	if err := r.ready("SetPrecision"); err != nil {
		return err
	}
	if p == nil {
		r.prec = nil
		return nil
	}
	chains, err := checkPrecision(r.dim, p)
	if err != nil {
		return err
	}
	tp := &twinPrecision[T]{p: copyPrecision(p), chains: chains}
	if err := checkDiagonals(tp.tables(r.p), &tp.p, chains); err != nil {
		return err
	}
	r.prec = tp
	return nil
}

// familyTerm checks that the precision per chain, and the linear term if
// one is set, are for chains chains, and returns the term's h (nil: none).
func (r *Reference[T]) familyTerm(chains int) ([]T, error) {
	if r.prec.chains != chains {
		return nil, errPrecisionChains(r.prec.chains, chains)
	}
	if r.lin == nil {
		return nil, nil
	}
	if r.lin.chains != chains {
		return nil, errLinearChains(r.lin.chains, chains)
	}
	return r.lin.h, nil
}

// sweepFamily is Sweep with a precision per chain: plain forward sweeps
// of each chain with its own conditionals, gibbs_family's arithmetic.
func (r *Reference[T]) sweepFamily(x []T, chains, sweeps int, st Stream) error {
	if r.p.form() == FormMatrix || r.p.ext() {
		return errPrecisionScheme(fmt.Sprintf("the scheme %v", r.p.scheme))
	}
	tp := r.prec
	h, err := r.familyTerm(chains)
	if err != nil {
		return err
	}
	t, d := tp.tables(r.p), r.dim
	badDiag, badState := make([]int, chains), make([]int, chains)
	parallelChains(chains, sweeps*d*d*t.members, func(lo, hi int) {
		z := make([]T, kernels.Stride(d))
		for c := lo; c < hi; c++ {
			xc := x[c*d : (c+1)*d]
			fc := tp.p.chain(c, t.members, d, h)
			badDiag[c], badState[c] = -1, -1
			if !t.sweepChain(xc, fc, sweeps, st.Seed, st.Chain+uint64(c), st.Sweep, z) {
				badDiag[c] = c
			} else if !finite(xc) {
				badState[c] = c
			}
		}
	})
	for c := range chains {
		if badDiag[c] >= 0 {
			return errPrecisionDiagonal[T](c, -1, 0)
		}
	}
	for c := range chains {
		if badState[c] >= 0 {
			return errPrecisionDiverged(c)
		}
	}
	return nil
}

// PrecisionTables returns the tables gibbs_family reads for the precision
// set (the manifest's m, md and b; see kernels.FamilyShape): the members'
// off-diagonal rows, [K][dim][Stride(dim)], their diagonals, [K][dim], and
// Q·mu, rounded once to T. For a host that loads a module's kernels
// itself, and for the kernels' tests. It is an error without a precision.
func (r *Reference[T]) PrecisionTables() (m, md, b []T, err error) {
	if err := r.ready("PrecisionTables"); err != nil {
		return nil, nil, nil, err
	}
	if r.prec == nil {
		return nil, nil, nil, errors.New("gibbsrt: PrecisionTables: no precision per chain is set (SetPrecision)")
	}
	t := r.prec.tables(r.p)
	return slices.Clone(t.m), slices.Clone(t.md), slices.Clone(t.b), nil
}
