package gibbsrt

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fakeGPU is a GPU sampler for OpenWith's branches, without a device.
type fakeGPU struct{ *Reference[float32] }

func (fakeGPU) Device() Device { return Device{Name: "fake", Ordinal: 0} }

// TestOpenWithChooses: OpenWith runs the GPU sampler when it opens, the
// twin when its error passes Fallback (with the error as the reason), and
// returns any other error.
func TestOpenWithChooses(t *testing.T) {
	twin := func() *Reference[float32] { return NewReference[float32](3) }
	gpu := func(err error) func(int) (fakeGPU, error) {
		return func(device int) (fakeGPU, error) {
			if device != 0 {
				t.Errorf("OpenWith opened device %d, want 0", device)
			}
			if err != nil {
				return fakeGPU{}, err
			}
			return fakeGPU{NewReference[float32](3)}, nil
		}
	}
	c, ch, err := OpenWith[float32](gpu(nil), twin)
	if _, ok := c.(fakeGPU); err != nil || !ok || ch.Backend != OnGPU || ch.Device.Name != "fake" || ch.Reason != nil {
		t.Errorf("GPU opens: %T, %+v, %v", c, ch, err)
	}
	for _, why := range []error{ErrNoDriver, fmt.Errorf("opening device 0: %w", ErrNoDevice)} {
		c, ch, err := OpenWith[float32](gpu(why), twin)
		if _, ok := c.(*Reference[float32]); err != nil || !ok || ch.Backend != OnTwin || ch.Reason != why {
			t.Errorf("GPU fails with %v: %T, %+v, %v; want the twin with that reason", why, c, ch, err)
		}
		if !strings.Contains(ch.String(), "CPU twin") {
			t.Errorf("Choice.String() = %q", ch.String())
		}
	}
	broken := errors.New("gibbsrt: kernel gibbs_sweep_shared: not found")
	if c, ch, err := OpenWith[float32](gpu(broken), twin); err != broken || c != nil || ch.Backend != 0 {
		t.Errorf("GPU fails otherwise: %v, %+v, %v; want the error and no sampler", c, ch, err)
	}
}

// TestOpenWithoutGPU: on a machine without a driver or device Open
// returns the twin of the module's dim and says why; a module the runtime
// cannot run is an error whatever the machine has.
func TestOpenWithoutGPU(t *testing.T) {
	if _, _, err := Open[float32](ModuleSpec{Dim: 0, DType: "float32", Fatbin: []byte{1}, Kernels: []string{"gibbs_sweep_shared"}}); err == nil {
		t.Error("Open of a module of dim 0 succeeded")
	}
	m := ModuleSpec{Dim: 5, DType: "float32", Fatbin: []byte("not a fatbin"), Kernels: []string{"gibbs_sweep_shared"}}
	c, ch, err := Open[float32](m)
	switch {
	case err == nil && ch.Backend == OnTwin:
		r, ok := c.(*Reference[float32])
		if !ok || r.Dim() != 5 || !Fallback(ch.Reason) {
			t.Errorf("Open without a GPU: %T of dim %d, reason %v", c, c.Dim(), ch.Reason)
		}
		t.Logf("chose %v", ch)
	case err != nil && !Fallback(err):
		t.Skipf("a GPU is present: the fake fatbin does not load (%v)", err)
	default:
		t.Errorf("Open: %T, %+v, %v", c, ch, err)
	}
}

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
		"SetModel":       r.SetModel([][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, []float64{0, 0, 0}),
		"SetScheme":      r.SetScheme(Plain),
		"Mixing":         func() error { _, err := r.Mixing(); return err }(),
		"Chebyshev":      func() error { _, err := r.Chebyshev(); return err }(),
		"Sweep":          r.Sweep(x, 1, Stream{}),
		"SweepTrace":     func() error { _, err := r.SweepTrace(x, 1, Stream{}, Trace{Thin: 1}, make([]float32, 3)); return err }(),
		"SweepMoments":   func() error { _, err := r.SweepMoments(x, 1, Stream{}, Trace{Thin: 1}); return err }(),
		"SweepChebyshev": r.SweepChebyshev(x, make([]float32, 3), 0, 1, Stream{}),
		"DrawExact":      r.DrawExact(x, Stream{}),
		"SweepNoise":     r.SweepNoise(x, make([]float32, 3), 1),
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
	if _, ok := errors.AsType[*ModelError](err); !ok || !strings.Contains(err.Error(), "dim = 0; it must be at least 1 (make it with NewReference(dim))") {
		t.Errorf("SetModel of a zero Reference: %v", err)
	}
}
