package gibbsimpl

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// TestLinks: gibbsrt hands over both constructors in both dtypes
// (impl.Get panics on a missing one), without a GPU.
func TestLinks(t *testing.T) {
	_, _ = newSampler[float32](), newMulti[float32]()
	_, _ = newSampler[float64](), newMulti[float64]()
}

// fakeGPU is a GPU sampler for OpenWith's branches, without a device.
type fakeGPU struct{ *gibbsrt.Reference[float32] }

func (fakeGPU) Device() gibbsrt.Device { return gibbsrt.Device{Name: "fake", Ordinal: 0} }

// TestOpenWithChooses: OpenWith runs the GPU sampler when it opens, the
// twin when its error passes Fallback (with the error as the reason), and
// returns any other error.
func TestOpenWithChooses(t *testing.T) {
	twin := func() *gibbsrt.Reference[float32] { return gibbsrt.NewReference[float32](3) }
	gpu := func(err error) func(int) (fakeGPU, error) {
		return func(device int) (fakeGPU, error) {
			if device != 0 {
				t.Errorf("OpenWith opened device %d, want 0", device)
			}
			if err != nil {
				return fakeGPU{}, err
			}
			return fakeGPU{gibbsrt.NewReference[float32](3)}, nil
		}
	}
	c, ch, err := OpenWith[float32](gpu(nil), twin)
	if _, ok := c.(fakeGPU); err != nil || !ok || ch.Backend != gibbsrt.OnGPU || ch.Device.Name != "fake" || ch.Reason != nil {
		t.Errorf("GPU opens: %T, %+v, %v", c, ch, err)
	}
	for _, why := range []error{gibbsrt.ErrNoDriver, fmt.Errorf("opening device 0: %w", gibbsrt.ErrNoDevice)} {
		c, ch, err := OpenWith[float32](gpu(why), twin)
		if _, ok := c.(*gibbsrt.Reference[float32]); err != nil || !ok || ch.Backend != gibbsrt.OnTwin || ch.Reason != why {
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

// TestOpenWithoutGPU: on a machine without a driver or device, OpenWith
// with the runtime's constructors (what a generated package's Open passes)
// returns the twin of the module's dim and says why; a module the runtime
// cannot run is an error whatever the machine has.
func TestOpenWithoutGPU(t *testing.T) {
	open := func(m Module) (gibbsrt.Chains[float32], gibbsrt.Choice, error) {
		return OpenWith[float32](
			func(device int) (*gibbsrt.Sampler[float32], error) { return NewSampler[float32](m, device) },
			func() *gibbsrt.Reference[float32] { return gibbsrt.NewReference[float32](m.Dim) })
	}
	if _, _, err := open(Module{Dim: 0, DType: "float32", Fatbin: []byte{1}, Kernels: []string{"gibbs_sweep_shared"}}); err == nil {
		t.Error("Open of a module of dim 0 succeeded")
	}
	m := Module{Dim: 5, DType: "float32", Fatbin: []byte("not a fatbin"), Kernels: []string{"gibbs_sweep_shared"}}
	c, ch, err := open(m)
	switch {
	case err == nil && ch.Backend == gibbsrt.OnTwin:
		r, ok := c.(*gibbsrt.Reference[float32])
		if !ok || r.Dim() != 5 || !gibbsrt.Fallback(ch.Reason) {
			t.Errorf("Open without a GPU: %T of dim %d, reason %v", c, c.Dim(), ch.Reason)
		}
		t.Logf("chose %v", ch)
	case err != nil && !gibbsrt.Fallback(err):
		t.Skipf("a GPU is present: the fake fatbin does not load (%v)", err)
	default:
		t.Errorf("Open: %T, %+v, %v", c, ch, err)
	}
}
