package gibbsrt

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/mcstat"
)

func traceModel(t *testing.T, d int) *Reference[float32] {
	t.Helper()
	q := make([][]float64, d)
	mu := make([]float64, d)
	for i := range q {
		q[i] = make([]float64, d)
		q[i][i] = 2
		if i > 0 {
			q[i][i-1], q[i-1][i] = -0.6, -0.6
		}
		mu[i] = float64(i) - 1.5
	}
	r := NewReference[float32](d)
	if err := r.SetModel(q, mu); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReferenceTrace: the records are the states after the recorded
// sweeps, restricted to the traced chains and coordinates, in the
// documented layout; sweep by sweep is the definition.
func TestReferenceTrace(t *testing.T) {
	const d, chains, sweeps = 6, 9, 20
	r := traceModel(t, d)
	st := Stream{Seed: 5, Sweep: 7, Chain: 100}
	tr := Trace{Thin: 3, FirstChain: 2, Chains: 5, Coords: []int{0, 3, 5}}
	x0 := make([]float32, chains*d)
	for i := range x0 {
		x0[i] = float32(i%11) - 4.5
	}
	n := Records(tr.Thin, st.Sweep, sweeps) // after sweeps 8, 11, 14, 17, 20, 23, 26: 7
	if n != 7 {
		t.Fatalf("Records = %d, want 7", n)
	}
	x := slices.Clone(x0)
	out := make([]float32, n*5*3)
	got, err := r.SweepTrace(x, sweeps, st, tr, out)
	if err != nil || got != n {
		t.Fatalf("SweepTrace: %d records, %v", got, err)
	}
	// The definition, one sweep at a time.
	y := slices.Clone(x0)
	var want []float32
	s := st
	for k := 0; k < sweeps; k++ {
		if err := r.Sweep(y, 1, s); err != nil {
			t.Fatal(err)
		}
		if (s.Sweep+1)%3 == 0 {
			for c := 2; c < 7; c++ {
				for _, i := range tr.Coords {
					want = append(want, y[c*d+i])
				}
			}
		}
		s.Sweep++
	}
	if !slices.Equal(out, want) {
		t.Errorf("records differ from the sweep-by-sweep states:\n got %v\nwant %v", out, want)
	}
	if !slices.Equal(x, y) {
		t.Error("the traced call's final state differs from Sweep's")
	}
	// Split into calls of 5 and 15 sweeps: the same records.
	x = slices.Clone(x0)
	a := make([]float32, Records(3, st.Sweep, 5)*15)
	b := make([]float32, Records(3, st.Sweep+5, 15)*15)
	if _, err := r.SweepTrace(x, 5, st, tr, a); err != nil {
		t.Fatal(err)
	}
	s = st
	s.Sweep += 5
	if _, err := r.SweepTrace(x, 15, s, tr, b); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(append(a, b...), want) {
		t.Error("records of two calls differ from one call's")
	}
}

func TestTraceRejects(t *testing.T) {
	r := traceModel(t, 4)
	x := make([]float32, 3*4)
	big := make([]float32, 1000)
	for _, c := range []struct {
		tr   Trace
		out  []float32
		want string
	}{
		{Trace{Thin: 0}, big, "Thin = 0"},
		{Trace{Thin: 1, FirstChain: 2, Chains: 2}, big, "chains 2..3, but the call has chains 0..2"},
		{Trace{Thin: 1, FirstChain: -1}, big, "FirstChain = -1"},
		{Trace{Thin: 1, FirstChain: 1, Chains: math.MaxInt}, big, "chains 1..9223372036854775807, but the call has chains 0..2"},
		{Trace{Thin: 1, Coords: []int{1, 4}}, big, "coordinate 4 is outside 0..3"},
		{Trace{Thin: 1, Coords: []int{2, 2}}, big, "must increase"},
		{Trace{Thin: 1}, make([]float32, 11), "trace output has 11 elements"},
	} {
		if _, err := r.SweepTrace(x, 1, Stream{}, c.tr, c.out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.tr, err, c.want)
		}
	}
}

func TestRecords(t *testing.T) {
	for _, c := range []struct {
		thin   int
		sweep0 uint64
		sweeps int
		want   int
	}{
		{1, 0, 10, 10}, {3, 0, 2, 0}, {3, 0, 3, 1}, {3, 2, 1, 1}, {3, 3, 2, 0}, {5, 4, 11, 3}, {7, 1 << 40, 0, 0},
	} {
		if got := Records(c.thin, c.sweep0, c.sweeps); got != c.want {
			t.Errorf("Records(%d, %d, %d) = %d, want %d", c.thin, c.sweep0, c.sweeps, got, c.want)
		}
	}
}

// TestTraceMoments: the blocked reduction (the device kernel's twin)
// agrees with mcstat's batch moments to float64 rounding, at sizes that
// give one partial tile, several tiles and several blocks.
func TestTraceMoments(t *testing.T) {
	for _, n := range []int{1, 5, 128, 300, 40000} {
		const k = 3
		x := make([]float32, n*k)
		for i := range x {
			x[i] = float32(1000 + (i*7919)%101 - 50 + i%k)
		}
		got, err := TraceMoments(x, k)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := mcstat.NewMoments(k)
		if err := want.AddRows(x); err != nil {
			t.Fatal(err)
		}
		if got.Count() != want.Count() {
			t.Fatalf("n=%d: count %v, want %v", n, got.Count(), want.Count())
		}
		for i, m := range got.Mean() {
			if math.Abs(m-want.Mean()[i]) > 1e-12*1000 {
				t.Errorf("n=%d: mean[%d] = %v, want %v", n, i, m, want.Mean()[i])
			}
		}
		if n < 2 {
			continue
		}
		gc, _ := got.Covariance()
		wc, _ := want.Covariance()
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				if math.Abs(gc.At(i, j)-wc.At(i, j)) > 1e-9*math.Abs(wc.At(i, i)) {
					t.Errorf("n=%d: covariance[%d][%d] = %v, want %v", n, i, j, gc.At(i, j), wc.At(i, j))
				}
			}
		}
	}
	if _, err := TraceMoments(make([]float32, 5), 2); err == nil {
		t.Error("TraceMoments of 5 values in rows of 2 accepted")
	}
}

// TestRowMomentsInPieces: rows reduced as they come, in pieces of any
// size, give TraceMoments' bits, at sizes of one partial tile, several
// tiles and several blocks.
func TestRowMomentsInPieces(t *testing.T) {
	const k = 3
	for _, n := range []int{0, 1, 5, 128, 300, 40000} {
		x := make([]float32, n*k)
		for i := range x {
			x[i] = float32(1000 + (i*7919)%101 - 50 + i%k)
		}
		want, err := TraceMoments(x, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, piece := range []int{1, 7, 128, 1000} {
			m := newRowMoments[float32](n, k)
			for lo := 0; lo < n; lo += piece {
				m.add(x[lo*k : min(lo+piece, n)*k])
			}
			got, err := m.moments()
			if err != nil {
				t.Fatal(err)
			}
			if got.Count() != want.Count() || !slices.Equal(got.Mean(), want.Mean()) || !slices.Equal(got.Comoments(), want.Comoments()) {
				t.Errorf("n=%d in pieces of %d: count %v, mean %v; want %v, %v", n, piece, got.Count(), got.Mean(), want.Count(), want.Mean())
			}
		}
	}
}
