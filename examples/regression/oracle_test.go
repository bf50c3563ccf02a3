package main

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const dataPath = "testdata/anes96.csv"

func load(t testing.TB) (*mat.Dense, []float64) {
	t.Helper()
	x, y, err := loadData(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	return x, y
}

func TestLoadData(t *testing.T) {
	x, y := load(t)
	n, p := x.Dims()
	if n != 944 || p != 8 || len(y) != n {
		t.Fatalf("X is %d×%d, y has %d: want 944×8 and 944", n, p, len(y))
	}
	if y[0] != 6 || y[1] != 1 {
		t.Errorf("y[0], y[1] = %g, %g; want PID of the first two rows, 6 and 1", y[0], y[1])
	}
	for j := range p {
		var s, ss float64
		for i := range n {
			s += x.At(i, j)
			ss += x.At(i, j) * x.At(i, j)
		}
		m, v := s/float64(n), ss/float64(n)-(s/float64(n))*(s/float64(n))
		switch {
		case j == 0 && (m != 1 || v != 0):
			t.Errorf("column 0: mean %g, variance %g; want the intercept, 1 and 0", m, v)
		case j > 0 && math.Abs(v-1) > 1e-9:
			t.Errorf("column %s: variance %g, want 1", columns[j], v)
		}
	}
	// Row 0 has popul = 0: logpopul = log(0.1)/sd.
	if x.At(0, 1) >= 0 {
		t.Errorf("logpopul of row 0 = %g, want log(0.1)/sd < 0", x.At(0, 1))
	}
	if _, _, err := loadData("testdata/no-such.csv"); err == nil {
		t.Error("loadData of a missing file: no error")
	}
	var xtx mat.SymDense
	xtx.SymOuterK(1, x.T())
	var eig mat.EigenSym
	if !eig.Factorize(&xtx, false) {
		t.Fatal("eigendecomposition failed")
	}
	ev := eig.Values(nil)
	t.Logf("XᵀX eigenvalues %.4g; condition number %.4g", ev, ev[len(ev)-1]/ev[0])
}

// TestGridConverged: the quadrature has converged, so the grid posterior
// can serve as the truth for the oracle.
func TestGridConverged(t *testing.T) {
	x, y := load(t)
	pr := defaultPriors()
	a, b := gridPosterior(x, y, pr, 151), gridPosterior(x, y, pr, 301)
	close := func(name string, u, v stat) {
		if math.Abs(u.Mean-v.Mean) > 1e-9*(1+math.Abs(v.Mean)) || math.Abs(u.SD-v.SD) > 1e-9*(1+v.SD) {
			t.Errorf("%s: grid 151 gives %.12g ± %.12g, grid 301 gives %.12g ± %.12g", name, u.Mean, u.SD, v.Mean, v.SD)
		}
	}
	for k := range b.Beta {
		close(columns[k], a.Beta[k], b.Beta[k])
	}
	close("σ²", a.Sigma2, b.Sigma2)
	close("τ", a.Tau, b.Tau)
	t.Logf("grid box: log φ in [%.2f, %.2f], log τ in [%.2f, %.2f]", b.LogPhi[0], b.LogPhi[1], b.LogTau[0], b.LogTau[1])
	for k := range b.Beta {
		t.Logf("β[%d] %-8s mean % .6f sd %.6f", k, columns[k], b.Beta[k].Mean, b.Beta[k].SD)
	}
	t.Logf("σ²          mean % .6f sd %.6f", b.Sigma2.Mean, b.Sigma2.SD)
	t.Logf("τ           mean % .6f sd %.6f", b.Tau.Mean, b.Tau.SD)
}

// Oracle settings for the comparison: fixed, so the test is deterministic.
const (
	testChains = 4
	testIters  = 10500
	testBurn   = 500
	testSeed   = 20240601
	mcseBound  = 5 // |oracle mean − grid mean| < mcseBound × MCSE
	sdRelTol   = 0.05
)

func TestOracleAgreesWithGrid(t *testing.T) {
	x, y := load(t)
	pr := defaultPriors()
	g := gridPosterior(x, y, pr, 301)
	o := oracle(x, y, pr, testChains, testIters, testBurn, testSeed)
	if o.Draws != testChains*(testIters-testBurn) {
		t.Fatalf("Draws = %d", o.Draws)
	}
	check := func(name string, got, want stat) {
		if !(got.MCSE > 0) {
			t.Errorf("%s: MCSE %g, want > 0", name, got.MCSE)
			return
		}
		z := (got.Mean - want.Mean) / got.MCSE
		t.Logf("%-8s oracle % .5f ± %.5f (MCSE %.2e)  grid % .5f ± %.5f  z=% .2f", name, got.Mean, got.SD, got.MCSE, want.Mean, want.SD, z)
		if math.Abs(z) > mcseBound {
			t.Errorf("%s: oracle mean %.6g, grid mean %.6g: %.1f MCSE apart (MCSE %.3g), bound %d",
				name, got.Mean, want.Mean, z, got.MCSE, mcseBound)
		}
		if math.Abs(got.SD-want.SD) > sdRelTol*want.SD {
			t.Errorf("%s: oracle sd %.6g, grid sd %.6g: more than %.0f%% apart", name, got.SD, want.SD, 100*sdRelTol)
		}
	}
	for k := range g.Beta {
		check(columns[k], o.Beta[k], g.Beta[k])
	}
	check("σ²", o.Sigma2, g.Sigma2)
	check("τ", o.Tau, g.Tau)
}

func TestOracleDeterministic(t *testing.T) {
	x, y := load(t)
	a := oracle(x, y, defaultPriors(), 3, 300, 50, 7)
	b := oracle(x, y, defaultPriors(), 3, 300, 50, 7)
	for k := range a.Beta {
		if a.Beta[k] != b.Beta[k] {
			t.Fatalf("β[%d]: %+v then %+v", k, a.Beta[k], b.Beta[k])
		}
	}
	if a.Sigma2 != b.Sigma2 || a.Tau != b.Tau {
		t.Fatalf("σ², τ differ between runs with one seed")
	}
	c := oracle(x, y, defaultPriors(), 3, 300, 50, 8)
	if c.Beta[0] == a.Beta[0] {
		t.Error("another seed gave the same β[0] summary")
	}
}
