package gibbsrt_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
)

// A linear term per chain on the twin: each chain's mean and covariance
// around its own target's mean, after sweeps and after exact draws, in
// both dtypes and under the schemes and the matrix form.
func TestLinearDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	schemes := []gibbsrt.Scheme{gibbsrt.Plain, {Kind: gibbsrt.Symmetric, Omega: 1.3}, {Kind: gibbsrt.Backward, Omega: 0.8, Form: gibbsrt.FormMatrix}}
	for _, d := range []int{1, 5, 13} {
		m := gibbstest.RandomSPD(d, 100, rng, gibbstest.NonzeroMean(d))
		for _, sc := range schemes {
			t.Run(fmt.Sprintf("dim=%d/%v", d, sc), func(t *testing.T) {
				r32, r64 := gibbsrt.NewReference[float32](d), gibbsrt.NewReference[float64](d)
				for _, r := range []interface {
					SetScheme(gibbsrt.Scheme) error
					SetModel([][]float64, []float64) error
				}{r32, r64} {
					if err := r.SetScheme(sc); err != nil {
						t.Fatal(err)
					}
					if err := r.SetModel(m.Rows(), m.Mu); err != nil {
						t.Fatal(err)
					}
				}
				gibbstest.CheckLinearDistribution[float32](t, m, r32, 4000, rng)
				gibbstest.CheckLinearDistribution[float64](t, m, r64, 4000, rng)
			})
		}
	}
}

// The shifts against a float64 oracle: an exact draw with a term minus
// the same draw without one is Σ·h_c, up to the roundings of the shift (to
// float32 once, and the fma chain in float64) and of the draw's sum.
func TestLinearShiftsOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	const d, chains = 24, 300
	m := gibbstest.RandomSPD(d, 1e4, rng, gibbstest.NonzeroMean(d))
	r := gibbsrt.NewReference[float32](d)
	if err := r.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	h, shifts := gibbstest.LinearTerms[float32](m, chains, rng)
	st := gibbsrt.Stream{Seed: 5}
	plain := make([]float32, chains*d)
	if err := r.DrawExact(plain, st); err != nil {
		t.Fatal(err)
	}
	if err := r.SetLinear(h); err != nil {
		t.Fatal(err)
	}
	with := make([]float32, chains*d)
	if err := r.DrawExact(with, st); err != nil {
		t.Fatal(err)
	}
	eps := math.Pow(2, -24)
	worst := 0.0
	for c := 0; c < chains; c++ {
		for i := 0; i < d; i++ {
			e := c*d + i
			// |Σ|·|h| bounds the float64 chain's error (d·2⁻⁵³ of it).
			mag := 0.0
			for k := 0; k < d; k++ {
				mag += math.Abs(m.Sigma.At(i, k) * float64(h[c*d+k]))
			}
			bound := eps*(math.Abs(shifts[e])+math.Abs(float64(with[e]))) + float64(d)*math.Pow(2, -53)*mag + 1e-30
			diff := math.Abs(float64(with[e]) - float64(plain[e]) - shifts[e])
			if diff > 2*bound {
				t.Fatalf("chain %d coordinate %d: draw with the term − without = %g, want Σ·h = %g (difference %g over %g)", c, i, float64(with[e])-float64(plain[e]), shifts[e], diff, 2*bound)
			}
			worst = max(worst, diff/bound)
		}
	}
	t.Logf("worst difference from the oracle: %.2f of the rounding bound", worst)
}

// Every refusal of SetLinear and of a call with a term names the value and
// the rule and changes nothing.
func TestLinearErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	const d, chains = 4, 10
	m := gibbstest.RandomSPD(d, 10, rng, gibbstest.NonzeroMean(d))
	r := gibbsrt.NewReference[float32](d)
	if err := r.SetLinear(make([]float32, d)); err == nil || !strings.Contains(err.Error(), "before SetModel") {
		t.Errorf("SetLinear before SetModel: %v", err)
	}
	if err := r.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	h, _ := gibbstest.LinearTerms[float32](m, chains, rng)
	if err := r.SetLinear(h); err != nil {
		t.Fatal(err)
	}
	st := gibbsrt.Stream{Seed: 9}
	x := make([]float32, chains*d)
	want := slices.Clone(x)
	if err := r.Sweep(want, 3, st); err != nil {
		t.Fatal(err)
	}
	nan, inf, huge := slices.Clone(h), slices.Clone(h), slices.Clone(h)
	nan[2*d+1] = float32(math.NaN())
	inf[3*d] = float32(math.Inf(1))
	for i := range huge[7*d : 8*d] {
		huge[7*d+i] = 3e38
	}
	for _, c := range []struct {
		what string
		h    []float32
		msg  string
	}{
		{"a partial chain", h[:len(h)-1], "len(h) = 39 is not a multiple of dim 4"},
		{"a NaN", nan, "h[2][1] = NaN (chain 2, coordinate 1)"},
		{"an infinity", inf, "h[3][0] = +Inf (chain 3, coordinate 0)"},
	} {
		if err := r.SetLinear(c.h); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("SetLinear with %s: %v; want %q", c.what, err, c.msg)
		}
	}
	// Q = I/2: Σ·h = 2h, which overflows float32 at h = 3e38.
	half := gibbstest.AR1(d, 0, make([]float64, d))
	rows := half.Rows()
	for i := range rows {
		rows[i][i] /= 2
	}
	rh := gibbsrt.NewReference[float32](d)
	if err := rh.SetModel(rows, half.Mu); err != nil {
		t.Fatal(err)
	}
	if err := rh.SetLinear(huge); err == nil || !strings.Contains(err.Error(), "chain 7's mean shift Q⁻¹·h is not finite") {
		t.Errorf("SetLinear with an overflowing shift: %v", err)
	}
	if err := r.Sweep(x[:(chains-1)*d], 1, st); err == nil || !strings.Contains(err.Error(), "is for 10 chains; this call has 9") {
		t.Errorf("Sweep of 9 chains with a term of 10: %v", err)
	}
	if err := r.DrawExact(x[:(chains-1)*d], st); err == nil || !strings.Contains(err.Error(), "is for 10 chains; this call has 9") {
		t.Errorf("DrawExact of 9 chains with a term of 10: %v", err)
	}
	// A model SetModel refuses changes neither the model nor the term.
	if err := r.SetModel([][]float64{{1, 0, 0, 0}, {0, -1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}, make([]float64, d)); err == nil {
		t.Error("SetModel of an indefinite Q succeeded")
	}
	got := slices.Clone(x)
	if err := r.Sweep(got, 3, st); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("after the refusals the sweeps differ: %v, want %v", got[:d], want[:d])
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.SetLinear(h); !errors.Is(err, gibbsrt.ErrClosed) {
		t.Errorf("SetLinear after Close: %v, want ErrClosed", err)
	}
}

// SetModel keeps the term and computes its shifts for the new model, and
// SetLinear(nil) clears it: a sweep then equals a fresh twin's with the
// same term, or none.
func TestLinearFollowsTheModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	const d, chains = 6, 50
	m1 := gibbstest.RandomSPD(d, 10, rng, gibbstest.NonzeroMean(d))
	m2 := gibbstest.AR1(d, 0.7, make([]float64, d))
	h, _ := gibbstest.LinearTerms[float64](m1, chains, rng)
	st := gibbsrt.Stream{Seed: 3}
	x0 := make([]float64, chains*d)
	for i := range x0 {
		x0[i] = rng.NormFloat64()
	}
	run := func(r *gibbsrt.Reference[float64]) []float64 {
		x := slices.Clone(x0)
		if err := r.Sweep(x, 4, st); err != nil {
			t.Fatal(err)
		}
		return x
	}
	fresh := func(m gibbstest.Model, h []float64) []float64 {
		r := gibbsrt.NewReference[float64](d)
		if err := r.SetModel(m.Rows(), m.Mu); err != nil {
			t.Fatal(err)
		}
		if err := r.SetLinear(h); err != nil {
			t.Fatal(err)
		}
		return run(r)
	}
	r := gibbsrt.NewReference[float64](d)
	if err := r.SetModel(m1.Rows(), m1.Mu); err != nil {
		t.Fatal(err)
	}
	if err := r.SetLinear(h); err != nil {
		t.Fatal(err)
	}
	if err := r.SetModel(m2.Rows(), m2.Mu); err != nil {
		t.Fatal(err)
	}
	if got, want := run(r), fresh(m2, h); !slices.Equal(got, want) {
		t.Errorf("after SetModel the term's sweeps differ from a fresh twin's: %v vs %v", got[:d], want[:d])
	}
	if err := r.SetLinear(nil); err != nil {
		t.Fatal(err)
	}
	if got, want := run(r), fresh(m2, nil); !slices.Equal(got, want) {
		t.Errorf("after SetLinear(nil) the sweeps differ from a twin without a term: %v vs %v", got[:d], want[:d])
	}
}

// With a term, SweepMoments leaves the state Sweep leaves: the GPU shifts
// once around its one launch, and the twin, which sweeps record by record,
// must too.
func TestLinearSweepMomentsState(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 5))
	const d, chains = 5, 40
	m := gibbstest.RandomSPD(d, 10, rng, gibbstest.NonzeroMean(d))
	r := gibbsrt.NewReference[float32](d)
	if err := r.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	h, _ := gibbstest.LinearTerms[float32](m, chains, rng)
	if err := r.SetLinear(h); err != nil {
		t.Fatal(err)
	}
	x := gibbstest.RandomState[float32](rng, chains*d, 1)
	st := gibbsrt.Stream{Seed: 4, Sweep: 1}
	want, got := slices.Clone(x), slices.Clone(x)
	if err := r.Sweep(want, 7, st); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SweepMoments(got, 7, st, gibbsrt.Trace{Thin: 2}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("SweepMoments' state differs from Sweep's: %v vs %v", got[:d], want[:d])
	}
}
