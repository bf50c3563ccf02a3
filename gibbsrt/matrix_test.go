package gibbsrt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/mixing"
)

// spdModel returns a random dim×dim precision matrix with condition number
// about cond, and a mean.
func spdModel(dim int, cond float64, rng *rand.Rand) (*mat.SymDense, []float64) {
	var qr mat.QR
	a := mat.NewDense(dim, dim, nil)
	for i := 0; i < dim; i++ {
		for j := 0; j < dim; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	qr.Factorize(a)
	var u mat.Dense
	qr.QTo(&u)
	q := mat.NewSymDense(dim, nil)
	for i := 0; i < dim; i++ {
		for j := i; j < dim; j++ {
			s := 0.0
			for k := 0; k < dim; k++ {
				s += u.At(i, k) * math.Pow(cond, float64(k)/float64(max(1, dim-1))) * u.At(j, k)
			}
			q.SetSym(i, j, s)
		}
	}
	mu := make([]float64, dim)
	for i := range mu {
		mu[i] = rng.NormFloat64()
	}
	return q, mu
}

func rowsOf(q *mat.SymDense) [][]float64 {
	d := q.SymmetricDim()
	r := make([][]float64, d)
	for i := range r {
		r[i] = make([]float64, d)
		for j := range r[i] {
			r[i][j] = q.At(i, j)
		}
	}
	return r
}

// TestMatrixTablesClosedForm checks the float64 tables against package
// mixing's closed forms: M of a forward pass is the sweep's mean-error
// operator, that of frame 1 the backward sweep's (in reversed order), the
// fixed point of x = M·x + c is mu, and each pass keeps N(mu, Q⁻¹):
// M·Σ·Mᵀ + N·Nᵀ = Σ; the exact draws' N·Nᵀ = Σ.
func TestMatrixTablesClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{1, 5, 17, 40} {
		for _, omega := range []float64{1, 0.6, 1.7} {
			q, mu := spdModel(dim, 1e3, rng)
			var ch mat.Cholesky
			if !ch.Factorize(q) {
				t.Fatal("not SPD")
			}
			var sigma mat.SymDense
			if err := ch.InverseTo(&sigma); err != nil {
				t.Fatal(err)
			}
			scale := mat.Norm(&sigma, math.Inf(1))
			for f, kind := range []mixing.Sweep{mixing.Forward, mixing.Backward} {
				m, c, n := forwardPass(q, mu, omega, f == 1)
				g, err := mixing.Operator(q, omega, kind)
				if err != nil {
					t.Fatal(err)
				}
				// Frame 1 is in reversed order: position p is coordinate dim−1−p.
				at := func(i, k int) float64 {
					if f == 1 {
						return m.At(dim-1-i, dim-1-k)
					}
					return m.At(i, k)
				}
				var worst float64
				for i := 0; i < dim; i++ {
					for k := 0; k < dim; k++ {
						worst = math.Max(worst, math.Abs(at(i, k)-g.At(i, k)))
					}
					// mu in frame f's order is a fixed point.
					fix := c[i] - pos(mu, i, f)
					for k := 0; k < dim; k++ {
						fix += m.At(i, k) * pos(mu, k, f)
					}
					if math.Abs(fix) > 1e-9*(1+math.Abs(pos(mu, i, f))) {
						t.Errorf("dim %d ω %v frame %d: (M·mu + c − mu)_%d = %g", dim, omega, f, i, fix)
					}
				}
				if worst > 1e-10 {
					t.Errorf("dim %d ω %v frame %d: M differs from mixing.Operator by %g", dim, omega, f, worst)
				}
				// Σ in frame f's order.
				sf := mat.NewDense(dim, dim, nil)
				for i := 0; i < dim; i++ {
					for k := 0; k < dim; k++ {
						sf.Set(i, k, sigma.At(idx(i, f, dim), idx(k, f, dim)))
					}
				}
				var a, b, s mat.Dense
				a.Mul(m, sf)
				b.Mul(&a, m.T())
				s.Mul(n, n.T())
				s.Add(&s, &b)
				s.Sub(&s, sf)
				if e := mat.Norm(&s, math.Inf(1)) / scale; e > 1e-9 {
					t.Errorf("dim %d ω %v frame %d: ‖M·Σ·Mᵀ + N·Nᵀ − Σ‖/‖Σ‖ = %g", dim, omega, f, e)
				}
			}
			n, err := exactFactor(q)
			if err != nil {
				t.Fatal(err)
			}
			var s mat.Dense
			s.Mul(n, n.T())
			s.Sub(&s, &sigma)
			if e := mat.Norm(&s, math.Inf(1)) / scale; e > 1e-9 {
				t.Errorf("dim %d: ‖N·Nᵀ − Σ‖/‖Σ‖ = %g for exact draws", dim, e)
			}
			for i := 0; i < dim; i++ {
				for k := i + 1; k < dim; k++ {
					if n.At(i, k) != 0 {
						t.Fatalf("dim %d: exact N[%d][%d] = %g; N must be lower triangular", dim, i, k, n.At(i, k))
					}
				}
			}
		}
	}
}

func idx(i, f, dim int) int {
	if f == 1 {
		return dim - 1 - i
	}
	return i
}

func pos(v []float64, i, f int) float64 { return v[idx(i, f, len(v))] }

// gamma is γ_n = n·u/(1 − n·u) for float32's unit roundoff u = 2⁻²⁴: the
// bound on the relative error of n correctly rounded operations.
func gamma(n int) float64 {
	const u = 0x1p-24
	return float64(n) * u / (1 - float64(n)*u)
}

// matrixBounds is one forward pass of both forms in float32 from the same
// state x and normals z, against the float64 matrix form y = M·x + c + N·z
// of the float64 tables, with the rounding bounds of each:
//
//	matrix form:  |x'_i − y_i| ≤ (u + γ_{2d+1}·(1+u))·S_i,
//	              S_i = |c_i| + Σ_k |M_ik·x_k| + Σ_{p≤i} |N_ip·z_p|
//	              (the tables rounded once, then 2d+1 fmas);
//	sequential:   e_i ≤ (u + γ_{d+2}·(1+u))·R_i + (1+u)·Σ_{j<i} |w_ji|·e_j,
//	              R_i = |offset_i| + Σ_{j≠i} |w_ji·x̂_j| + |keep·x_i| + |scale_i·z_i|
//	              (x̂_j the updated values for j < i: the errors of the
//	              coordinates already updated propagate through their weights),
//
// to first order in u, plus 1e-12 of each sum for the float64 reference's
// own error. It returns the new states and the bounds.
type passBounds struct {
	mat, seq, matBound, seqBound, exact []float64
}

func boundedPass(t *testing.T, q *mat.SymDense, mu []float64, omega float64, x, z []float32) passBounds {
	t.Helper()
	d := len(x)
	m, c, n := forwardPass(q, mu, omega, false)
	mt, err := newMatrixTables[float32](q, mu, omega)
	if err != nil {
		t.Fatal(err)
	}
	co, err := newRelaxedCoefficients[float32](d, rowsOf(q), mu, omega)
	if err != nil {
		t.Fatal(err)
	}
	r := passBounds{exact: make([]float64, d), matBound: make([]float64, d), seqBound: make([]float64, d)}
	for i := 0; i < d; i++ {
		y, s := c[i], math.Abs(c[i])
		for k := 0; k < d; k++ {
			y += m.At(i, k) * float64(x[k])
			s += math.Abs(m.At(i, k) * float64(x[k]))
		}
		for p := 0; p <= i; p++ {
			y += n.At(i, p) * float64(z[p])
			s += math.Abs(n.At(i, p) * float64(z[p]))
		}
		r.exact[i] = y
		r.matBound[i] = (0x1p-24+gamma(2*d+1)*(1+0x1p-24))*s + 1e-12*s
	}
	xm := append([]float32(nil), x...)
	mt.pass(xm, append([]float32(nil), z...), make([]float32, d), 0, 1)
	xs := append([]float32(nil), x...)
	co.pass(co.byRow(), xs, append([]float32(nil), z...), 0, 1, omega != 1)
	// The sequential bound, in update order, with the float64 tables.
	for i := 0; i < d; i++ {
		qii := q.At(i, i)
		rr := math.Abs(omega*mu[i]) + math.Abs(math.Sqrt(omega*(2-omega))/math.Sqrt(qii)*float64(z[i])) + math.Abs((1-omega)*float64(x[i]))
		prop := 0.0
		for j := 0; j < d; j++ {
			if j == i {
				continue
			}
			w := math.Abs(omega * q.At(i, j) / qii)
			xj := x[j] // not yet updated
			if j < i {
				xj = xs[j]
			}
			rr += math.Abs(omega*q.At(i, j)/qii*mu[j]) + w*math.Abs(float64(xj))
			if j < i {
				prop += w * r.seqBound[j]
			}
		}
		r.seqBound[i] = (0x1p-24+gamma(d+2)*(1+0x1p-24))*rr + (1+0x1p-24)*prop + 1e-12*rr
	}
	r.mat, r.seq = f64(xm), f64(xs)
	return r
}

func f64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// TestMatrixFormRoundingBound checks both forms of a float32 pass against
// the float64 matrix form within their rounding bounds (boundedPass), so
// that the two agree within the sum; and after 100 sweeps in the Q-norm,
// each sweep's bound carried forward by ‖M‖_Q < 1 (energyNorm). It logs
// the largest ratio of the forms' difference to its bound.
func TestMatrixFormRoundingBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		dim         int
		cond, omega float64
	}{{5, 10, 1}, {32, 100, 1}, {32, 1e4, 1.5}, {64, 1e3, 1}} {
		t.Run(fmt.Sprintf("dim=%d/cond=%g/ω=%v", c.dim, c.cond, c.omega), func(t *testing.T) {
			q, mu := spdModel(c.dim, c.cond, rng)
			m, _, _ := forwardPass(q, mu, c.omega, false)
			rho, lmax := energyNorm(q, m)
			x := make([]float32, c.dim)
			for i := range x {
				x[i] = float32(mu[i] + 3*rng.NormFloat64())
			}
			xm, xs := append([]float32(nil), x...), append([]float32(nil), x...)
			exact := f64(x)
			var em, es float64 // the bounds in the energy norm, propagated
			var worst1, worst100 float64
			for k := 1; k <= 100; k++ {
				z := make([]float32, c.dim)
				for i := range z {
					z[i] = float32(rng.NormFloat64())
				}
				// Each form's pass from its own state; the float64 truth
				// from the exact trajectory's state.
				pm := boundedPass(t, q, mu, c.omega, xm, z)
				ps := boundedPass(t, q, mu, c.omega, xs, z)
				// The truth in float64: M·exact + c + N·z.
				mm, cc, nn := forwardPass(q, mu, c.omega, false)
				next := make([]float64, c.dim)
				for i := range next {
					v := cc[i]
					for j := 0; j < c.dim; j++ {
						v += mm.At(i, j) * exact[j]
					}
					for p := 0; p <= i; p++ {
						v += nn.At(i, p) * float64(z[p])
					}
					next[i] = v
				}
				em, es = rho*em+math.Sqrt(lmax)*mat.Norm(mat.NewVecDense(c.dim, pm.matBound), 2), rho*es+math.Sqrt(lmax)*mat.Norm(mat.NewVecDense(c.dim, ps.seqBound), 2)
				if k == 1 {
					for i := range next {
						// One pass from the same state: the pass bounds.
						if d := math.Abs(pm.mat[i] - next[i]); d > pm.matBound[i] {
							t.Errorf("sweep 1: matrix form x_%d off the float64 pass by %g > bound %g", i, d, pm.matBound[i])
						}
						if d := math.Abs(ps.seq[i] - next[i]); d > ps.seqBound[i] {
							t.Errorf("sweep 1: sequential x_%d off the float64 pass by %g > bound %g", i, d, ps.seqBound[i])
						}
						if d := math.Abs(pm.mat[i] - ps.seq[i]); d > pm.matBound[i]+ps.seqBound[i] {
							t.Errorf("sweep 1: the forms' x_%d differ by %g > bound %g", i, d, pm.matBound[i]+ps.seqBound[i])
						}
						worst1 = math.Max(worst1, math.Abs(pm.mat[i]-ps.seq[i])/(pm.matBound[i]+ps.seqBound[i]))
					}
				}
				xm, xs, exact = f32(pm.mat), f32(ps.seq), next
			}
			dm, ds, dd := energy(q, f64(xm), exact), energy(q, f64(xs), exact), energy(q, f64(xm), f64(xs))
			if dm > em || ds > es || dd > em+es {
				t.Errorf("after 100 sweeps: in the Q-norm the matrix form is off by %g (bound %g), the sequential by %g (bound %g), the two differ by %g", dm, em, ds, es, dd)
			}
			worst100 = dd / (em + es)
			t.Logf("largest |matrix − sequential| / bound: %.3g after 1 sweep, %.3g after 100", worst1, worst100)
		})
	}
}

func f32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// energyNorm returns ‖M‖_Q = ‖Q^½·M·Q^−½‖₂, below 1 for every forward
// sweep with 0 < ω < 2 (the sweep contracts the error in the Q-norm), and
// λmax(Q), so that ‖v‖_Q ≤ sqrt(λmax)·‖v‖₂: after k sweeps the error of
// either form is at most Σ_j ‖M‖_Q^(k−1−j)·sqrt(λmax)·‖b_j‖₂.
func energyNorm(q *mat.SymDense, m *mat.Dense) (rho, lmax float64) {
	d := q.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(q, true) {
		panic("eigen")
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	vals := eig.Values(nil)
	half, inv := mat.NewDense(d, d, nil), mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			var a, b float64
			for k := 0; k < d; k++ {
				a += v.At(i, k) * math.Sqrt(vals[k]) * v.At(j, k)
				b += v.At(i, k) / math.Sqrt(vals[k]) * v.At(j, k)
			}
			half.Set(i, j, a)
			inv.Set(i, j, b)
		}
	}
	var p, r mat.Dense
	p.Mul(half, m)
	r.Mul(&p, inv)
	var svd mat.SVD
	if !svd.Factorize(&r, mat.SVDNone) {
		panic("svd")
	}
	return svd.Values(nil)[0], vals[d-1]
}

// energy returns ‖a − b‖_Q.
func energy(q *mat.SymDense, a, b []float64) float64 {
	d := make([]float64, len(a))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	v := mat.NewVecDense(len(d), d)
	return math.Sqrt(mat.Inner(v, q, v))
}

// TestReschemeKeepsTheModel: SetScheme checks and factorizes nothing again
// (the plan keeps its symmetric Q), and a change of form alone keeps the
// tables and the matrix form's tables.
func TestReschemeKeepsTheModel(t *testing.T) {
	q, mu := spdModel(6, 10, rand.New(rand.NewPCG(1, 1)))
	r := NewReference[float32](6)
	if err := r.SetModel(rowsOf(q), mu); err != nil {
		t.Fatal(err)
	}
	p := r.p
	mt, err := r.MatrixTables()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetScheme(Scheme{Kind: Forward, Omega: 1, Form: FormMatrix}); err != nil {
		t.Fatal(err)
	}
	if r.p.q != p.q || r.p.co != p.co || r.p.mat != mt {
		t.Error("a change of form alone recomputed the model's tables")
	}
	if err := r.SetScheme(Scheme{Kind: Symmetric, Omega: 1.2}); err != nil {
		t.Fatal(err)
	}
	if r.p.q != p.q {
		t.Error("SetScheme validated and symmetrized the model again")
	}
	if r.p.co == p.co || r.p.co.Omega != 1.2 {
		t.Errorf("a new ω kept the old tables (ω = %v)", r.p.co.Omega)
	}
}
