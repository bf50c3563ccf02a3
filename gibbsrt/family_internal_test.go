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
