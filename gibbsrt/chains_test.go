package gibbsrt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestTwinClose: after Close every call of the twin that returns an error
// returns ErrClosed, as the GPU sampler's do (gibbstest.GPUClose).
func TestTwinClose(t *testing.T) {
	r := traceModel(t, 3)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	x := make([]float32, 3)
	for name, err := range map[string]error{
		"SetModel":         r.SetModel([][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, []float64{0, 0, 0}),
		"SetScheme":        r.SetScheme(Plain),
		"Mixing":           func() error { _, err := r.Mixing(); return err }(),
		"Chebyshev":        func() error { _, err := r.Chebyshev(); return err }(),
		"Sweep":            r.Sweep(x, 1, Stream{}),
		"SweepTrace":       func() error { _, err := r.SweepTrace(x, 1, Stream{}, Trace{Thin: 1}, make([]float32, 3)); return err }(),
		"SweepMoments":     func() error { _, err := r.SweepMoments(x, 1, Stream{}, Trace{Thin: 1}); return err }(),
		"SweepChebyshev":   r.SweepChebyshev(x, make([]float32, 3), 0, 1, Stream{}),
		"DrawExact":        r.DrawExact(x, Stream{}),
		"SweepNoise":       r.SweepNoise(x, make([]float32, 3), 1),
		"BurninIterations": func() error { _, err := r.BurninIterations(0); return err }(),
		"Run": func() error {
			_, err := r.Run(context.Background(), x, 1, Stream{}, RunOptions[float32]{})
			return err
		}(),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

// TestSweepMomentsIsTraceMoments: the twin's SweepMoments is the moments
// of SweepTrace's records, bit for bit, and leaves the state SweepTrace
// leaves.
func TestSweepMomentsIsTraceMoments(t *testing.T) {
	const d, chains, sweeps = 4, 6, 9
	r := traceModel(t, d)
	st := Stream{Seed: 9, Sweep: 2}
	tr := Trace{Thin: 2, FirstChain: 1, Chains: 4, Coords: []int{0, 2}}
	x, y := make([]float32, chains*d), make([]float32, chains*d)
	out := make([]float32, Records(tr.Thin, st.Sweep, sweeps)*4*2)
	if _, err := r.SweepTrace(x, sweeps, st, tr, out); err != nil {
		t.Fatal(err)
	}
	want, err := TraceMoments(out, 2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.SweepMoments(y, sweeps, st, tr)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Count(), got.Mean()) != fmt.Sprint(want.Count(), want.Mean()) || fmt.Sprint(x) != fmt.Sprint(y) {
		t.Errorf("SweepMoments: count %v, mean %v; TraceMoments of SweepTrace: %v, %v", got.Count(), got.Mean(), want.Count(), want.Mean())
	}
	gc, _ := got.Covariance()
	wc, _ := want.Covariance()
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			if gc.At(i, j) != wc.At(i, j) {
				t.Errorf("covariance[%d][%d] = %v, want %v", i, j, gc.At(i, j), wc.At(i, j))
			}
		}
	}
}

// TestZeroTwin: a Reference not made by NewReference has no dim, and
// SetModel says so and how to make one.
func TestZeroTwin(t *testing.T) {
	var r Reference[float64]
	err := r.SetModel([][]float64{{1}}, []float64{0})
	var me *ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "dim = 0; it must be at least 1 (make it with NewReference(dim))") {
		t.Errorf("SetModel of a zero Reference: %v", err)
	}
}
