package mixing

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ar1 is the precision matrix of a stationary AR(1) with coefficient rho
// and unit variance: Σ_ij = rho^|i−j|.
func ar1(n int, rho float64) *mat.SymDense {
	q := mat.NewSymDense(n, nil)
	s := 1 / (1 - rho*rho)
	for i := 0; i < n; i++ {
		d := 1 + rho*rho
		if i == 0 || i == n-1 {
			d = 1
		}
		q.SetSym(i, i, d*s)
		if i+1 < n {
			q.SetSym(i, i+1, -rho*s)
		}
	}
	return q
}

// lattice is the issue's 2-D lattice: 4 + 1e-3 on the diagonal, −1 to
// each of up to four neighbours on a side × side grid.
func lattice(side int) *mat.SymDense {
	n := side * side
	q := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		q.SetSym(i, i, 4+1e-3)
		r, c := i/side, i%side
		if c+1 < side {
			q.SetSym(i, i+1, -1)
		}
		if r+1 < side {
			q.SetSym(i, i+side, -1)
		}
	}
	return q
}

// sweepError runs one noise-free sweep on the error e directly from the
// update's formula, e_i ← (1−ω)e_i − (ω/Q_ii)·Σ_{j≠i} Q_ij e_j.
func sweepError(q mat.Symmetric, omega float64, s Sweep, e []float64) {
	n := len(e)
	pass := func(order []int) {
		for _, i := range order {
			sum := 0.0
			for j := 0; j < n; j++ {
				if j != i {
					sum += q.At(i, j) * e[j]
				}
			}
			e[i] = (1-omega)*e[i] - omega/q.At(i, i)*sum
		}
	}
	fwd, bwd := make([]int, n), make([]int, n)
	for i := range fwd {
		fwd[i], bwd[i] = i, n-1-i
	}
	switch s {
	case Forward:
		pass(fwd)
	case Backward:
		pass(bwd)
	case Symmetric:
		pass(fwd)
		pass(bwd)
	}
}

// TestOperatorIsTheSweep: G·e equals one sweep of the update's formula,
// for every kind of sweep and several ω, on a random SPD matrix.
func TestOperatorIsTheSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 7
	q := randomSPD(n, rng)
	for _, s := range SweepKinds() {
		for _, w := range []float64{0.5, 1, 1.5, 1.9} {
			g, err := Operator(q, w, s)
			if err != nil {
				t.Fatal(err)
			}
			e := make([]float64, n)
			for i := range e {
				e[i] = rng.NormFloat64()
			}
			want := mat.NewVecDense(n, nil)
			want.MulVec(g, mat.NewVecDense(n, append([]float64(nil), e...)))
			sweepError(q, w, s, e)
			for i := range e {
				if d := math.Abs(e[i] - want.AtVec(i)); d > 1e-12*(1+math.Abs(e[i])) {
					t.Errorf("%v sweep, ω = %v: coordinate %d is %v by the formula, %v by G", s, w, i, e[i], want.AtVec(i))
				}
			}
		}
	}
}

// TestIssueFigures reproduces the figures of the mixing issue, computed
// from the iteration operators (sweeps to cut the mean error 1000×), and
// checks that BestOmega does at least as well as the issue's ω.
func TestIssueFigures(t *testing.T) {
	for _, c := range []struct {
		name        string
		q           *mat.SymDense
		plainRho    float64
		plain       int
		issueOmega  float64 // the issue's best ω, and its sweeps
		issueSweeps int
	}{
		{"AR(1), ρ = 0.99, D=64", ar1(64, 0.99), 0.99961, 17755, 1.965, 194},
		{"2-D lattice 8×8", lattice(8), 0, 55, 0, 10},
	} {
		rho, err := Rate(c.q, 1, Forward)
		if err != nil {
			t.Fatal(err)
		}
		plain := Sweeps(rho, 1e-3)
		w, bestRho, err := BestOmega(c.q, Forward)
		if err != nil {
			t.Fatal(err)
		}
		best := Sweeps(bestRho, 1e-3)
		t.Logf("%s: plain ρ = %.6f, %d sweeps; best ω = %.4f, ρ = %.6f, %d sweeps", c.name, rho, plain, w, bestRho, best)
		if c.plainRho != 0 && math.Abs(rho-c.plainRho) > 5e-6 {
			t.Errorf("%s: plain Gibbs rate %.6f, the issue's %.5f", c.name, rho, c.plainRho)
		}
		if !within(plain, c.plain, 0.02) {
			t.Errorf("%s: %d plain sweeps, the issue's %d", c.name, plain, c.plain)
		}
		if best > c.issueSweeps {
			t.Errorf("%s: best ω %.4f needs %d sweeps, more than the issue's %d", c.name, w, best, c.issueSweeps)
		}
		if c.issueOmega != 0 {
			// Above the optimum the radius is ω − 1 (Young's theory for
			// consistently ordered matrices): the issue's ω gives its figure.
			r, err := Rate(c.q, c.issueOmega, Forward)
			if err != nil {
				t.Fatal(err)
			}
			if got := Sweeps(r, 1e-3); !within(got, c.issueSweeps, 0.01) || math.Abs(r-(c.issueOmega-1)) > 1e-6 {
				t.Errorf("%s: ω = %v gives ρ = %.6f, %d sweeps; the issue's %d", c.name, c.issueOmega, r, got, c.issueSweeps)
			}
		}
	}
}

func within(got, want int, rel float64) bool {
	return math.Abs(float64(got-want)) <= math.Max(1, rel*float64(want))
}

func TestSweeps(t *testing.T) {
	if got := Sweeps(0.5, 1e-3); got != 10 { // 0.5^10 = 9.8e-4
		t.Errorf("Sweeps(0.5, 1e-3) = %d, want 10", got)
	}
	if Sweeps(1, 1e-3) != math.MaxInt || Sweeps(0, 1e-3) != 1 {
		t.Error("Sweeps at the edges")
	}
	if _, err := Operator(ar1(4, 0.5), 2, Forward); err == nil {
		t.Error("ω = 2 accepted")
	}
}
