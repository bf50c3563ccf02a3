package mixing

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestIATOneDimension: for one coordinate the sweep is e ← (1−ω)e + noise,
// so the lag-k autocorrelation is (1−ω)^k: the linear IAT is (2−ω)/ω and
// the squared coordinate's 1 + 2(1−ω)²/(1−(1−ω)²).
func TestIATOneDimension(t *testing.T) {
	q := mat.NewSymDense(1, []float64{4})
	sigma := mat.NewSymDense(1, []float64{0.25})
	for _, w := range []float64{0.3, 1, 1.5, 1.9} {
		g, err := Operator(q, w, Forward)
		if err != nil {
			t.Fatal(err)
		}
		lin, err := IATLinear(g, sigma)
		if err != nil {
			t.Fatal(err)
		}
		sq, err := IATSquares(g, sigma)
		if err != nil {
			t.Fatal(err)
		}
		r := (1 - w) * (1 - w)
		if math.Abs(lin-(2-w)/w) > 1e-12 || math.Abs(sq[0]-(1+2*r/(1-r))) > 1e-12 {
			t.Errorf("ω %v: IAT linear %v (want %v), squares %v (want %v)", w, lin, (2-w)/w, sq[0], 1+2*r/(1-r))
		}
	}
}

// TestIATSquaresPaths: the eigendecomposition and the term-by-term sum
// agree.
func TestIATSquaresPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	q := randomSPD(6, rng)
	var sigma mat.Dense
	if err := sigma.Inverse(q); err != nil {
		t.Fatal(err)
	}
	sym := mat.NewSymDense(6, nil)
	for i := 0; i < 6; i++ {
		for j := i; j < 6; j++ {
			sym.SetSym(i, j, sigma.At(i, j))
		}
	}
	for _, s := range []Sweep{Forward, Symmetric} {
		g, _ := Operator(q, 1.4, s)
		eig, ok := iatSquaresEigen(g, sym)
		if !ok {
			t.Fatalf("%v: the eigendecomposition path declined a well-conditioned G", s)
		}
		direct := directSquares(g, sym, 20000)
		for i := range eig {
			if math.Abs(eig[i]-direct[i]) > 1e-8*direct[i] {
				t.Errorf("%v coordinate %d: %v by eigenvalues, %v term by term", s, i, eig[i], direct[i])
			}
		}
	}
}

func directSquares(g mat.Matrix, sigma mat.Symmetric, k int) []float64 {
	n := sigma.SymmetricDim()
	c := mat.DenseCopyOf(sigma)
	out := make([]float64, n)
	for s := 0; s < k; s++ {
		var next mat.Dense
		next.Mul(g, c)
		c = &next
		for i := 0; i < n; i++ {
			r := c.At(i, i) / sigma.At(i, i)
			out[i] += r * r
		}
	}
	for i := range out {
		out[i] = 1 + 2*out[i]
	}
	return out
}

// TestIATIssueFigures reproduces the mixing issue's integrated
// autocorrelation times of the worst linear functional on AR(1), ρ = 0.99,
// D = 64, for forward sweeps.
func TestIATIssueFigures(t *testing.T) {
	q := ar1(64, 0.99)
	var inv mat.Dense
	if err := inv.Inverse(q); err != nil {
		t.Fatal(err)
	}
	sigma := mat.NewSymDense(64, nil)
	for i := 0; i < 64; i++ {
		for j := i; j < 64; j++ {
			sigma.SetSym(i, j, inv.At(i, j))
		}
	}
	for _, c := range []struct {
		omega float64
		want  float64
	}{{1, 5141}, {1.9, 271}, {1.97, 78}} {
		g, _ := Operator(q, c.omega, Forward)
		got, err := IATLinear(g, sigma)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("ω %v: worst linear IAT %.1f sweeps (issue: %v)", c.omega, got, c.want)
		if math.Abs(got-c.want) > 0.01*c.want {
			t.Errorf("ω %v: worst linear IAT %.1f, the issue's %v", c.omega, got, c.want)
		}
	}
}

// TestWorstLinearDirection: the direction WorstLinear returns has
// aᵀΣa = 1 and, by the lag sum, the IAT it reports; no coordinate's IAT
// (IATCoordinates, the functionals a = e_i) exceeds it; and in one
// dimension the coordinate's IAT is (2−ω)/ω.
func TestWorstLinearDirection(t *testing.T) {
	q := ar1(6, 0.9)
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		t.Fatal("AR(1) Q is not positive definite")
	}
	sigma := mat.NewSymDense(6, nil)
	if err := ch.InverseTo(sigma); err != nil {
		t.Fatal(err)
	}
	g, err := Operator(q, 1, Forward)
	if err != nil {
		t.Fatal(err)
	}
	iat, a, err := WorstLinear(g, sigma)
	if err != nil {
		t.Fatal(err)
	}
	lag, err := lagSum(g, sigma)
	if err != nil {
		t.Fatal(err)
	}
	av := mat.NewVecDense(len(a), a)
	var sa, la mat.VecDense
	sa.MulVec(sigma, av)
	la.MulVec(lag, av)
	if v := mat.Dot(av, &sa); math.Abs(v-1) > 1e-9 {
		t.Errorf("aᵀΣa = %v, want 1", v)
	}
	if got := 1 + 2*mat.Dot(av, &la); math.Abs(got-iat) > 1e-6*iat {
		t.Errorf("IAT of aᵀx by the lag sum %v, WorstLinear says %v", got, iat)
	}
	coords, err := IATCoordinates(g, sigma)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range coords {
		if c > iat*(1+1e-9) || c < 1 {
			t.Errorf("coordinate %d: IAT %v outside [1, %v]", i, c, iat)
		}
	}
	one := mat.NewSymDense(1, []float64{4})
	g1, err := Operator(one, 1.5, Forward)
	if err != nil {
		t.Fatal(err)
	}
	c1, err := IATCoordinates(g1, mat.NewSymDense(1, []float64{0.25}))
	if err != nil || math.Abs(c1[0]-0.5/1.5) > 1e-12 {
		t.Errorf("one dimension, ω 1.5: IAT %v (%v), want %v", c1, err, 0.5/1.5)
	}
}

// IATLinearRun and IATRun against the sum 1 + 2·Σ(1 − k/n)ρ_k taken term by term
// (its worst functional from the same generalized eigenproblem), and its
// limit, IATLinear.
func TestIATLinearRun(t *testing.T) {
	q := ar1(8, 0.9)
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		t.Fatal("not positive definite")
	}
	var sigma mat.SymDense
	if err := ch.InverseTo(&sigma); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s Sweep
		w float64
	}{{Forward, 1.9}, {Symmetric, 1.3}} {
		g, err := Operator(q, c.w, c.s)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 7, 60} {
			got, err := IATLinearRun(g, &sigma, n)
			if err != nil {
				t.Fatal(err)
			}
			// A = Σ_{k=1}^{n−1} (1 − k/n)·G^kΣ, summed directly.
			a := mat.NewDense(8, 8, nil)
			gk := mat.DenseCopyOf(&sigma)
			for k := 1; k < n; k++ {
				var next mat.Dense
				next.Mul(g, gk)
				gk = &next
				var term mat.Dense
				term.Scale(1-float64(k)/float64(n), gk)
				a.Add(a, &term)
			}
			want, dir, err := worstOf(a, &sigma, true)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("%v ω=%v, n=%d: %v, summed %v", c.s, c.w, n, got, want)
			}
			// IATRun along the worst functional is the worst; along a
			// coordinate it is that coordinate's sum.
			along, err := IATRun(g, &sigma, dir, n)
			if err != nil {
				t.Fatal(err)
			}
			e3 := make([]float64, 8)
			e3[3] = 1
			coord, err := IATRun(g, &sigma, e3, n)
			if err != nil {
				t.Fatal(err)
			}
			wantCoord := (sigma.At(3, 3) + 2*a.At(3, 3)) / sigma.At(3, 3)
			if math.Abs(along-want) > 1e-9*want || math.Abs(coord-wantCoord) > 1e-9*wantCoord {
				t.Errorf("%v ω=%v, n=%d: IATRun %v along the worst (want %v), %v along x_3 (want %v)", c.s, c.w, n, along, want, coord, wantCoord)
			}
			// Symmetric sweeps are reversible with a spectrum in [0, 1):
			// every ρ_k ≥ 0, so the run's IAT grows to the limit from below.
			if lim, err := IATLinear(g, &sigma); err != nil || (c.s == Symmetric && got > lim*(1+1e-12)) {
				t.Errorf("%v ω=%v, n=%d: %v above the limit %v (%v)", c.s, c.w, n, got, lim, err)
			}
			if n == 1 && math.Abs(got-1) > 1e-12 {
				t.Errorf("%v: a run of one sweep: %v, want 1", c.s, got)
			}
		}
		lim, err := IATLinear(g, &sigma)
		if err != nil {
			t.Fatal(err)
		}
		long, err := IATLinearRun(g, &sigma, 1<<22)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(long-lim) > 1e-4*lim {
			t.Errorf("%v ω=%v: a run of 2^22 sweeps %v, IATLinear %v", c.s, c.w, long, lim)
		}
	}
}
