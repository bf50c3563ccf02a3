package mixing

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomSPD is Q = AAᵀ + I for a standard normal n×n A.
func randomSPD(n int, rng *rand.Rand) *mat.SymDense {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	q := mat.NewSymDense(n, nil)
	q.SymOuterK(1, a)
	for i := 0; i < n; i++ {
		q.SetSym(i, i, q.At(i, i)+1)
	}
	return q
}

// passNoise returns a backward pass's mean-error operator G_b and the
// noise matrices F and B of a forward and a backward pass: a pass with
// normals z adds F·z (or B·z) to its noise-free result, position i's noise
// sqrt(ω(2−ω)/Q_ii)·z_i carried through the rest of the pass. A symmetric
// sweep is then s = G_s·y + gF·G_b·F·n_f + gB·B·n_b.
func passNoise(q *mat.SymDense, omega float64) (gb, f, b *mat.Dense) {
	n := q.SymmetricDim()
	gbk, err := Operator(q, omega, Backward)
	if err != nil {
		panic(err)
	}
	// A pass on e with noise z: e_i ← (1−ω)e_i − (ω/Q_ii)Σ_{j≠i}Q_ij e_j + s_i z_i.
	// Its noise part is linear in z; build the matrix column by column.
	pass := func(order []int, z []float64) []float64 {
		e := make([]float64, n)
		for _, i := range order {
			sum := 0.0
			for j := 0; j < n; j++ {
				if j != i {
					sum += q.At(i, j) * e[j]
				}
			}
			e[i] = (1-omega)*e[i] - omega/q.At(i, i)*sum + math.Sqrt(omega*(2-omega)/q.At(i, i))*z[i]
		}
		return e
	}
	fwd, bwd := make([]int, n), make([]int, n)
	for i := range fwd {
		fwd[i], bwd[i] = i, n-1-i
	}
	f, b = mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)
	for c := 0; c < n; c++ {
		z := make([]float64, n)
		z[c] = 1
		f.SetCol(c, pass(fwd, z))
		b.SetCol(c, pass(bwd, z))
	}
	return gbk, f, b
}

// iterateCovariances propagates the covariance of (y_k, y_{k−1}) through the
// Chebyshev iteration exactly, from a fixed start, and returns Var(y_k) for
// k = 0..n: an independent check of the schedule's noise factors.
func iterateCovariances(q *mat.SymDense, c Chebyshev, steps []Step) []*mat.Dense {
	n := q.SymmetricDim()
	gs, err := Operator(q, c.Omega, Symmetric)
	if err != nil {
		panic(err)
	}
	gb, f, b := passNoise(q, c.Omega)
	var gbf mat.Dense
	gbf.Mul(gb, f)
	cov := mat.NewDense(2*n, 2*n, nil)
	out := []*mat.Dense{mat.NewDense(n, n, nil)}
	for _, s := range steps {
		// Y' = Φ·Y + [p·noise; 0], Φ = [[pG_s + qI, rI], [I, 0]].
		p, qq, r := s.Alpha*c.Tau, s.Alpha*(1-c.Tau), 1-s.Alpha
		phi := mat.NewDense(2*n, 2*n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := p * gs.At(i, j)
				if i == j {
					v += qq
					phi.Set(i, n+j, r)
					phi.Set(n+i, j, 1)
				}
				phi.Set(i, j, v)
			}
		}
		var t, next mat.Dense
		t.Mul(phi, cov)
		next.Mul(&t, phi.T())
		var w1, w2 mat.Dense
		w1.Mul(&gbf, gbf.T())
		w1.Scale(s.B*p*p, &w1)
		w2.Mul(b, b.T())
		w2.Scale(s.A*p*p, &w2)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				next.Set(i, j, next.At(i, j)+w1.At(i, j)+w2.At(i, j))
			}
		}
		cov = mat.DenseCopyOf(&next)
		out = append(out, mat.DenseCopyOf(cov.Slice(0, n, 0, n)))
	}
	return out
}

// TestChebyshevCovarianceClosedForm: the covariance of Chebyshev iterates
// from a fixed start, propagated exactly, equals the closed form
// Σ − P_kΣP_kᵀ at every k; a schedule with the wrong backward noise (a_k =
// b_k) does not.
func TestChebyshevCovarianceClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		name  string
		q     *mat.SymDense
		omega float64
	}{
		{"AR(1) ρ=0.9, D=12", ar1(12, 0.9), 1.3},
		{"random SPD D=7", randomSPD(7, rng), 1},
		{"lattice 3×3", lattice(3), 1.6},
	} {
		lmin, lmax, err := SSORSpectrum(c.q, c.omega)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := NewChebyshev(c.omega, lmin, lmax)
		if err != nil {
			t.Fatal(err)
		}
		var sigma mat.Dense
		if err := sigma.Inverse(c.q); err != nil {
			t.Fatal(err)
		}
		gs, _ := Operator(c.q, c.omega, Symmetric)
		const k = 25
		ps := ch.MeanOperators(gs, k)
		steps := ch.Steps(k)
		got := iterateCovariances(c.q, ch, steps)
		scale := mat.Norm(&sigma, math.Inf(1))
		worst := 0.0
		for i := 0; i <= k; i++ {
			var psp, a mat.Dense
			a.Mul(ps[i], &sigma)
			psp.Mul(&a, ps[i].T())
			for r := 0; r < c.q.SymmetricDim(); r++ {
				for s := 0; s < c.q.SymmetricDim(); s++ {
					want := sigma.At(r, s) - psp.At(r, s)
					worst = math.Max(worst, math.Abs(got[i].At(r, s)-want)/scale)
				}
			}
		}
		if worst > 1e-9 {
			t.Errorf("%s: covariance of the iterates differs from Σ − PΣPᵀ by %g (relative)", c.name, worst)
		}
		// The mutation: the backward pass with the forward pass's noise.
		bad := append([]Step(nil), steps...)
		for i := range bad {
			bad[i].A = bad[i].B
		}
		gotBad := iterateCovariances(c.q, ch, bad)
		worstBad := 0.0
		for i := 0; i <= k; i++ {
			var psp, a mat.Dense
			a.Mul(ps[i], &sigma)
			psp.Mul(&a, ps[i].T())
			for r := 0; r < c.q.SymmetricDim(); r++ {
				for s := 0; s < c.q.SymmetricDim(); s++ {
					worstBad = math.Max(worstBad, math.Abs(gotBad[i].At(r, s)-(sigma.At(r, s)-psp.At(r, s)))/scale)
				}
			}
		}
		if worstBad < 1e-3 {
			t.Errorf("%s: a wrong backward noise factor still matches the closed form (%g)", c.name, worstBad)
		}
		t.Logf("%s: ω %.2f, λ in [%.4g, %.4g], closed form within %.2g; with a_k = b_k off by %.2g", c.name, c.omega, lmin, lmax, worst, worstBad)
	}
}

// TestSSORSpectrum: 1 − λmin is the spectral radius of a symmetric sweep,
// and λmax ≤ 1.
func TestSSORSpectrum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, q := range []*mat.SymDense{ar1(20, 0.95), randomSPD(9, rng), lattice(4)} {
		for _, w := range []float64{0.7, 1, 1.5} {
			lmin, lmax, err := SSORSpectrum(q, w)
			if err != nil {
				t.Fatal(err)
			}
			rho, err := Rate(q, w, Symmetric)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(1-lmin-rho) > 1e-9 || lmax > 1+1e-12 || lmin <= 0 {
				t.Errorf("ω %v: λ in [%v, %v], symmetric sweep radius %v", w, lmin, lmax, rho)
			}
		}
	}
}

// TestRecurrenceChunks: coefficients asked for in chunks, forwards, after a
// jump, and backwards (a restart), are Coefficients' bit for bit.
func TestRecurrenceChunks(t *testing.T) {
	c, err := NewChebyshev(1.7, 0.003, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Start()
	for _, ch := range [][2]int{{0, 20}, {20, 20}, {40, 7}, {1000, 20}, {1020, 33}, {5, 3}, {8, 1}, {40001, 20}} {
		got, want := r.Coefficients(ch[0], ch[1]), c.Coefficients(ch[0], ch[1])
		if len(got) != len(want) {
			t.Fatalf("%v: %d rows, want %d", ch, len(got), len(want))
		}
		for k := range want {
			for j := range want[k] {
				if math.Float64bits(got[k][j]) != math.Float64bits(want[k][j]) {
					t.Fatalf("iterations %v: row %d value %d is %v, want %v", ch, k, j, got[k][j], want[k][j])
				}
			}
		}
		if r.K() != ch[0]+ch[1] {
			t.Fatalf("after %v the recurrence is at %d", ch, r.K())
		}
	}
	// Steps and the recurrence agree on where the schedule goes.
	steps := c.Steps(50)
	r = c.Start()
	for k, s := range steps {
		if got := r.Next(); got != s {
			t.Fatalf("iteration %d: %+v, want %+v", k, got, s)
		}
	}
}

// BenchmarkCoefficients: a 20-iteration launch's coefficients at iteration
// 40,000 (the mixing bench's timed launches start there), from iteration 0
// and from where the previous launch left the recurrence.
func BenchmarkCoefficients(b *testing.B) {
	c, err := NewChebyshev(1.7, 0.003, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("from0", func(b *testing.B) {
		for range b.N {
			c.Coefficients(40000, 20)
		}
	})
	b.Run("chunked", func(b *testing.B) {
		r := c.Start()
		first := 40000
		for range b.N {
			r.Coefficients(first, 20)
			first += 20
		}
	})
}
