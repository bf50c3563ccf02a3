package gibbsrt

import (
	"slices"
	"strings"
	"testing"
)

// The argument rules of the package doc ("Arguments"), one test per kind
// of argument, on the twin and on the checks the GPU sampler shares.

// TestOutputsMayBeLonger: an output longer than what a call writes is
// accepted, its prefix written and the rest left alone; a shorter one is
// refused. SweepTrace and DeviceTrace.Download share the check (checkOut).
func TestOutputsMayBeLonger(t *testing.T) {
	const d, chains, sweeps = 4, 3, 6
	r := traceModel(t, d)
	tr := Trace{Thin: 2, Coords: []int{1, 3}}
	n := Records(tr.Thin, 0, sweeps)
	size := n * chains * len(tr.Coords)
	exact := make([]float32, size)
	if _, err := r.SweepTrace(make([]float32, chains*d), sweeps, Stream{}, tr, exact); err != nil {
		t.Fatal(err)
	}
	const mark = -12345
	long := slices.Repeat([]float32{mark}, size+5)
	got, err := r.SweepTrace(make([]float32, chains*d), sweeps, Stream{}, tr, long)
	if err != nil || got != n {
		t.Fatalf("SweepTrace into %d elements for %d: %d records, %v", len(long), size, got, err)
	}
	if !slices.Equal(long[:size], exact) {
		t.Error("the prefix of a longer output differs from an exact one")
	}
	if slices.ContainsFunc(long[size:], func(v float32) bool { return v != mark }) {
		t.Error("SweepTrace wrote past the records")
	}
	if _, err := r.SweepTrace(make([]float32, chains*d), sweeps, Stream{}, tr, exact[:size-1]); err == nil || !strings.Contains(err.Error(), "trace output has") {
		t.Errorf("SweepTrace into one element too few: %v", err)
	}
	// DeviceTrace.Download's check, without a device.
	sh, err := tr.shape(d, chains)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n  int
		ok bool
	}{{size, true}, {size + 1, true}, {size - 1, false}, {0, false}} {
		if err := sh.checkOut(c.n, n); (err == nil) != c.ok {
			t.Errorf("checkOut(%d elements for %d) = %v", c.n, size, err)
		}
	}
}

// TestEmptySelectionSelectsAll: Trace.Coords nil, empty and every
// coordinate listed record the same, as Chains 0 and every chain do.
func TestEmptySelectionSelectsAll(t *testing.T) {
	const d, chains, sweeps = 5, 4, 3
	r := traceModel(t, d)
	record := func(tr Trace) []float32 {
		t.Helper()
		out := make([]float32, sweeps*chains*d)
		if _, err := r.SweepTrace(make([]float32, chains*d), sweeps, Stream{Seed: 3}, tr, out); err != nil {
			t.Fatalf("%+v: %v", tr, err)
		}
		return out
	}
	all := record(Trace{Thin: 1, Chains: chains, Coords: []int{0, 1, 2, 3, 4}})
	for _, tr := range []Trace{{Thin: 1}, {Thin: 1, Coords: []int{}}, {Thin: 1, Chains: chains}} {
		if !slices.Equal(record(tr), all) {
			t.Errorf("%+v records differ from every chain and coordinate listed", tr)
		}
	}
}

// TestInputsAreExact: a state is whole chains, and noise and prev, whose
// lengths the call fixes, must be exactly that long, neither shorter nor
// longer.
func TestInputsAreExact(t *testing.T) {
	const d = 4
	r := traceModel(t, d)
	x := make([]float32, 2*d)
	for _, c := range []struct {
		what string
		err  error
		want string
	}{
		{"state of 7 elements", r.Sweep(make([]float32, 7), 1, Stream{}), "not a multiple of dim 4"},
		{"noise one longer", r.SweepNoise(x, make([]float32, 2*d+1), 1), "noise has 9 elements, want"},
		{"noise one shorter", r.SweepNoise(x, make([]float32, 2*d-1), 1), "noise has 7 elements, want"},
		{"prev one chain longer", r.SweepChebyshev(x, make([]float32, 3*d), 0, 1, Stream{}), "previous iterates have 12 elements, the state 8"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.what, c.err, c.want)
		}
	}
	if err := r.SweepNoise(x, make([]float32, 2*d), 1); err != nil {
		t.Errorf("noise of exactly sweeps×dim×chains: %v", err)
	}
}
