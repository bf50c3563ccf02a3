package mixing

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSweepTable: each row of the sweep table names a kind once, has
// passes in the two frames, and says Reversible exactly where its operator
// is self-adjoint in Q's inner product (Q·G symmetric), which is what the
// SSOR rate, Young's SSOR ω and Chebyshev acceleration assume.
func TestSweepTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	q := randomSPD(6, rng)
	names := map[string]bool{}
	for _, k := range SweepKinds() {
		if !k.Valid() || names[k.String()] || k.String() == "" {
			t.Errorf("kind %d: valid %v, name %q (seen: %v)", int(k), k.Valid(), k, names[k.String()])
		}
		names[k.String()] = true
		fr := k.Frames()
		if len(fr) == 0 {
			t.Errorf("%v: no passes", k)
		}
		for _, f := range fr {
			if f != 0 && f != 1 {
				t.Errorf("%v: a pass in frame %d; the tables have frames 0 and 1", k, f)
			}
		}
		if c := SweepCost(k, 1.3); !(c >= 1) {
			t.Errorf("%v: SweepCost at ω = 1.3 is %v; a sweep costs at least a plain one", k, c)
		}
		g, err := Operator(q, 1.3, k)
		if err != nil {
			t.Fatal(err)
		}
		var qg mat.Dense
		qg.Mul(q, g)
		asym := 0.0
		for i := 0; i < 6; i++ {
			for j := 0; j < i; j++ {
				asym = math.Max(asym, math.Abs(qg.At(i, j)-qg.At(j, i)))
			}
		}
		if self := asym < 1e-9*mat.Norm(&qg, math.Inf(1)); self != k.Reversible() {
			t.Errorf("%v: Reversible() = %v, but Q·G's largest asymmetry is %.3g", k, k.Reversible(), asym)
		}
	}
	if got, want := SweepNames(), "Forward, Backward or Symmetric"; got != want {
		t.Errorf("SweepNames() = %q, want %q", got, want)
	}
	if got, want := Symmetric.Macro(), "GG_SYMMETRIC"; got != want {
		t.Errorf("Symmetric.Macro() = %q, want %q", got, want)
	}
}

// TestSweepCosts pins the costs TuneSampling weighs (run 13).
func TestSweepCosts(t *testing.T) {
	for _, c := range []struct {
		k     Sweep
		omega float64
		want  float64
	}{{Forward, 1, 1}, {Forward, 1.3, 1.09}, {Backward, 1, 1.09}, {Backward, 0.7, 1.09}, {Symmetric, 1, 2.73}, {Symmetric, 1.5, 2.73}} {
		if got := SweepCost(c.k, c.omega); got != c.want {
			t.Errorf("SweepCost(%v, %v) = %v, want %v", c.k, c.omega, got, c.want)
		}
	}
}

// TestInvalidSweep: a value outside the table is no kind: not valid, no
// passes, no cost, an error from Operator, and the runtime's name.
func TestInvalidSweep(t *testing.T) {
	q := ar1(4, 0.5)
	for _, k := range []Sweep{-1, Sweep(len(sweepRows))} {
		if k.Valid() || k.Frames() != nil || k.Reversible() || !math.IsNaN(SweepCost(k, 1)) {
			t.Errorf("kind %d: valid %v, frames %v, reversible %v, cost %v", int(k), k.Valid(), k.Frames(), k.Reversible(), SweepCost(k, 1))
		}
		if _, err := Operator(q, 1, k); err == nil {
			t.Errorf("Operator accepted kind %d", int(k))
		}
		if want := "SweepKind(" + map[Sweep]string{-1: "-1", Sweep(len(sweepRows)): "3"}[k] + ")"; k.String() != want {
			t.Errorf("String() = %q, want %q", k.String(), want)
		}
	}
}
