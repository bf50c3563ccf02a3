package gibbsrt

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestCheckDiagonalsFirstChain: the diagonal check runs in ranges on every
// CPU, and its error names the first bad chain of all, whichever range
// finds one first (a range that finds one at its start, or one that
// searched long).
func TestCheckDiagonalsFirstChain(t *testing.T) {
	const d, chains = 4, 1 << 20 // d × chains = 1<<22: the parallel path
	q, mu := spdModel(d, 10, rand.New(rand.NewPCG(5, 9)))
	tab := newFamilyTables[float32](q, mu, nil)
	for _, bad := range [][]int{{500000, 524289}, {3, 1000000}, {1048575}} {
		w := make([]float32, chains*d)
		for i := range w {
			w[i] = 1
		}
		for _, c := range bad {
			w[c*d+1] = -1e6 // Q_c[1][1] < 0
		}
		err := checkDiagonals(tab, &Precision[float32]{Diag: w}, chains)
		want := "chain " + strconv.Itoa(bad[0]) + "'s precision Q_c has diagonal entry [1][1]"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad chains %v: %v; want an error with %q", bad, err, want)
		}
	}
	w := make([]float32, chains*d)
	for i := range w {
		w[i] = 1
	}
	if err := checkDiagonals(tab, &Precision[float32]{Diag: w}, chains); err != nil {
		t.Errorf("no bad chain: %v", err)
	}
}

// TestFirstNonFinite: the check runs in ranges on every CPU, and names
// the first NaN or infinity of all, whichever range finds one first.
func TestFirstNonFinite(t *testing.T) {
	const n = 1 << 23 // past parallelChains' threshold
	v := make([]float32, n)
	for _, c := range []struct {
		bad  []int
		want int
	}{{nil, -1}, {[]int{n / 2, n/2 + 1}, n / 2}, {[]int{7, n - 1}, 7}, {[]int{n - 1}, n - 1}} {
		clear(v)
		for k, i := range c.bad {
			v[i] = []float32{float32(math.NaN()), float32(math.Inf(-1))}[k%2]
		}
		if got := firstNonFinite(v); got != c.want {
			t.Errorf("non-finite at %v: %d, want %d", c.bad, got, c.want)
		}
		if got := finite(v); got != (c.want < 0) {
			t.Errorf("non-finite at %v: finite = %v", c.bad, got)
		}
	}
	if got := firstNonFinite([]float64{1, math.Inf(1)}); got != 1 {
		t.Errorf("float64 +Inf at 1: %d", got)
	}
}

// BenchmarkCheckDiagonals: SetPrecision's check of a million chains'
// conditional precisions at dim 32, a scale and a diagonal per chain
// (the bench's set-precision row).
func BenchmarkCheckDiagonals(b *testing.B) {
	const d, chains = 32, 1 << 20
	q, mu := spdModel(d, 10, rand.New(rand.NewPCG(5, 9)))
	tab := newFamilyTables[float32](q, mu, nil)
	p := &Precision[float32]{Scales: make([]float32, chains), Diag: make([]float32, chains*d)}
	for i := range p.Scales {
		p.Scales[i] = 1
	}
	for i := range p.Diag {
		p.Diag[i] = 0.5
	}
	b.ResetTimer()
	for b.Loop() {
		if err := checkDiagonals(tab, p, chains); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBadConditional: a conditional precision must be positive and
// finite with a finite reciprocal (the kernel's test); checkDiagonals
// refuses a scale that overflows one and a diagonal term whose
// reciprocal does.
func TestBadConditional(t *testing.T) {
	for _, c := range []struct {
		q    float32
		want bool
	}{{1, false}, {1e-38, false}, {3e38, false}, {0, true}, {-1, true}, {float32(math.NaN()), true}, {float32(math.Inf(1)), true}, {1e-45, true}} {
		if got := badConditional(c.q, 1/c.q); got != c.want {
			t.Errorf("badConditional(%g, %g) = %v", c.q, 1/c.q, got)
		}
	}
	if tiny := 5e-324; !badConditional(tiny, 1/tiny) {
		t.Error("float64: a subnormal whose reciprocal overflows passed")
	}
	const d = 3
	q, mu := spdModel(d, 10, rand.New(rand.NewPCG(1, 2)))
	tab := newFamilyTables[float32](q, mu, nil)
	for _, p := range []*Precision[float32]{
		{Scales: []float32{1, 3e38}},                                     // chain 1: s·Q_ii overflows to +Inf
		{Scales: []float32{1, 0}, Diag: []float32{1, 1, 1, 1, 1e-45, 1}}, // chain 1: 1/q overflows
	} {
		err := checkDiagonals(tab, p, 2)
		if err == nil || !strings.Contains(err.Error(), "chain 1's precision Q_c has diagonal entry") {
			t.Errorf("%+v: %v; want chain 1 refused", *p, err)
		}
	}
}
