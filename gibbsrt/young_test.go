package gibbsrt

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestYoungOmega checks the automatic ω beyond AnalysisMaxDim: Young's
// formula on a tridiagonal model (consistently ordered, ρ_J = cos(π/(n+1))·r
// known in closed form), and plain Gibbs where the Jacobi radius is at
// least 1 and the formula would put ω next to 2.
func TestYoungOmega(t *testing.T) {
	const n = AnalysisMaxDim + 2
	// Q = tridiag(-r, 1, -r): ρ_J = 2r·cos(π/(n+1)).
	const r = 0.45
	tri := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		tri.SetSym(i, i, 1)
		if i+1 < n {
			tri.SetSym(i, i+1, -r)
		}
	}
	rj := 2 * r * math.Cos(math.Pi/float64(n+1))
	for _, c := range []struct {
		k    SweepKind
		want float64
	}{
		{Forward, 2 / (1 + math.Sqrt(1-rj*rj))},
		{Symmetric, 2 / (1 + math.Sqrt(2*(1-rj)))},
	} {
		for _, tu := range []Tune{TuneMean, TuneSampling} { // every target takes Young's ω there
			got, err := choose(tri, Scheme{Kind: c.k, Tune: tu})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-9 {
				t.Errorf("%v sweeps on tridiag, Tune %v: ω = %v, want Young's %v", c.k, tu, got, c.want)
			}
		}
	}
	// A dense SPD with strong, mixed-sign correlations: ρ_J > 1.
	rng := rand.New(rand.NewPCG(3, 4))
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	dense := mat.NewSymDense(n, nil)
	dense.SymOuterK(1, a)
	for i := 0; i < n; i++ {
		dense.SetSym(i, i, dense.At(i, i)+1)
	}
	for _, k := range []SweepKind{Forward, Symmetric} {
		got, err := choose(dense, Scheme{Kind: k})
		if err != nil {
			t.Fatal(err)
		}
		if got != 1 {
			t.Errorf("%v sweeps on a dense model with ρ_J > 1: ω = %v, want 1", k, got)
		}
	}
}
