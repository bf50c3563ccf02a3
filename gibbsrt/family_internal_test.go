package gibbsrt

import (
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
